// Calibration: each operator class of a profiled step replayed alone, with the argument shapes
// the model really used, through FECoM's gated protocol (measure_gated: stability gate, idle
// baseline from the window the gate accepted, the call looped until its window spans many counter
// updates, tail, repetitions). A class's net power is its net energy per call over its time per
// call; its power while it runs, the weight of the calibrated attribution, is baseline + net.
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/record_function.h>
#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "jouleprof/device_names.hpp"
#include "jouleprof/statistics.hpp"
#include "jouleprof/torch.hpp"
#include "torch/replay_args.hpp"
#include "torch/torch_device.hpp"

namespace jouleprof::torch_adapter {
namespace {

c10::IValue make_tensor(const TensorSpec& spec) {
  if (!spec.defined) return c10::IValue(at::Tensor());
  const auto options = torch::TensorOptions().dtype(spec.dtype).device(spec.device);
  if (c10::isFloatingType(spec.dtype) || c10::isComplexType(spec.dtype)) {
    return torch::randn(spec.sizes, options);
  }
  if (spec.dtype == c10::ScalarType::Bool) return torch::zeros(spec.sizes, options);
  // Integer tensors are indices or targets in practice: 0 and 1 are valid for any dimension ≥ 2.
  return torch::randint(0, 2, spec.sizes, options);
}

std::vector<c10::IValue> make_stack(const ReplayArgs& args) {
  std::vector<c10::IValue> stack;
  stack.reserve(args.args.size());
  for (const ArgSpec& arg : args.args) {
    if (const auto* tensor = std::get_if<TensorSpec>(&arg)) {
      stack.push_back(make_tensor(*tensor));
    } else if (const auto* list = std::get_if<TensorListSpec>(&arg)) {
      std::vector<at::Tensor> tensors;
      for (const TensorSpec& spec : *list) tensors.push_back(make_tensor(spec).toTensor());
      stack.emplace_back(tensors);
    } else {
      stack.push_back(std::get<c10::IValue>(arg));
    }
  }
  return stack;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string percent(double share) { return fmt::format("{:.1f} % of op time", 100.0 * share); }

// The channels the calibration adds up: top-level energy channels of the device, all from the
// first source that has any (two sources of one device measure the same energy twice).
std::vector<Channel> device_channels(const std::vector<Channel>& all, DeviceKind device) {
  std::vector<Channel> chosen;
  for (const Channel& c : all) {
    if (!c.is_top_level() || !c.carries_energy() || !device_selects(to_string(device), c.device))
      continue;
    if (!chosen.empty() && chosen.front().source != c.source) continue;
    chosen.push_back(c);
  }
  return chosen;
}

std::string describe_protocol(const GatedOptions& g) {
  return fmt::format(
      "gated protocol (FECoM), preset {}: intervals of {} ms; gate: CV of the last {} intervals ≤ "
      "{} (CPU) / "
      "{} "
      "(DRAM) / {} (GPU) × (1 + {}), checked every {:.3g} s, given up after {:.3g} s; the replay "
      "loops "
      "until its window spans {} counter updates; tail watched {:.3g} s; {} repetitions per class; "
      "net power = net energy per call ÷ time per call; power = baseline + net power",
      g.preset, g.interval_ns / kNsPerMs, g.last_n, g.cpu_max_cv, g.dram_max_cv, g.gpu_max_cv,
      g.tolerance, ns_to_s(g.check_period_ns), ns_to_s(g.gate_timeout_ns), g.min_counter_updates,
      ns_to_s(g.tail_wait_ns), g.repetitions);
}

// The class's figures from the gated result: per repetition, the chosen channels added up.
std::optional<CalibrationClass> class_figures(const GatedResult& result,
                                              const std::vector<Channel>& channels) {
  CalibrationClass c;
  ClassMeasurement& m = c.measurement.emplace();
  std::vector<double> net_power, power, baseline, tail, call_s;
  for (const GatedRepetition& rep : result.repetitions) {
    if (rep.calls == 0 || rep.window_ns <= 0) continue;
    const double seconds_per_call = ns_to_s(rep.window_ns) / static_cast<double>(rep.calls);
    double net_j = 0.0, total_j = 0.0, tail_j = 0.0, baseline_w = 0.0;
    for (const ChannelCall& ch : rep.channels) {
      const bool chosen = std::any_of(channels.begin(), channels.end(),
                                      [&](const Channel& k) { return k.id == ch.channel_id; });
      if (!chosen) continue;
      net_j += ch.net_j;
      total_j += ch.total_j;
      tail_j += ch.tail_j;
      baseline_w += ch.baseline_power_w;
    }
    net_power.push_back(net_j / seconds_per_call);
    power.push_back(total_j / seconds_per_call);
    baseline.push_back(baseline_w);
    tail.push_back(tail_j);
    call_s.push_back(seconds_per_call);
  }
  if (net_power.empty()) return std::nullopt;
  m.net_power_w = summarize(net_power);
  c.power_w = summarize(power).mean;
  m.baseline_w = summarize(baseline).mean;
  m.tail_j_per_call = summarize(tail).mean;
  m.call_s = summarize(call_s).mean;
  m.calls_per_window = result.repetitions.front().calls;
  return c;
}

}  // namespace

GatedOptions calibration_gate_defaults() { return gated_preset(GatedPreset::kQuick); }

std::size_t calibration_class_count(const std::vector<CapturedOp>& ops,
                                    const CalibrationOptions& options) {
  std::set<std::string> replayable;
  for (const CapturedOp& op : ops) {
    if (op.args) replayable.insert(op.op_name);
  }
  return std::min(replayable.size(), options.max_classes);
}

Result<Calibration> calibrate(const std::vector<CapturedOp>& ops, const OpTimes& times,
                              const MonitorFactory& open_monitor, const CalibrationOptions& options,
                              ProgressReporter* progress_or_null) {
  ProgressOrSilent progress(progress_or_null);
  if (!(options.time_coverage > 0.0 && options.time_coverage <= 1.0)) {
    return invalid_input("calibration", "time coverage", std::to_string(options.time_coverage),
                         "must be in (0, 1]");
  }
  Calibration calibration;
  calibration.device = to_string(options.device);
  calibration.method = describe_protocol(options.gate);
  {
    JP_TRY(auto probe, open_monitor());
    const std::vector<Channel> channels = device_channels(probe->channels(), options.device);
    if (channels.empty()) {
      return Error(ErrorCode::kUnavailable,
                   "calibration: no source has a top-level energy or power channel for " +
                       std::string(channel_device_prefix(options.device)));
    }
    for (const Channel& c : channels) {
      calibration.channel_ids.push_back(c.id);
      const std::string provenance(to_string(c.provenance));
      if (calibration.channel_ids.size() == 1) {
        calibration.provenance = provenance;
      } else if (calibration.provenance != provenance) {
        calibration.provenance = "mixed";
      }
    }
  }
  const auto share_of = [&](TimeNs t) {
    return times.total_ns > 0 ? static_cast<double>(t) / static_cast<double>(times.total_ns) : 0.0;
  };
  const auto class_time = [&](const std::string& name) {
    const auto it = times.by_class.find(name);
    return it == times.by_class.end() ? TimeNs{0} : it->second;
  };
  const auto signature_time = [&](const CapturedOp& op) {
    const auto it = times.by_signature.find({op.op_name, op.signature});
    return it == times.by_signature.end() ? TimeNs{0} : it->second;
  };

  // One representative call per class: the replayable signature with the most self time.
  std::map<std::string, const CapturedOp*> representative;
  std::map<std::string, std::string> why_not;
  for (const CapturedOp& op : ops) {
    if (!op.args) {
      why_not.try_emplace(op.op_name, op.not_replayable_reason);
      continue;
    }
    auto& best = representative[op.op_name];
    if (!best ||
        std::pair(signature_time(op), op.calls) > std::pair(signature_time(*best), best->calls))
      best = &op;
  }
  for (const auto& [name, reason] : why_not) {
    if (!representative.count(name)) {
      calibration.skipped.push_back(
          fmt::format("{} ({}): {}", name, percent(share_of(class_time(name))), reason));
    }
  }
  std::vector<std::pair<std::string, const CapturedOp*>> order(representative.begin(),
                                                               representative.end());
  std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    return class_time(a.first) > class_time(b.first);
  });

  std::vector<Channel> channels;
  std::vector<double> baselines;
  torch::NoGradGuard no_grad;
  at::DisableRecordFunctionGuard not_observed;  // replays must not show up in a recording
  for (const auto& [name, op] : order) {
    const std::string share = percent(share_of(class_time(name)));
    if (calibration.classes.size() >= options.max_classes) {
      calibration.skipped.push_back(
          fmt::format("{} ({}): beyond the first {} classes", name, share, options.max_classes));
      continue;
    }
    if (calibration.time_coverage.value_or(0.0) >= options.time_coverage) {
      calibration.skipped.push_back(
          fmt::format("{} ({}): the classes before it cover {:.1f} % of op time", name, share,
                      100.0 * *calibration.time_coverage));
      continue;
    }
    if (progress->stop_requested()) {
      calibration.skipped.push_back(
          fmt::format("{} ({}): stopped before it was measured", name, share));
      continue;
    }
    const auto handle = c10::Dispatcher::singleton().findSchema(op->args->op);
    if (!handle) {
      calibration.skipped.push_back(fmt::format(
          "{} ({}): overload \"{}\" not found in the dispatcher", name, share, op->overload));
      continue;
    }
    std::vector<c10::IValue> prototype;
    try {
      prototype = make_stack(*op->args);
    } catch (const std::exception& e) {
      calibration.skipped.push_back(
          fmt::format("{} ({}): arguments not rebuilt: {}", name, share, first_line(e.what())));
      continue;
    }
    const MeasuredCall replay = [&]() -> Status {
      try {
        std::vector<c10::IValue> stack = prototype;
        handle->callBoxed(stack);
        synchronize(options.device);
      } catch (const std::exception& e) {
        return Error(ErrorCode::kUnsupported, first_line(e.what()));
      }
      return Status::Ok();
    };
    JP_TRY(auto monitor, open_monitor());
    if (channels.empty()) channels = device_channels(monitor->channels(), options.device);
    progress->item(calibration.classes.size() + 1, name);
    const Result<GatedResult> measured = measure_gated(*monitor, replay, options.gate, &*progress);
    if (progress->stop_requested()) {
      calibration.skipped.push_back(
          fmt::format("{} ({}): stopped before its measurement ended", name, share));
      continue;
    }
    if (!measured.ok()) {
      calibration.skipped.push_back(
          fmt::format("{} ({}): replay failed: {}", name, share, measured.error().message()));
      continue;
    }
    std::optional<CalibrationClass> figures = class_figures(*measured, channels);
    if (!figures) {
      calibration.skipped.push_back(
          fmt::format("{} ({}): not measured: {}", name, share, measured->missing));
      continue;
    }
    if (!(figures->power_w > 0.0)) {
      calibration.skipped.push_back(fmt::format("{} ({}): measured power {:.3g} W is not positive",
                                                name, share, figures->power_w));
      continue;
    }
    CalibrationClass& c = *figures;
    ClassMeasurement& m = *c.measurement;
    c.match = name;
    c.provenance = fmt::format("{}: replayed alone through the gated protocol, {} repetitions",
                               calibration.provenance, m.net_power_w.n);
    m.signature = op->signature;
    m.self_time_share = share_of(class_time(name));
    for (const GatedRepetition& rep : measured->repetitions) {
      CalibrationGate gate{ns_to_s(rep.gate.waited_ns), rep.gate.checks, 0.0};
      for (const ChannelGate& g : rep.gate.channels) {
        const bool chosen = std::any_of(channels.begin(), channels.end(),
                                        [&](const Channel& k) { return k.id == g.channel_id; });
        if (chosen && !g.temperature) gate.max_cv = std::max(gate.max_cv, g.value);
      }
      m.gates.push_back(gate);
    }
    if (measured->incomplete) m.incomplete = measured->missing;  // says how long the gate waited
    baselines.push_back(m.baseline_w);
    calibration.time_coverage = calibration.time_coverage.value_or(0.0) + m.self_time_share;
    calibration.classes.push_back(std::move(c));
  }
  if (!baselines.empty()) calibration.idle_power_w = summarize(baselines).mean;
  return calibration;
}

}  // namespace jouleprof::torch_adapter
