#include "predict/kernel_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "jouleprof/statistics.hpp"

namespace jouleprof::predict {

std::string_view to_string(KernelEnergyFigure f) {
  return f == KernelEnergyFigure::kTotal ? "total" : "net";
}

std::optional<KernelEnergyFigure> kernel_energy_figure_from_string(std::string_view s) {
  if (s == "total") return KernelEnergyFigure::kTotal;
  if (s == "net") return KernelEnergyFigure::kNet;
  return std::nullopt;
}

GatedOptions kernel_gated_defaults() { return gated_preset(GatedPreset::kKernel); }

Result<KernelEnergy> kernel_energy(const GatedResult& result, KernelEnergyFigure figure) {
  if (result.repetitions.empty()) {
    return Error(
        ErrorCode::kUnavailable,
        "no repetition was measured" + (result.missing.empty() ? "" : ": " + result.missing));
  }
  KernelEnergy e;
  std::vector<double> energy_mj(result.repetitions.size(), 0.0);
  std::vector<double> call_ms;
  std::vector<std::size_t> summed;
  const GatedFigure gated =
      figure == KernelEnergyFigure::kTotal ? GatedFigure::kTotal : GatedFigure::kNet;
  std::optional<Provenance> provenance;
  std::set<std::string> sources;
  const std::vector<ChannelCall>& first = result.repetitions.front().channels;
  for (std::size_t c = 0; c < first.size(); ++c) {
    const Series* series = result.profile.find_series(first[c].channel_id);
    if (series == nullptr || !series->channel().is_top_level() ||
        !series->channel().carries_energy())
      continue;
    e.channels.push_back(first[c].channel_id);
    summed.push_back(c);
    sources.insert(series->channel().source);
    // The provenance a sum of channels carries is its least direct part's.
    provenance = provenance ? less_direct(*provenance, first[c].provenance) : first[c].provenance;
    for (std::size_t r = 0; r < result.repetitions.size(); ++r) {
      const ChannelCall& call = result.repetitions[r].channels.at(c);
      energy_mj[r] += 1e3 * figure_of(call, gated);
    }
  }
  if (e.channels.empty())
    return Error(ErrorCode::kUnavailable, "no top-level energy channel was measured");
  for (const GatedRepetition& rep : result.repetitions) {
    call_ms.push_back(rep.calls > 0 ? ns_to_s(rep.window_ns) * 1e3 / static_cast<double>(rep.calls)
                                    : 0.0);
  }
  const RepetitionStats energy = summarize(energy_mj);
  const RepetitionStats time = summarize(call_ms);
  e.energy_mj = energy.mean;
  e.energy_stdev_mj = energy.stdev;
  e.energy_band = summed_band(result, summed, gated);
  e.call_ms = time.mean;
  e.call_stdev_ms = time.stdev;
  e.repetitions = result.repetitions.size();
  e.calls_per_window = result.repetitions.front().calls;
  e.provenance = fmt::format("{}:{}", to_string(*provenance), fmt::join(sources, "+"));
  e.incomplete = result.incomplete;
  e.missing = result.missing;
  return e;
}

Result<KernelEnergy> measure_kernel_call(const MeasuredCall& call,
                                         const KernelBenchOptions& options,
                                         ProgressReporter* progress) {
  JP_TRY(std::unique_ptr<Monitor> monitor, Monitor::open(options.monitor));
  JP_TRY(GatedResult result, measure_gated(*monitor, call, options.gated, progress));
  if (progress != nullptr && progress->stop_requested()) {
    return Error(ErrorCode::kInterrupted, "stopped before its measurement ended");
  }
  return kernel_energy(result, options.figure);
}

void measure_kernels(const std::vector<KernelConfig>& kernels, const KernelCallFactory& make_call,
                     const KernelBenchOptions& options,
                     const std::function<void(std::size_t, const KernelOutcome&)>& on_outcome,
                     ProgressReporter* progress) {
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    KernelOutcome outcome;
    outcome.config = kernels[i];
    if (progress != nullptr && progress->stop_requested()) {
      outcome.failure = "stopped before it was measured";
      on_outcome(i, outcome);
      continue;
    }
    if (progress != nullptr) progress->item(i + 1, kernels[i].name);
    Result<MeasuredCall> call = make_call(kernels[i]);
    if (!call) {
      outcome.failure = "cannot build: " + call.error().message();
    } else if (Result<KernelEnergy> energy = measure_kernel_call(*call, options, progress);
               !energy) {
      outcome.failure = energy.error().message();
    } else if (!(energy->energy_mj > 0.0)) {
      outcome.failure =
          fmt::format("{} energy {:.6g} mJ per call is not positive (lost in the baseline's noise)",
                      to_string(options.figure), energy->energy_mj);
    } else {
      outcome.energy = std::move(energy).value();
    }
    on_outcome(i, outcome);
  }
}

KernelSample kernel_sample(const KernelConfig& config, const KernelEnergy& energy) {
  KernelSample s;
  s.config = config;
  s.energy_mj = energy.energy_mj;
  s.provenance = energy.provenance;
  return s;
}

}  // namespace jouleprof::predict
