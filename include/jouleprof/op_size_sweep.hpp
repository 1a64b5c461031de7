// FECoM's RQ2 for libtorch APIs as one library call (`jouleprof measure --op`): one gated
// measurement per input size, then how the call's net energy follows its input size and its run
// time (Pearson r). Part of the libtorch adapter; this header does not include torch.
//
//   OpSizeSweepOptions options;
//   options.op = "matmul";
//   options.sizes = {256, 512, 1024};
//   options.gated = gated_preset(GatedPreset::kQuick);
//   JP_TRY(OpSizeSweep sweep, sweep_op_sizes(options));
//   // sweep.points[k].channels: net J per call ± stdev per channel; sweep.net_energy_vs_input_r
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "jouleprof/device_kind.hpp"
#include "jouleprof/gated_measurement.hpp"
#include "jouleprof/monitor.hpp"
#include "jouleprof/progress.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof::torch_adapter {

struct OpSizeSweepOptions {
  std::string op;  // one of measurable_ops()
  std::vector<std::int64_t> sizes;
  DeviceKind device = DeviceKind::kCpu;
  MonitorOptions monitor;  // opened afresh for each size
  GatedOptions gated;
};

struct OpSizeChannel {
  GatedChannelSummary summary;  // per call, over the repetitions
  Provenance provenance = Provenance::kMeasured;
  bool top_level = false;  // added into the size's net energy
};

struct OpSizePoint {
  std::int64_t size = 0;
  double input_elements = 0.0;
  double call_s = 0.0;  // one call, the mean over the repetitions
  std::uint64_t calls_per_window = 0;
  std::vector<OpSizeChannel> channels;
  double top_level_net_j = 0.0;  // net energy per call of the top-level channels
};

struct OpSizeSweep {
  std::vector<OpSizePoint> points;              // the sizes measured, in order
  std::vector<std::string> missing;             // "size N: why" for each size not (wholly) measured
  std::optional<double> net_energy_vs_input_r;  // nullopt: fewer than two sizes, or no spread
  std::optional<double> net_energy_vs_call_time_r;
};

// `progress` gets one item per size (the caller begins and ends the task) and its stop request
// ends the sweep at the next size, the sizes left listed as missing. `on_point` sees each size as
// soon as it is measured. Errors: an op or size make_op_call refuses, sources that cannot open.
Result<OpSizeSweep> sweep_op_sizes(const OpSizeSweepOptions& options,
                                   ProgressReporter* progress = nullptr,
                                   const std::function<void(const OpSizePoint&)>& on_point = {});

}  // namespace jouleprof::torch_adapter
