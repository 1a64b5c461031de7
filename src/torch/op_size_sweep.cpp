#include "jouleprof/op_size_sweep.hpp"

#include <fmt/format.h>

#include "jouleprof/statistics.hpp"
#include "jouleprof/torch_ops.hpp"

namespace jouleprof::torch_adapter {
namespace {

OpSizePoint point_of(const OpCall& call, const GatedResult& r) {
  OpSizePoint point;
  point.size = call.size;
  point.input_elements = call.input_elements;
  for (const GatedRepetition& rep : r.repetitions)
    point.call_s += ns_to_s(rep.window_ns) / static_cast<double>(rep.calls);
  point.call_s /= static_cast<double>(r.repetitions.size());
  point.calls_per_window = r.repetitions.front().calls;
  for (std::size_t c = 0; c < r.summary.size(); ++c) {
    const GatedChannelSummary& s = r.summary[c];
    const Series* series = r.profile.find_series(s.channel_id);
    const bool top_level = series != nullptr && series->channel().is_top_level();
    if (top_level) point.top_level_net_j += s.net_j.mean;
    point.channels.push_back(
        OpSizeChannel{s, r.repetitions.front().channels[c].provenance, top_level});
  }
  return point;
}

}  // namespace

Result<OpSizeSweep> sweep_op_sizes(const OpSizeSweepOptions& options, ProgressReporter* progress,
                                   const std::function<void(const OpSizePoint&)>& on_point) {
  OpSizeSweep sweep;
  const auto stopped = [progress] { return progress != nullptr && progress->stop_requested(); };
  std::vector<double> input;
  std::vector<double> runtime;
  std::vector<double> energy;
  for (std::size_t k = 0; k < options.sizes.size(); ++k) {
    const std::int64_t size = options.sizes[k];
    if (stopped()) {
      sweep.missing.push_back(fmt::format("size {}: stopped before it was measured", size));
      continue;
    }
    if (progress != nullptr) progress->item(k + 1, fmt::format("size {}", size));
    JP_TRY(const OpCall call, make_op_call(options.op, size, options.device));
    JP_TRY(std::unique_ptr<Monitor> monitor, Monitor::open(options.monitor));
    JP_TRY(const GatedResult r, measure_gated(*monitor, call.run, options.gated, progress));
    if (stopped()) {
      sweep.missing.push_back(fmt::format("size {}: stopped before its measurement ended", size));
      continue;
    }
    if (r.summary.empty()) {
      sweep.missing.push_back(fmt::format("size {}: {}", size, r.missing));
      continue;
    }
    sweep.points.push_back(point_of(call, r));
    const OpSizePoint& point = sweep.points.back();
    if (on_point) on_point(point);
    input.push_back(point.input_elements);
    runtime.push_back(point.call_s);
    energy.push_back(point.top_level_net_j);
    if (r.incomplete)
      sweep.missing.push_back(fmt::format("size {} (in part): {}", size, r.missing));
  }
  sweep.net_energy_vs_input_r = pearson_r(input, energy);
  sweep.net_energy_vs_call_time_r = pearson_r(runtime, energy);
  return sweep;
}

}  // namespace jouleprof::torch_adapter
