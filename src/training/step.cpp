#include "jouleprof/step.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace jouleprof {
namespace {

// Two-sided 95 % Student-t quantiles t_{0.975, df} for df = 1…30; 1.96 beyond.
double student_t95(int df) {
  static constexpr std::array<double, 30> kT = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return 0.0;
  return df <= 30 ? kT[static_cast<std::size_t>(df - 1)] : 1.96;
}

struct Window {
  double mean = 0.0;
  double stdev = 0.0;  // sample stdev; 0 for one epoch
};

Window window_stats(std::span<const double> values) {
  Window w;
  const double n = static_cast<double>(values.size());
  w.mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  if (values.size() > 1) {
    double ss = 0.0;
    for (double v : values) ss += (v - w.mean) * (v - w.mean);
    w.stdev = std::sqrt(ss / (n - 1.0));
  }
  return w;
}

Status validate(std::span<const double> energies, int total_epochs, const StepOptions& options) {
  if (total_epochs < 1) {
    return invalid_input("STEP", "epochs", std::to_string(total_epochs), "must be at least 1");
  }
  if (options.stable_epoch < 0) {
    return invalid_input("STEP", "s", std::to_string(options.stable_epoch), "must be ≥ 0");
  }
  if (options.window < 1) {
    return invalid_input("STEP", "w", std::to_string(options.window), "must be ≥ 1");
  }
  if (energies.empty()) {
    return invalid_input("STEP", "epoch energies", "none", "at least one epoch must be measured");
  }
  for (std::size_t e = 0; e < energies.size(); ++e) {
    if (!std::isfinite(energies[e]) || energies[e] < 0.0) {
      return invalid_input("STEP", fmt::format("epoch {} energy", e + 1),
                           fmt::format("{}", energies[e]),
                           "must be a finite, non-negative number of joules");
    }
  }
  return Status::Ok();
}

// Chooses s and w for k known epochs of N, applying the fallbacks of step_project.
struct Plan {
  int s = 0;
  int w = 0;
  bool whole_run_known = false;
  bool first_epoch_only = false;
};

Plan plan(std::span<const double> energies, int total_epochs, const StepOptions& options,
          StepProjection& out) {
  const int k = static_cast<int>(
      std::min<std::size_t>(energies.size(), static_cast<std::size_t>(total_epochs)));
  Plan p{options.stable_epoch, options.window, false, false};
  if (options.online_stability) {
    bool found = false;
    // Stable at e: the windows [e − w, e) and [e, e + w) each vary by at most stability_cv and
    // their means agree within stability_cv — the level has stopped drifting, not just the noise.
    const auto window_at = [&](int first) {
      return window_stats(
          energies.subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(p.w)));
    };
    for (int e = 1 + p.w; e + p.w <= k; ++e) {
      const Window before = window_at(e - p.w);
      const Window win = window_at(e);
      if (win.mean > 0.0 && before.mean > 0.0 && win.stdev / win.mean <= options.stability_cv &&
          before.stdev / before.mean <= options.stability_cv &&
          std::abs(win.mean - before.mean) / win.mean <= options.stability_cv) {
        p.s = e;
        found = true;
        break;
      }
    }
    if (found) {
      out.method = fmt::format(
          "STEP s = {} (online stability: windows before and from epoch {} "
          "agree within {:.3g}), w = {}",
          p.s, p.s + 1, options.stability_cv, p.w);
    } else {
      out.warnings.push_back(fmt::format(
          "online stability: no window of {} epochs with CV ≤ {:.3g} among {} epochs; s = {} kept",
          p.w, options.stability_cv, k, p.s));
    }
  }
  if (total_epochs <= k && total_epochs < p.s + p.w) {
    p.whole_run_known = true;
    out.fallback = true;
    out.warnings.push_back(fmt::format(
        "the run has {} epochs, fewer than s + w = {}: nothing to project, the total is the sum "
        "of the measured epochs",
        total_epochs, p.s + p.w));
    return p;
  }
  if (k < p.s + p.w) {
    out.fallback = true;
    // A plan shorter than s + w never brings the epochs STEP waits for: "only k of the s + w"
    // would read as if more were to come.
    const int needed = p.s + p.w;
    const bool plan_too_short = total_epochs < needed;
    const std::string why =
        plan_too_short ? fmt::format(
                             "the planned run of {} epochs is shorter than STEP's s + w = {}, so "
                             "STEP cannot project it as set",
                             total_epochs, needed)
                       : fmt::format("only {} of the s + w = {} epochs STEP needs {} known", k,
                                     needed, k == 1 ? "is" : "are");
    std::string fallback;
    if (k == 1) {
      p.first_epoch_only = true;
      fallback =
          "first-epoch projection E_1 × N (overestimates: epoch 1 costs more than a steady epoch)";
    } else {
      p.w = std::min(p.w, k - 1);
      p.s = k - p.w;
      fallback = fmt::format(
          "using s = {}, w = {} (the window: epochs {}…{}, the last known after epoch 1)", p.s, p.w,
          p.s + 1, k);
    }
    const std::string choice =
        plan_too_short ? fmt::format(
                             "; StepOptions::stable_epoch and StepOptions::window with s + w ≤ {} "
                             "choose the split",
                             total_epochs)
                       : "";
    out.warnings.push_back(fmt::format("{}: {}{}", why, fallback, choice));
  }
  return p;
}

}  // namespace

Result<StepProjection> step_project(std::span<const double> epoch_energies_j, int total_epochs,
                                    const StepOptions& options) {
  JP_RETURN_IF_ERROR(validate(epoch_energies_j, total_epochs, options));
  StepProjection out;
  out.total_epochs = total_epochs;
  out.method = fmt::format("STEP s = {}, w = {}", options.stable_epoch, options.window);
  const Plan p = plan(epoch_energies_j, total_epochs, options, out);
  const double n = static_cast<double>(total_epochs);
  if (p.whole_run_known) {
    const auto all = epoch_energies_j.first(static_cast<std::size_t>(total_epochs));
    out.total_j = out.band_low_j = out.band_high_j = out.head_j =
        std::accumulate(all.begin(), all.end(), 0.0);
    out.stable_epoch = total_epochs;
    out.method = "sum of all measured epochs";
    return out;
  }
  if (p.first_epoch_only) {
    out.total_j = out.band_low_j = out.band_high_j = epoch_energies_j[0] * n;
    out.window_mean_j = epoch_energies_j[0];
    out.window = 1;
    out.method = "first-epoch projection E_1 × N";
    return out;
  }
  const auto head = epoch_energies_j.first(static_cast<std::size_t>(p.s));
  const auto window =
      epoch_energies_j.subspan(static_cast<std::size_t>(p.s), static_cast<std::size_t>(p.w));
  const Window win = window_stats(window);
  const double remaining_epochs = n - static_cast<double>(p.s);
  out.head_j = std::accumulate(head.begin(), head.end(), 0.0);
  out.window_mean_j = win.mean;
  out.stable_epoch = p.s;
  out.window = p.w;
  out.total_j = out.head_j + remaining_epochs * win.mean;
  const double half_width =
      remaining_epochs * student_t95(p.w - 1) * win.stdev / std::sqrt(static_cast<double>(p.w));
  out.band_low_j = std::max(out.head_j, out.total_j - half_width);
  out.band_high_j = out.total_j + half_width;
  if (p.w == 1) out.warnings.push_back("a window of one epoch has no spread: no uncertainty band");
  if (out.fallback) out.method = fmt::format("STEP fallback s = {}, w = {}", p.s, p.w);
  return out;
}

Result<StepProjection> step_power_project(std::span<const double> epoch_energies_j,
                                          std::span<const double> epoch_durations_s,
                                          int total_epochs, double total_duration_s,
                                          const StepOptions& options) {
  if (epoch_durations_s.size() != epoch_energies_j.size()) {
    return invalid_input(
        "STEP power", "epoch durations", std::to_string(epoch_durations_s.size()),
        fmt::format("expected one per epoch energy ({})", epoch_energies_j.size()));
  }
  if (!(total_duration_s > 0.0)) {
    return invalid_input("STEP power", "duration", fmt::format("{}", total_duration_s),
                         "the total training duration must be positive");
  }
  JP_TRY(StepProjection energy_rule, step_project(epoch_energies_j, total_epochs, options));
  StepProjection out = energy_rule;
  if (energy_rule.window == 0 || energy_rule.method == "sum of all measured epochs") return out;
  const std::size_t s = static_cast<std::size_t>(energy_rule.stable_epoch);
  const std::size_t w = static_cast<std::size_t>(energy_rule.window);
  std::vector<double> powers_w;
  double window_energy_j = 0.0, window_time_s = 0.0;
  for (std::size_t e = s; e < s + w; ++e) {
    if (!(epoch_durations_s[e] > 0.0)) {
      return invalid_input("STEP power", fmt::format("epoch {} duration", e + 1),
                           fmt::format("{}", epoch_durations_s[e]), "must be positive");
    }
    window_energy_j += epoch_energies_j[e];
    window_time_s += epoch_durations_s[e];
    powers_w.push_back(epoch_energies_j[e] / epoch_durations_s[e]);
  }
  const Window win = window_stats(powers_w);
  const double mean_power_w = window_energy_j / window_time_s;
  out.total_j = mean_power_w * total_duration_s;
  const double half_width = total_duration_s * student_t95(static_cast<int>(w) - 1) * win.stdev /
                            std::sqrt(static_cast<double>(w));
  out.band_low_j = std::max(0.0, out.total_j - half_width);
  out.band_high_j = out.total_j + half_width;
  out.head_j = 0.0;
  out.method = fmt::format("STEP power: mean power of epochs {}…{} ({:.1f} W) × {:.0f} s", s + 1,
                           s + w, mean_power_w, total_duration_s);
  return out;
}

Result<LiveProjection> project_live(std::span<const double> epoch_energies_so_far_j,
                                    int total_epochs, const StepOptions& options) {
  JP_TRY(StepProjection projection, step_project(epoch_energies_so_far_j, total_epochs, options));
  LiveProjection live;
  live.ready = !projection.fallback;
  live.energy_so_far_j =
      std::accumulate(epoch_energies_so_far_j.begin(), epoch_energies_so_far_j.end(), 0.0);
  live.remaining_j = std::max(0.0, projection.total_j - live.energy_so_far_j);
  live.projection = std::move(projection);
  return live;
}

}  // namespace jouleprof
