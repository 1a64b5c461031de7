// Calibration: each operator class of a profiled step replayed alone, with the argument shapes
// the model really used, in a loop long enough to span many counter updates; its power is the
// measured energy of the loop over its duration, less the idle power measured beforehand.
//
// This is the plain timed loop with idle subtraction. FECoM's gated protocol (stability gate,
// baseline window, tail energy) will replace the loop once the protocol component exists.
#include <algorithm>
#include <map>
#include <thread>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/record_function.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include "jouleprof/source.hpp"
#include "jouleprof/torch.hpp"
#include "torch/replay_args.hpp"

namespace jouleprof::torch_adapter {
namespace {

// Reads the chosen channels of a source over one window and integrates their energy.
class WindowMeter {
 public:
  WindowMeter(Source& source, std::vector<std::size_t> channels)
      : source_(source), channels_(std::move(channels)), scratch_(source.channels().size()) {}

  void begin() {
    samples_.clear();
    read();
  }
  void read() {
    source_.read(scratch_);
    samples_.push_back(scratch_);
  }

  // Joules over the window (counters: last − first good reading; power: trapezoid), and the
  // window's duration from the first to the last read.
  std::pair<double, TimeNs> energy_and_duration() const {
    double energy_j = 0.0;
    TimeNs first_ns = 0;
    TimeNs last_ns = 0;
    for (std::size_t c : channels_) {
      const Channel& channel = source_.channels()[c];
      const Reading* previous = nullptr;
      const Reading* first = nullptr;
      for (const auto& sample : samples_) {
        const Reading& r = sample[c];
        if (!r.ok) continue;
        if (!first) first = &r;
        if (channel.kind == ChannelKind::kPower && previous) {
          energy_j += 0.5 * (previous->value + r.value) * ns_to_s(r.t_ns - previous->t_ns);
        }
        previous = &r;
      }
      if (!first || !previous) continue;
      if (channel.kind == ChannelKind::kEnergyCounter) energy_j += previous->value - first->value;
      if (first_ns == 0 || first->t_ns < first_ns) first_ns = first->t_ns;
      last_ns = std::max(last_ns, previous->t_ns);
    }
    return {energy_j, last_ns - first_ns};
  }

 private:
  Source& source_;
  std::vector<std::size_t> channels_;
  std::vector<Reading> scratch_;
  std::vector<std::vector<Reading>> samples_;
};

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

void synchronize_if_cuda(const std::string& device) {
  if (device == "cuda") torch::cuda::synchronize();
}

}  // namespace

const ClassCalibration* Calibration::find(std::string_view op_class) const {
  for (const auto& c : classes) {
    if (c.op_class == op_class) return &c;
  }
  return nullptr;
}

Result<Calibration> calibrate(const std::vector<CapturedOp>& ops, Source& source,
                              const CalibrationOptions& options) {
  const std::string prefix = options.device == "cuda" ? "gpu" : "cpu";
  std::vector<std::size_t> channels;
  Calibration calibration;
  calibration.device = options.device;
  calibration.method = "plain timed loop with idle subtraction (each class replayed alone for at least " +
                       std::to_string(options.min_replay_ns / kNsPerMs) + " ms; idle measured over " +
                       std::to_string(options.idle_ns / kNsPerMs) + " ms)";
  for (std::size_t i = 0; i < source.channels().size(); ++i) {
    const Channel& c = source.channels()[i];
    if (c.is_top_level() && c.carries_energy() && c.device.rfind(prefix, 0) == 0) {
      channels.push_back(i);
      calibration.channel_ids.push_back(c.id);
      const std::string provenance(to_string(c.provenance));
      if (calibration.channel_ids.size() == 1) {
        calibration.provenance = provenance;
      } else if (calibration.provenance != provenance) {
        calibration.provenance = "mixed";
      }
    }
  }
  if (channels.empty()) {
    return Error(ErrorCode::kUnavailable, "calibration: source " + std::string(source.name()) +
                                              " has no top-level energy or power channel for " + prefix);
  }
  WindowMeter meter(source, channels);

  // Idle baseline: the machine left alone, read at the same period as the replays.
  synchronize_if_cuda(options.device);
  meter.begin();
  const TimeNs idle_begin = monotonic_now_ns();
  while (monotonic_now_ns() - idle_begin < options.idle_ns) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(options.read_period_ns));
    meter.read();
  }
  {
    const auto [energy_j, duration_ns] = meter.energy_and_duration();
    if (duration_ns <= 0) return Error(ErrorCode::kUnavailable, "calibration: the source gave no usable readings");
    calibration.idle_power_w = energy_j / ns_to_s(duration_ns);
  }

  // One representative call per class: its most frequent replayable signature.
  std::map<std::string, const CapturedOp*> representative;
  std::map<std::string, std::uint64_t> class_calls;
  std::map<std::string, std::string> why_not;
  for (const CapturedOp& op : ops) {
    class_calls[op.op_name] += op.calls;
    if (!op.args) {
      why_not.try_emplace(op.op_name, op.not_replayable_reason);
      continue;
    }
    auto& best = representative[op.op_name];
    if (!best || op.calls > best->calls) best = &op;
  }
  for (const auto& [name, reason] : why_not) {
    if (!representative.count(name)) calibration.skipped.push_back(name + ": " + reason);
  }
  std::vector<std::pair<std::string, const CapturedOp*>> order(representative.begin(), representative.end());
  std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    return class_calls[a.first] > class_calls[b.first];
  });

  torch::NoGradGuard no_grad;
  at::DisableRecordFunctionGuard not_observed;  // replays must not show up in a recording
  for (std::size_t k = 0; k < order.size(); ++k) {
    const auto& [name, op] = order[k];
    if (k >= options.max_classes) {
      calibration.skipped.push_back(name + ": beyond --max-classes " + std::to_string(options.max_classes));
      continue;
    }
    const auto handle = c10::Dispatcher::singleton().findSchema(op->args->op);
    if (!handle) {
      calibration.skipped.push_back(name + ": overload \"" + op->overload + "\" not found in the dispatcher");
      continue;
    }
    try {
      const std::vector<c10::IValue> prototype = make_stack(*op->args);
      std::vector<c10::IValue> stack = prototype;
      handle->callBoxed(stack);  // warm-up: allocations, kernel selection
      synchronize_if_cuda(options.device);
      meter.begin();
      const TimeNs begin_ns = monotonic_now_ns();
      TimeNs next_read_ns = begin_ns + options.read_period_ns;
      std::uint64_t iterations = 0;
      TimeNs now_ns = begin_ns;
      while (now_ns - begin_ns < options.min_replay_ns) {
        stack = prototype;
        handle->callBoxed(stack);
        ++iterations;
        now_ns = monotonic_now_ns();
        if (now_ns >= next_read_ns) {
          synchronize_if_cuda(options.device);
          meter.read();
          next_read_ns = now_ns + options.read_period_ns;
        }
      }
      synchronize_if_cuda(options.device);
      meter.read();
      const auto [energy_j, duration_ns] = meter.energy_and_duration();
      ClassCalibration c;
      c.op_class = name;
      c.duration_s = ns_to_s(duration_ns);
      c.iterations = iterations;
      c.power_w = duration_ns > 0 ? energy_j / c.duration_s : 0.0;
      c.dynamic_power_w = c.power_w - calibration.idle_power_w;
      c.signature = op->signature;
      calibration.classes.push_back(std::move(c));
    } catch (const std::exception& e) {
      std::string message = e.what();
      message = message.substr(0, message.find('\n'));
      calibration.skipped.push_back(name + ": replay failed: " + message);
    }
  }
  return calibration;
}

}  // namespace jouleprof::torch_adapter
