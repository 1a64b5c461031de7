#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <string>
#include <vector>

#include "jouleprof/monitor.hpp"
#include "jouleprof/recorder.hpp"
#include "jouleprof/source.hpp"
#include "jouleprof/torch.hpp"
#include "test_support.hpp"

namespace jouleprof::torch_adapter {
namespace {

// A CPU energy counter whose power is `idle_w` plus `per_cpu_w` for each CPU this process keeps
// busy (its CPU time, all threads): the replay loop draws power, the waits between do not.
class ProcessCpuSource : public Source {
 public:
  ProcessCpuSource(double idle_w, double per_cpu_w, TimeNs flip_period_ns = 0)
      : idle_w_(idle_w),
        per_cpu_w_(per_cpu_w),
        flip_period_ns_(flip_period_ns),
        origin_ns_(monotonic_now_ns()),
        origin_cpu_ns_(process_cpu_ns()) {
    Channel c;
    c.id = "fake:package-0";
    c.source = "fake";
    c.device = "cpu0";
    c.domain = "package";
    c.kind = ChannelKind::kEnergyCounter;
    c.provenance = Provenance::kSimulated;
    channels_.push_back(c);
    Channel nested = c;  // nested channels must not be counted twice
    nested.id = "fake:core-0";
    nested.domain = "core";
    nested.parent_id = c.id;
    channels_.push_back(nested);
  }
  std::string_view name() const override { return "fake"; }
  Availability availability() const override { return {true, "", ""}; }
  const std::vector<Channel>& channels() const override { return channels_; }
  void read(std::span<Reading> out) override {
    const TimeNs now = monotonic_now_ns();
    double joules = idle_w_ * ns_to_s(now - origin_ns_) +
                    per_cpu_w_ * ns_to_s(process_cpu_ns() - origin_cpu_ns_);
    if (flip_period_ns_ > 0) {  // a machine that never settles: +100 W every other period
      const TimeNs elapsed = now - origin_ns_;
      const TimeNs periods = elapsed / flip_period_ns_;
      const TimeNs high_ns = (periods / 2) * flip_period_ns_ +
                             (periods % 2 == 1 ? elapsed - periods * flip_period_ns_ : 0);
      joules += 100.0 * ns_to_s(high_ns);
    }
    for (auto& r : out) r = Reading{now, joules, true};
  }
  std::string read_error(std::size_t) const override { return ""; }
  TimeNs default_period_ns() const override { return kNsPerMs; }

 private:
  static TimeNs process_cpu_ns() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<TimeNs>(ts.tv_sec) * kNsPerS + ts.tv_nsec;
  }
  double idle_w_;
  double per_cpu_w_;
  TimeNs flip_period_ns_;
  TimeNs origin_ns_;
  TimeNs origin_cpu_ns_;
  std::vector<Channel> channels_;
};

struct CapturedStep {
  std::vector<CapturedOp> ops;
  OpTimes times;
};

CapturedStep capture_small_step() {
  torch::manual_seed(5);
  torch::set_num_threads(1);
  torch::nn::Linear linear(8, 4);
  const torch::Tensor x = torch::randn({16, 8});
  ObserverOptions options;
  options.record_shapes = true;
  Observer observer(options);
  observer.clear_captured();
  Recorder::global().start();
  EXPECT_TRUE(observer.start().ok());
  {
    torch::NoGradGuard no_grad;
    torch::relu(linear(x));
  }
  observer.stop();
  Recorder::global().stop();
  return {observer.captured_ops(), op_self_times(Recorder::global().collect())};
}

MonitorFactory monitor_of(double idle_w, double per_cpu_w, TimeNs flip_period_ns = 0) {
  return [=]() -> Result<std::unique_ptr<Monitor>> {
    std::vector<std::unique_ptr<Source>> sources;
    sources.push_back(std::make_unique<ProcessCpuSource>(idle_w, per_cpu_w, flip_period_ns));
    MonitorOptions options;
    options.interval_ns = kNsPerMs;
    return Monitor::from_sources(std::move(sources), options);
  };
}

// Gate options that keep a test to seconds: 20 ms intervals, a 0.1 s gate window checked every
// 0.15 s, a 0.1 s tail, two repetitions; the CV threshold loosened for a shared test machine.
CalibrationOptions quick() {
  CalibrationOptions o;
  o.gate.interval_ns = 20 * kNsPerMs;
  o.gate.last_n = 5;
  o.gate.check_period_ns = 150 * kNsPerMs;
  o.gate.gate_timeout_ns = 3 * kNsPerS;
  o.gate.tail_wait_ns = 100 * kNsPerMs;
  o.gate.repetitions = 2;
  o.gate.tolerance = 20.0;
  return o;
}

TEST(Calibration, MeasuresEachClassThroughTheGatedProtocol) {
  const CapturedStep step = capture_small_step();
  auto calibration = calibrate(step.ops, step.times, monitor_of(10.0, 50.0), quick());
  ASSERT_TRUE(calibration.ok()) << calibration.error().message();
  EXPECT_EQ(calibration->channel_ids, std::vector<std::string>{"fake:package-0"});
  EXPECT_EQ(calibration->provenance, "simulated");
  EXPECT_NE(calibration->method.find("gated protocol"), std::string::npos);
  // The baseline is the idle process (its sampler thread's CPU time on top of 10 W).
  EXPECT_GE(calibration->idle_power_w, 10.0);
  EXPECT_LT(calibration->idle_power_w, 20.0);
  for (const std::string op_class : {"aten::addmm", "aten::relu", "aten::t"}) {
    const CalibrationClass* k = calibration->find(op_class);
    ASSERT_NE(k, nullptr) << op_class;
    ASSERT_TRUE(k->measurement.has_value()) << op_class;
    const ClassMeasurement* c = &*k->measurement;
    // One busy thread draws up to 50 W above the baseline; a loaded machine gives it less.
    EXPECT_GT(c->net_power_w.mean, 5.0) << op_class;
    EXPECT_LT(c->net_power_w.mean, 60.0) << op_class;
    EXPECT_EQ(c->net_power_w.n, 2u) << op_class;
    EXPECT_NEAR(k->power_w, c->baseline_w + c->net_power_w.mean, 1e-6 * k->power_w) << op_class;
    EXPECT_EQ(c->gates.size(), 2u) << op_class;
    EXPECT_GT(c->call_s, 0.0) << op_class;
    EXPECT_GT(c->calls_per_window, 0u) << op_class;
    EXPECT_TRUE(c->incomplete.empty()) << c->incomplete;
  }
  EXPECT_EQ(calibration->find("aten::relu")->measurement->signature, "f32[16,4]");
  ASSERT_TRUE(calibration->time_coverage.has_value());
  EXPECT_GT(*calibration->time_coverage, 0.0);
  EXPECT_LE(*calibration->time_coverage, 1.0 + 1e-9);
}

// The classes that carry the step's time come first; --max-classes and --coverage cut the rest.
TEST(Calibration, TakesTheClassesWithTheMostTimeFirst) {
  CapturedStep step = capture_small_step();
  step.times.by_class = {{"aten::relu", 70}, {"aten::addmm", 20}, {"aten::t", 10}};
  step.times.total_ns = 100;
  CalibrationOptions o = quick();
  o.gate.repetitions = 1;
  o.max_classes = 1;
  auto one = calibrate(step.ops, step.times, monitor_of(10.0, 0.0), o);
  ASSERT_TRUE(one.ok()) << one.error().message();
  ASSERT_EQ(one->classes.size(), 1u);
  EXPECT_EQ(one->classes[0].match, "aten::relu");
  EXPECT_NEAR(one->time_coverage.value_or(0.0), 0.7, 1e-9);
  const std::string addmm = "aten::addmm (20.0 % of op time): beyond the first 1 classes";
  EXPECT_NE(std::find(one->skipped.begin(), one->skipped.end(), addmm), one->skipped.end());

  o.max_classes = 24;
  o.time_coverage = 0.8;
  auto covered = calibrate(step.ops, step.times, monitor_of(10.0, 0.0), o);
  ASSERT_TRUE(covered.ok()) << covered.error().message();
  ASSERT_EQ(covered->classes.size(), 2u);
  EXPECT_EQ(covered->classes[1].match, "aten::addmm");
  EXPECT_NEAR(covered->time_coverage.value_or(0.0), 0.9, 1e-9);
}

TEST(Calibration, AClassWhoseGateNeverPassesIsSkippedWithTheReason) {
  CapturedStep step = capture_small_step();
  step.times.by_class = {{"aten::relu", 1}};
  step.times.total_ns = 1;
  CalibrationOptions o = quick();
  o.gate.tolerance = 0.0;
  o.gate.gate_timeout_ns = 300 * kNsPerMs;
  o.max_classes = 1;
  auto calibration = calibrate(step.ops, step.times, monitor_of(10.0, 0.0, 50 * kNsPerMs), o);
  ASSERT_TRUE(calibration.ok()) << calibration.error().message();
  EXPECT_TRUE(calibration->classes.empty());
  ASSERT_FALSE(calibration->skipped.empty());
  EXPECT_NE(calibration->skipped.front().find("aten::relu"), std::string::npos);
  EXPECT_NE(calibration->skipped.front().find("stability gate gave up"), std::string::npos)
      << calibration->skipped.front();
}

TEST(Calibration, NeedsAChannelOfTheDevice) {
  CalibrationOptions o = quick();
  o.device = DeviceKind::kCuda;
  auto calibration = calibrate({}, {}, monitor_of(10.0, 0.0), o);
  ASSERT_FALSE(calibration.ok());
  EXPECT_NE(calibration.error().message().find("gpu"), std::string::npos);
}

TEST(CalibrationJson, RoundTrips) {
  Calibration c;
  c.device = "cpu";
  c.model = "bert-mini L=4";
  c.method = "gated protocol (FECoM)";
  c.channel_ids = {"rapl:package-0"};
  c.provenance = "measured";
  c.idle_power_w = 7.5;
  c.time_coverage = 0.62;
  CalibrationClass k;
  k.match = "aten::addmm";
  k.power_w = 31.0;
  ClassMeasurement& m = k.measurement.emplace();
  m.baseline_w = 7.5;
  m.net_power_w = {3, 23.5, 23.4, 0.4, 22.5, 24.5};
  m.tail_j_per_call = 1e-5;
  m.call_s = 2.5e-4;
  m.calls_per_window = 1200;
  m.self_time_share = 0.41;
  m.signature = "f32[256], f32[8,256], f32[256,256], 1, 1";
  m.gates = {{1.0, 1, 0.01}, {2.0, 2, 0.02}, {1.0, 1, 0.015}};
  m.incomplete = "";
  c.classes.push_back(k);
  c.skipped = {"aten::index: argument 1 is a GenericList"};
  testing::TempDir dir;
  const std::string path = (dir.path() / "calibration.json").string();
  ASSERT_TRUE(write_calibration_json(c, path).ok());
  auto back = read_calibration_json(path);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->device, "cpu");
  EXPECT_EQ(back->model, c.model);
  EXPECT_EQ(back->channel_ids, c.channel_ids);
  EXPECT_DOUBLE_EQ(back->idle_power_w.value_or(0.0), 7.5);
  ASSERT_EQ(back->classes.size(), 1u);
  EXPECT_EQ(back->classes[0].match, "aten::addmm");
  EXPECT_DOUBLE_EQ(back->classes[0].power_w, 31.0);
  ASSERT_TRUE(back->classes[0].measurement.has_value());
  const ClassMeasurement& read = *back->classes[0].measurement;
  EXPECT_EQ(read.calls_per_window, 1200u);
  EXPECT_DOUBLE_EQ(read.net_power_w.stdev, 0.4);
  EXPECT_DOUBLE_EQ(read.net_power_w.ci95_high, 24.5);
  EXPECT_DOUBLE_EQ(read.self_time_share, 0.41);
  ASSERT_EQ(read.gates.size(), 3u);
  EXPECT_EQ(read.gates[1].checks, 2u);
  EXPECT_DOUBLE_EQ(back->time_coverage.value_or(0.0), 0.62);
  EXPECT_EQ(read.signature, m.signature);
  EXPECT_EQ(back->skipped, c.skipped);
  // The attribution reads the same file: the class's weight by name.
  EXPECT_DOUBLE_EQ(back->power_for("aten::addmm").value_or(0.0), 31.0);
}

TEST(CalibrationJson, NamesTheBadField) {
  testing::TempDir dir;
  const auto path = dir.write("bad.json",
                              R"({"format": "jouleprof-calibration", "version": 1, "device": "cpu",
                                  "model": "m", "method": "x", "channels": [], "provenance": "measured",
                                  "idle_w": 1.0, "time_coverage": 0.5, "skipped": [],
                                  "classes": [{"match": "aten::mm", "power_w": "hot"}]})");
  auto read = read_calibration_json(path.string());
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message().find("classes[0].power_w"), std::string::npos)
      << read.error().message();
  EXPECT_NE(read.error().message().find("bad.json"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof::torch_adapter
