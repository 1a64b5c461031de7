#include "training/run_projection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "sources/power_log.hpp"
#include "training/baselines.hpp"
#include "training/epoch_energy.hpp"

namespace jouleprof {

Result<RunProjectionReport> project_logged_run(const ProjectRequest& request,
                                               const GpuSpecTable& specs) {
  if (request.epochs < 1) {
    return invalid_input("project", "--epochs", std::to_string(request.epochs),
                         "must be at least 1");
  }
  PowerLogOptions import;
  import.utc_offset_s = request.utc_offset_s;
  JP_TRY(PowerLog trace, read_power_log(request.trace_path, request.trace_format, import));
  const Series* energy = trace.find(ChannelKind::kEnergyCounter);
  if (energy == nullptr) energy = trace.find(ChannelKind::kPower);
  if (energy == nullptr) {
    return invalid_input(request.trace_path, "series", "", "the trace holds no power or energy");
  }
  RunProjectionReport report;
  report.trace_path = request.trace_path;
  report.warnings = trace.warnings;

  const TimeNs begin = energy->begin_ns();
  TimeNs end = energy->end_ns();
  if (request.duration_s) {
    if (!(*request.duration_s > 0.0)) {
      return invalid_input("project", "--duration", fmt::format("{}", *request.duration_s),
                           "must be positive");
    }
    end = begin + s_to_ns(*request.duration_s);
    if (end > energy->end_ns()) {
      report.warnings.push_back(fmt::format(
          "--duration {:.0f} s is longer than the trace ({:.0f} s): the last epochs are only "
          "partly measured",
          *request.duration_s, ns_to_s(energy->end_ns() - begin)));
    }
  }
  if (request.epochs_csv) {
    JP_TRY(report.epochs, read_epochs_csv(*request.epochs_csv, begin));
  } else {
    JP_TRY(report.epochs, equal_split_epochs(begin, end, request.epochs));
  }
  std::vector<const Series*> series = {energy};
  std::optional<Series> ram;
  if (request.memory_log) {
    JP_TRY(Series ram_power,
           read_ram_power_log(*request.memory_log, import, request.ram_watts_per_gb));
    ram = std::move(ram_power);
    series.push_back(&*ram);
  }
  JP_TRY(EpochEnergies energies, epoch_energies(series, report.epochs));
  report.channels = energies.channels;
  for (const std::string& w : energies.warnings) report.warnings.push_back(w);
  report.epoch_energies_j = energies.energy_j;
  const TimeNs window_end = report.epochs.end_ns.back();
  for (const Series* s : series) report.measured_j += s->energy_between_j(begin, window_end);
  const double duration_s = ns_to_s(window_end - begin);

  // STEP projects the whole run (N epochs) from the measured epochs < s + w.
  const int known = static_cast<int>(energies.energy_j.size());
  if (known < request.epochs) {
    report.warnings.push_back(
        fmt::format("{} of {} epochs are in the trace", known, request.epochs));
  }
  JP_TRY(StepProjection step, step_project(energies.energy_j, request.epochs, request.step));
  for (const std::string& w : step.warnings) report.warnings.push_back(w);
  report.estimates.push_back(
      {"STEP", step.total_j, step.band_low_j, step.band_high_j, step.method});
  const double projected_duration_s = duration_s * request.epochs / known;
  JP_TRY(StepProjection by_power,
         step_power_project(energies.energy_j, energies.duration_s, request.epochs,
                            projected_duration_s, request.step));
  report.estimates.push_back(
      {"STEP power", by_power.total_j, by_power.band_low_j, by_power.band_high_j, by_power.method});
  report.estimates.push_back({"first epoch E0 x N",
                              first_epoch_energy_j(energies.energy_j[0], request.epochs),
                              std::nullopt, std::nullopt, "Carbontracker-style E_0 × N"});

  // A log's GPU channel is "gpu<index> <name>" (nvidia-smi's name column): the name is after.
  std::string gpu_name = energy->channel().device;
  if (const std::size_t space = gpu_name.find(' ');
      gpu_name.starts_with("gpu") && space != std::string::npos) {
    gpu_name = gpu_name.substr(space + 1);
  }
  if (request.gpu_name) gpu_name = *request.gpu_name;
  auto spec = specs.find(gpu_name);
  if (!spec) {
    report.warnings.push_back(
        fmt::format("no GPU specifications ({}): ML CO2, Green Algorithms "
                    "and FLOPs-linear left out; pass --gpu NAME",
                    spec.error().message()));
    return report;
  }
  report.estimates.push_back(
      {"ML CO2", ml_co2_energy_j(spec->tdp_w, projected_duration_s), std::nullopt, std::nullopt,
       fmt::format("TDP {:.0f} W ({}) × {:.0f} s", spec->tdp_w, spec->name, projected_duration_s)});
  if (const Series* util = trace.find(ChannelKind::kUtilisation)) {
    double sum = 0.0;
    std::size_t n = 0;
    for (std::size_t i = util->lower_bound(begin);
         i < util->size() && (*util)[i].t_ns <= window_end; ++i, ++n) {
      sum += (*util)[i].value;
    }
    const double mean_util = n > 0 ? sum / static_cast<double>(n) : 0.0;
    double ram_gb = 0.0;
    if (ram) {
      ram_gb = ram->total_energy_j() / std::max(1e-9, ns_to_s(ram->end_ns() - ram->begin_ns())) /
               request.ram_watts_per_gb;
    }
    report.estimates.push_back(
        {"Green Algorithms",
         green_algorithms_energy_j(spec->tdp_w, mean_util, ram_gb, projected_duration_s),
         std::nullopt, std::nullopt,
         fmt::format("(TDP {:.0f} W × mean utilisation {:.3f} + {} W/GB × {:.2f} GB) × {:.0f} s",
                     spec->tdp_w, mean_util, kGreenAlgorithmsWattsPerGb, ram_gb,
                     projected_duration_s)});
  } else {
    report.warnings.push_back("the trace has no GPU utilisation: Green Algorithms left out");
  }
  if (request.forward_gflops && request.samples_per_epoch) {
    const double flops =
        training_flops(*request.forward_gflops, *request.samples_per_epoch, request.epochs);
    const double j_per_flop = joules_per_flop_at_tdp(spec->tdp_w, spec->fp32_tflops);
    report.estimates.push_back({"FLOPs-linear", flops_linear_energy_j(flops, j_per_flop),
                                std::nullopt, std::nullopt,
                                fmt::format("{:.3g} training FLOPs × {:.3g} J/FLOP (TDP / peak "
                                            "{:.1f} TFLOP/s)",
                                            flops, j_per_flop, spec->fp32_tflops)});
  }
  return report;
}

}  // namespace jouleprof
