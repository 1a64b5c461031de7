#include "training/run_projection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "core/figure_bounds.hpp"
#include "core/time_range.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/samples_csv.hpp"
#include "sources/power_log.hpp"
#include "training/baselines.hpp"
#include "training/epoch_energy.hpp"

namespace jouleprof {
namespace {

// A trace as `project` reads it: any power log, or jouleprof's own profile.json or samples.csv —
// whose epoch marks, when a profile holds them, give the epochs.
struct ProjectTrace {
  PowerLog log;
  bool own = false;                // jouleprof's profile or samples: every top-level channel
  std::optional<Profile> profile;  // jouleprof's own: the marks and the run window
};

// What the epochs' energy sums: jouleprof's top-level energy channels, else the log's first
// counter (or power series).
std::vector<const Series*> energy_series(const ProjectTrace& trace) {
  std::vector<const Series*> out;
  if (trace.own) {
    for (const Series& s : trace.log.series) {
      if (s.channel().carries_energy() && s.channel().is_top_level() && !s.empty())
        out.push_back(&s);
    }
    return out;
  }
  const Series* energy = trace.log.find(ChannelKind::kEnergyCounter);
  if (energy == nullptr) energy = trace.log.find(ChannelKind::kPower);
  if (energy != nullptr) out.push_back(energy);
  return out;
}

// jouleprof's samples.csv: its magic line, or (written by hand) comment lines and then its
// header.
bool is_samples_csv(const std::string& path) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.starts_with("# jouleprof samples")) return true;
    if (line.empty() || line.front() == '#') continue;
    return line == "t_ns,channel,kind,value";
  }
  return false;
}

// The profile a samples.csv belongs to: profile.json beside samples.csv, <stem>.json beside
// <stem>.samples.csv (how `jouleprof run --output` names them).
std::optional<std::filesystem::path> profile_beside(const std::filesystem::path& samples) {
  const std::string name = samples.filename().string();
  std::filesystem::path candidate;
  if (name == "samples.csv") {
    candidate = samples.parent_path() / "profile.json";
  } else if (name.ends_with(".samples.csv")) {
    candidate = samples.parent_path() / (name.substr(0, name.size() - 12) + ".json");
  } else {
    return std::nullopt;
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(candidate, ec)) return std::nullopt;
  return candidate;
}

Result<ProjectTrace> read_project_trace(const ProjectRequest& request,
                                        const PowerLogOptions& import) {
  ProjectTrace trace;
  const std::string& path = request.trace_path;
  const bool json = std::filesystem::path(path).extension() == ".json";
  if (request.trace_format == PowerLogFormat::kAuto && (json || is_samples_csv(path))) {
    trace.log.path = path;
    trace.own = true;
    if (json) {
      JP_TRY(Profile profile, read_profile_json(path));
      trace.log.format = "jouleprof profile";
      trace.log.series = std::move(profile.series);
      trace.profile = std::move(profile);
    } else {
      JP_TRY(trace.log.series, read_samples_csv(path, &trace.log.warnings));
      trace.log.format = "jouleprof samples";
      if (const auto beside = profile_beside(path)) {
        JP_TRY(Profile profile, read_profile_json(beside->string()));
        trace.log.warnings.push_back(
            fmt::format("epoch marks from {}, the profile beside the samples", beside->string()));
        trace.profile = std::move(profile);
      }
    }
    return trace;
  }
  JP_TRY(trace.log, read_power_log(path, request.trace_format, import));
  return trace;
}

}  // namespace

Result<RunProjectionReport> project_logged_run(const ProjectRequest& request,
                                               const GpuSpecTable& specs) {
  if (request.epochs < 1) {
    return invalid_input("project", "ProjectRequest::epochs", std::to_string(request.epochs),
                         "must be at least 1");
  }
  PowerLogOptions import;
  import.utc_offset_s = request.utc_offset_s;
  JP_TRY(const ProjectTrace project_trace, read_project_trace(request, import));
  const PowerLog& trace = project_trace.log;
  const std::vector<const Series*> series_with_energy = energy_series(project_trace);
  if (series_with_energy.empty()) {
    return invalid_input(request.trace_path, "series", "",
                         project_trace.own ? "holds no top-level energy or power channel"
                                           : "the trace holds no power or energy");
  }
  const Series* energy = series_with_energy.front();
  if (request.forward_gflops) {
    JP_RETURN_IF_ERROR(check_figure(FigureKind::kFlops, "project", "ProjectRequest::forward_gflops",
                                    *request.forward_gflops));
  }
  RunProjectionReport report;
  report.trace_path = request.trace_path;
  report.warnings = trace.warnings;

  const TimeNs begin = project_trace.profile && project_trace.profile->meta.begin_ns > 0
                           ? std::max(project_trace.profile->meta.begin_ns, energy->begin_ns())
                           : energy->begin_ns();
  TimeNs end = energy->end_ns();
  if (request.duration_s) {
    const std::optional<TimeNs> duration_ns = checked_s_to_ns(*request.duration_s);
    if (!(*request.duration_s > 0.0) || !duration_ns) {
      return invalid_input("project", "ProjectRequest::duration_s",
                           fmt::format("{}", *request.duration_s),
                           fmt::format("must be positive and at most {} s", kMaxTimeS));
    }
    end = begin + *duration_ns;
    if (end > energy->end_ns()) {
      report.warnings.push_back(
          fmt::format("the duration asked for ({:.0f} s) is longer than the trace ({:.0f} s): the "
                      "last epochs are "
                      "only "
                      "partly measured",
                      *request.duration_s, ns_to_s(energy->end_ns() - begin)));
    }
  }
  Result<EpochLog> marked = project_trace.profile
                                ? epochs_from_marks(project_trace.profile->timeline, begin)
                                : Result<EpochLog>(invalid_input("project", "marks", "", "none"));
  if (request.epochs_csv) {
    JP_TRY(report.epochs, read_epochs_csv(*request.epochs_csv, begin));
  } else if (marked) {
    report.epochs = std::move(marked).value();
    if (report.epochs.first_start == EpochStart::kRunStart) {
      report.warnings.push_back(
          "epoch 1 is counted from the start of the run (the job called no epoch_begin before "
          "its first epoch_end), so its start-up is part of it");
    }
  } else {
    JP_TRY(report.epochs, equal_split_epochs(begin, end, request.epochs));
  }
  // More epochs logged than the run has is a contradiction, not a longer run: say which to fix.
  if (report.epochs.size() > static_cast<std::size_t>(request.epochs)) {
    return invalid_input(
        request.epochs_csv ? *request.epochs_csv : request.trace_path, "epochs",
        fmt::format("{} epochs", report.epochs.size()),
        fmt::format("more than the {} epochs the whole run has (ProjectRequest::epochs): give "
                    "the run's total, or a log of its epochs so far",
                    request.epochs));
  }
  std::vector<const Series*> series = series_with_energy;
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
  const TimeNs window_begin = report.epochs.begin_ns;
  for (const Series* s : series) report.measured_j += s->energy_between_j(window_begin, window_end);
  const double duration_s = ns_to_s(window_end - window_begin);

  // STEP projects the whole run (N epochs) from the measured epochs < s + w.
  const int known = static_cast<int>(energies.energy_j.size());
  if (known < request.epochs) {
    report.warnings.push_back(
        fmt::format("{} of {} epochs are in the trace", known, request.epochs));
  }
  JP_TRY(StepProjection step, step_project(energies.energy_j, request.epochs, request.step));
  for (const std::string& w : step.warnings) report.warnings.push_back(w);
  // What was filled into the trace's gaps is not measured: it could have been anything from none
  // to twice as much, so the bands widen by it, scaled as the projection scales the epochs.
  const double filled_j = std::accumulate(energies.filled_j.begin(), energies.filled_j.end(), 0.0) *
                          std::max(1.0, static_cast<double>(request.epochs) / known);
  const auto widen = [filled_j](StepProjection& p) {
    p.band_low_j = std::max(0.0, p.band_low_j - filled_j);
    p.band_high_j += filled_j;
  };
  widen(step);
  report.estimates.push_back(
      {"STEP", step.total_j, step.band_low_j, step.band_high_j, step.method});
  const double projected_duration_s = duration_s * request.epochs / known;
  JP_TRY(StepProjection by_power,
         step_power_project(energies.energy_j, energies.duration_s, request.epochs,
                            projected_duration_s, request.step));
  widen(by_power);
  report.estimates.push_back(
      {"STEP power", by_power.total_j, by_power.band_low_j, by_power.band_high_j, by_power.method});
  report.estimates.push_back({"first epoch E1 x N",
                              first_epoch_energy_j(energies.energy_j[0], request.epochs),
                              std::nullopt, std::nullopt, "Carbontracker-style E_1 × N"});

  // A GPU channel's label is its product name (nvidia-smi's name column, NVML's device name).
  std::string gpu_name = energy->channel().label;
  if (request.gpu_name) gpu_name = *request.gpu_name;
  auto spec = specs.find(gpu_name);
  if (!spec) {
    report.warnings.push_back(
        fmt::format("no GPU specifications ({}): ML CO2, Green Algorithms "
                    "and FLOPs-linear left out; name the GPU (ProjectRequest::gpu_name)",
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
  // Nothing impossible leaves: FLOPs × samples × epochs, or a STEP fit on a wild trace, can pass
  // any energy a run could use.
  for (MethodEstimate& e : report.estimates) {
    if (auto warning = withhold_implausible(FigureKind::kEnergy,
                                            fmt::format("the {} estimate", e.method), e.energy_j)) {
      report.warnings.push_back(std::move(*warning));
      e.band_low_j.reset();
      e.band_high_j.reset();
    }
  }
  return report;
}

}  // namespace jouleprof
