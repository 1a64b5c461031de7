// Profiling a zoo workload end to end: sources sampled by the Monitor, the step's ops and layers
// recorded by the observer, the measured energy attributed to them.
//
//   jt::WorkloadOptions w;  w.model = "bert-mini";  w.mode = jt::Mode::kTrain;
//   JP_TRY(auto workload, jt::make_workload(w));
//   jt::TorchProfileOptions options;  options.steps = 5;
//   JP_TRY(jt::TorchProfile result, jt::profile_workload(*workload, options));
//   // result.profile.tree: step → [forward]/[backward]/[optimizer] → bert → encoder → layer_3 …
//
// Lifecycle: open the sources → idle baseline (the machine left alone for idle_ns) → warm-up
// steps, not recorded → recorded steps (observer on) → stop → attribute.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "jouleprof/attribution.hpp"
#include "jouleprof/monitor.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/torch.hpp"

namespace jouleprof::torch_adapter {

struct TorchProfileOptions {
  int steps = 5;
  int warmup = 2;              // steps run before recording (allocations, kernel selection)
  TimeNs idle_ns = kNsPerS;    // idle baseline before the warm-up; 0: no static/dynamic split
  bool record_shapes = false;  // capture op argument shapes (for calibration)
  MonitorOptions monitor;
  AttributionOptions attribution;  // idle powers are filled in from the baseline
  // Per-class power weights (a calibration file) for every channel of the workload's device.
  std::optional<jouleprof::Calibration> calibration;
};

struct TorchProfile {
  Profile profile;
  std::vector<CapturedOp> captured;  // with record_shapes
  std::int64_t samples = 0;          // samples processed in the recorded steps
  TimeNs step_time_ns = 0;           // mean wall time of a recorded step
  bool estimated = false;            // no measured counter: the energy is the CPU estimate
};

Result<TorchProfile> profile_workload(Workload& workload, const TorchProfileOptions& options);

// Shares of a transformer layer's energy in its three blocks, summed over every layer_N node of
// the tree (forward and backward): attention, intermediate, output. Zero when the tree has none.
struct LayerBlockShares {
  double attention = 0.0;
  double intermediate = 0.0;
  double output = 0.0;
  double layer_energy_j = 0.0;  // the layers' total energy the shares are of
};
LayerBlockShares transformer_block_shares(const ProfileNode& tree);

}  // namespace jouleprof::torch_adapter
