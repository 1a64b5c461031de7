// A small but complete profile built with the core API, shared by the report, store and export
// tests: two energy channels (a package counter and a nested core counter), a GPU power channel
// with a gap, a temperature channel, CPU and GPU tracks with nested spans and a mark, a
// breakdown tree with static/dynamic split and repetition statistics, attribution and warnings.
#pragma once

#include <string>

#include "jouleprof/profile.hpp"

namespace jouleprof::testing {

struct SampleProfileOptions {
  double scale = 1.0;  // multiplies every energy (for regressions in compare tests)
  std::string host = "host-a";
  int rank = 0;
  std::string extra_op;  // when set, an extra operator node under "forward"
  // Moves the run's realtime start: another run of the same host for the history (run_key_of).
  TimeNs start_offset_ns = 0;
};

inline Profile sample_profile(const SampleProfileOptions& o = {}) {
  Profile p;
  p.meta.tool_version = "test";
  p.meta.kind = "profile";
  p.meta.command = {"python", "train.py", "--epochs", "1"};
  p.meta.host = o.host;
  p.meta.rank = o.rank;
  p.meta.world_size = 2;
  p.meta.anchor = ClockAnchor{1'000'000'000, 1'700'000'000'000'000'000 + o.start_offset_ns};
  p.meta.begin_ns = 1'000'000'000;
  p.meta.end_ns = 3'000'000'000;
  p.meta.exit_code = 0;
  p.meta.options.unknown = {{"interval", "10ms"}};

  Channel pkg{"rapl:package-0",
              "rapl-powercap",
              "cpu0",
              "package",
              ChannelKind::kEnergyCounter,
              Provenance::kMeasured,
              "/sys/class/powercap/intel-rapl:0/energy_uj",
              "",
              kNsPerMs,
              kNsPerMs};
  Channel core = pkg;
  core.id = "rapl:package-0/core";
  core.domain = "core";
  core.parent_id = pkg.id;
  Channel gpu{"nvml:0:power",
              "nvml",
              "gpu0",
              "gpu",
              ChannelKind::kPower,
              Provenance::kMeasured,
              "nvmlDeviceGetPowerUsage",
              "",
              100 * kNsPerMs,
              100 * kNsPerMs};
  Channel temp{"nvml:0:temp",
               "nvml",
               "gpu0",
               "gpu",
               ChannelKind::kTemperature,
               Provenance::kMeasured,
               "nvmlDeviceGetTemperature",
               "",
               0,
               0};
  Series s_pkg(pkg), s_core(core), s_gpu(gpu), s_temp(temp);
  // 20 W package, 12 W core over 2 s, read every 10 ms; GPU 100 W + ramp, every 100 ms.
  for (int i = 0; i <= 200; ++i) {
    const TimeNs t = p.meta.begin_ns + i * 10 * kNsPerMs;
    (void)s_pkg.append(t, o.scale * 20.0 * 0.01 * i);
    (void)s_core.append(t, o.scale * 12.0 * 0.01 * i);
  }
  for (int i = 0; i <= 20; ++i) {
    const TimeNs t = p.meta.begin_ns + i * 100 * kNsPerMs;
    (void)s_gpu.append(t, o.scale * (100.0 + 5.0 * i));
    (void)s_temp.append(t, 40.0 + 0.5 * i);
  }
  s_gpu.add_gap(
      Gap{p.meta.begin_ns + 1'500'000'000, p.meta.begin_ns + 1'600'000'000, "NVML timeout"});
  p.series.push_back(std::move(s_pkg));
  p.series.push_back(std::move(s_core));
  p.series.push_back(std::move(s_gpu));
  p.series.push_back(std::move(s_temp));
  p.channels.push_back({pkg.id, o.scale * 40.0, 8.0, o.scale * 40.0 - 16.0, 2 * kNsPerS,
                        o.scale * 20.0, o.scale * 21.0, Provenance::kMeasured});
  p.channels.push_back({core.id, o.scale * 24.0, std::nullopt, std::nullopt, 2 * kNsPerS,
                        o.scale * 12.0, o.scale * 13.0, Provenance::kMeasured});
  p.channels.push_back({gpu.id, o.scale * 240.0, std::nullopt, std::nullopt, 2 * kNsPerS,
                        o.scale * 120.0, o.scale * 200.0, Provenance::kMeasured});

  Timeline& tl = p.timeline;
  const auto cpu = tl.add_track(Track{TrackKind::kCpuThread, "thread 4242", "cpu0"});
  const auto stream = tl.add_track(Track{TrackKind::kGpuStream, "stream 7", "gpu0"});
  const TimeNs b = p.meta.begin_ns;
  const auto step =
      tl.add_span(Span{b + 100 * kNsPerMs, b + 1900 * kNsPerMs, cpu, tl.intern("train_step"),
                       kNoIndex, kNoIndex, SpanCategory::kStep, Pass::kNone});
  const auto fwd =
      tl.add_span(Span{b + 100 * kNsPerMs, b + 900 * kNsPerMs, cpu, tl.intern("forward"), step,
                       kNoIndex, SpanCategory::kLayer, Pass::kForward});
  tl.add_span(Span{b + 200 * kNsPerMs, b + 600 * kNsPerMs, cpu, tl.intern("aten::addmm"), fwd,
                   tl.add_attributes({{"shape", "[32,768]x[768,3072]"}}), SpanCategory::kOp,
                   Pass::kForward});
  tl.add_span(Span{b + 900 * kNsPerMs, b + 1800 * kNsPerMs, cpu, tl.intern("backward"), step,
                   kNoIndex, SpanCategory::kLayer, Pass::kBackward});
  for (int k = 0; k < 30; ++k) {
    const TimeNs kb = b + 150 * kNsPerMs + k * 55 * kNsPerMs;
    tl.add_span(Span{kb, kb + 40 * kNsPerMs, stream,
                     tl.intern(k % 2 ? "sgemm_128x64" : "<vectorized_elementwise>"), kNoIndex,
                     kNoIndex, SpanCategory::kKernel, Pass::kNone});
  }
  tl.add_mark(Mark{b + 1900 * kNsPerMs, cpu, tl.intern("epoch_end")});

  auto node = [&](std::string name, SpanCategory cat, Pass pass, double e, double self, TimeNs t,
                  std::uint64_t calls) {
    ProfileNode n;
    n.name = std::move(name);
    n.category = cat;
    n.pass = pass;
    n.energy_j = o.scale * e;
    n.self_energy_j = o.scale * self;
    n.time_ns = t;
    n.self_time_ns = t / 2;
    n.calls = calls;
    n.energy_by_channel_j = {{"rapl:package-0", o.scale * e * 0.2},
                             {"nvml:0:power", o.scale * e * 0.8}};
    return n;
  };
  ProfileNode root = node("run", SpanCategory::kRegion, Pass::kNone, 280.0, 0.0, 2 * kNsPerS, 1);
  root.static_energy_j = o.scale * 100.0;
  root.dynamic_energy_j = o.scale * 180.0;
  ProfileNode train =
      node("train_step", SpanCategory::kStep, Pass::kNone, 250.0, 10.0, 1800 * kNsPerMs, 1);
  ProfileNode forward =
      node("forward", SpanCategory::kLayer, Pass::kForward, 100.0, 20.0, 800 * kNsPerMs, 1);
  forward.children.push_back(
      node("aten::addmm", SpanCategory::kOp, Pass::kForward, 50.0, 50.0, 400 * kNsPerMs, 3));
  forward.children.push_back(
      node("sgemm_128x64", SpanCategory::kKernel, Pass::kForward, 30.0, 30.0, 300 * kNsPerMs, 15));
  if (!o.extra_op.empty()) {
    forward.children.push_back(
        node(o.extra_op, SpanCategory::kOp, Pass::kForward, 5.0, 5.0, 10 * kNsPerMs, 1));
  }
  ProfileNode backward =
      node("backward", SpanCategory::kLayer, Pass::kBackward, 140.0, 40.0, 900 * kNsPerMs, 1);
  backward.children.push_back(
      node("aten::addmm", SpanCategory::kOp, Pass::kBackward, 60.0, 60.0, 500 * kNsPerMs, 6));
  backward.children.push_back(
      node("sgemm_128x64", SpanCategory::kKernel, Pass::kBackward, 40.0, 40.0, 350 * kNsPerMs, 15));
  backward.energy_stats = RepetitionStats{10, 14.0, 13.9, 0.5, 13.6, 14.4};
  train.children.push_back(std::move(forward));
  train.children.push_back(std::move(backward));
  root.children.push_back(std::move(train));
  ProfileNode unattributed =
      node("[unattributed]", SpanCategory::kRegion, Pass::kNone, 30.0, 30.0, 200 * kNsPerMs, 0);
  unattributed.provenance = Provenance::kInterpolated;
  root.children.push_back(std::move(unattributed));
  p.tree = std::move(root);

  AttributionDiagnostics regression;
  regression.regression = RegressionDiagnostics{20, 2, 9, true, RegressionFit{}};
  regression.regression->fit->rank = 3;
  regression.regression->fit->condition_number = 12.5;
  p.attribution.push_back(AttributionRecord{"nvml:0:power",
                                            AttributionMethod::kRegress,
                                            "counter period 100 ms ≫ span length",
                                            regression,
                                            {"windows: 20"}});
  p.warnings.push_back("nvml:0:power: no reading between 1.5 s and 1.6 s (NVML timeout)");
  p.warnings.push_back("<script>alert('escaped?')</script> & \"quotes\"");
  return p;
}

}  // namespace jouleprof::testing
