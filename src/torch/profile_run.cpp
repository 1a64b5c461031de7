// profile_workload: the Monitor samples the sources while the observer records the steps; the
// attributor then charges the measured energy to the recorded ops and layers.
#include <algorithm>
#include <thread>
#include <utility>
#include <vector>

#include "jouleprof/cluster.hpp"
#include "jouleprof/device_names.hpp"
#include "jouleprof/recorder.hpp"
#include "jouleprof/torch_profile.hpp"

namespace jouleprof::torch_adapter {
namespace {

void add_block_energy(const ProfileNode& root, LayerBlockShares& shares) {
  std::vector<std::pair<const ProfileNode*, bool>> pending{{&root, false}};  // node, parent a layer
  while (!pending.empty()) {
    const auto [node, parent_is_layer] = pending.back();
    pending.pop_back();
    if (parent_is_layer) {
      if (node->name == "attention") shares.attention += node->energy_j;
      if (node->name == "intermediate") shares.intermediate += node->energy_j;
      if (node->name == "output") shares.output += node->energy_j;
    }
    const bool is_layer = node->name.rfind("layer_", 0) == 0;
    if (is_layer) shares.layer_energy_j += node->energy_j;
    for (const ProfileNode& child : node->children) pending.emplace_back(&child, is_layer);
  }
}

}  // namespace

LayerBlockShares transformer_block_shares(const ProfileNode& tree) {
  LayerBlockShares shares;
  add_block_energy(tree, shares);
  if (shares.layer_energy_j > 0.0) {
    shares.attention /= shares.layer_energy_j;
    shares.intermediate /= shares.layer_energy_j;
    shares.output /= shares.layer_energy_j;
  }
  return shares;
}

Result<TorchProfile> profile_workload(Workload& workload, const TorchProfileOptions& options) {
  if (options.steps < 1)
    return invalid_input("torch profile", "TorchProfileOptions::steps",
                         std::to_string(options.steps), "must be at least 1");
  if (options.warmup < 0)
    return invalid_input("torch profile", "TorchProfileOptions::warmup",
                         std::to_string(options.warmup), "must not be negative");
  JP_TRY(auto monitor, Monitor::open(options.monitor));
  JP_RETURN_IF_ERROR(monitor->start());
  if (options.idle_ns > 0) {
    const TimeNs idle_begin = monotonic_now_ns();
    std::this_thread::sleep_for(std::chrono::nanoseconds(options.idle_ns));
    monitor->set_idle_window(idle_begin, monotonic_now_ns());
  }
  for (int i = 0; i < options.warmup; ++i) workload.step();

  ObserverOptions observer_options;
  observer_options.record_shapes = options.record_shapes;
  // On a GPU, ops are also timed on the device so that GPU energy goes to when kernels ran.
  observer_options.device_timing =
      workload.device() == DeviceKind::kCuda && device_timing_available();
  Observer observer(observer_options);
  observer.clear_captured();
  Recorder::global().start();
  if (Status started = observer.start(); !started.ok()) {
    Recorder::global().stop();
    monitor->stop();
    return started.error();
  }
  const TimeNs begin_ns = monotonic_now_ns();
  monitor->set_run_begin(begin_ns);
  for (int i = 0; i < options.steps; ++i) {
    workload.step();
    observer.flush_device_spans();  // bounds the pending CUDA events to one step's
  }
  const TimeNs end_ns = monotonic_now_ns();
  observer.stop();
  Recorder::global().stop();

  TorchProfile result;
  result.profile = monitor->stop();
  result.profile.timeline = Recorder::global().collect();
  if (const std::uint64_t dropped = Recorder::global().dropped(); dropped > 0) {
    result.profile.warnings.push_back(std::to_string(dropped) +
                                      " span records dropped: the recorder's buffers were full");
  }
  result.captured = observer.captured_ops();
  if (workload.device() == DeviceKind::kCuda && !observer_options.device_timing) {
    result.profile.warnings.push_back(
        "GPU ops were not timed on the device (this libtorch build has no CUDA event support): GPU "
        "energy "
        "follows CPU launch times");
  }
  result.samples = workload.samples_per_step() * options.steps;
  result.step_time_ns = (end_ns - begin_ns) / options.steps;
  Profile& profile = result.profile;
  profile.meta.kind = "profile";
  record_cluster_identity(profile);
  profile.meta.command = {workload.description()};
  profile.meta.options.torch.steps = options.steps;
  profile.meta.options.torch.warmup = options.warmup;
  profile.meta.options.torch.samples_per_step = workload.samples_per_step();
  profile.meta.options.torch.parameters = workload.parameter_count();

  AttributionOptions attribution = options.attribution;
  bool any_measured = false;
  if (options.calibration) {
    for (const Series& series : profile.series) {
      if (device_selects(to_string(workload.device()), series.channel().device)) {
        attribution.calibration_by_channel[series.channel().id] = *options.calibration;
      }
    }
    profile.meta.options.torch.calibration = options.calibration->origin;
  }
  for (const ChannelSummary& c : profile.channels) {
    if (c.provenance == Provenance::kMeasured) any_measured = true;
  }
  result.estimated = !any_measured;
  // The run's window (from the first step to the Monitor's stop): the tree then sums to the
  // channels' measured energy, the moments after the last step in [unattributed]. The measured
  // idle power feeds the static/dynamic split (attribute_profile).
  attribution.window_begin_ns = profile.meta.begin_ns;
  attribution.window_end_ns = profile.meta.end_ns;
  JP_RETURN_IF_ERROR(attribute_profile(profile, attribution));
  return result;
}

}  // namespace jouleprof::torch_adapter
