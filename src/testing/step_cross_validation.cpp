#include "testing/step_cross_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

namespace jouleprof {

namespace {

std::vector<StepOptions> grid_settings(const StepGrid& grid) {
  std::vector<StepOptions> settings;
  for (double cv : grid.stability_cvs) {
    for (int s : grid.stable_epochs) {
      for (int w : grid.windows) {
        StepOptions o;
        o.stable_epoch = s;
        o.window = w;
        o.online_stability = cv > 0.0;
        o.stability_cv = cv > 0.0 ? cv : o.stability_cv;
        settings.push_back(o);
      }
    }
  }
  return settings;
}

}  // namespace

std::string describe_step_setting(const StepOptions& o) {
  return o.online_stability ? fmt::format("s online (CV <= {:.2f}, else {}), w={}", o.stability_cv,
                                          o.stable_epoch, o.window)
                            : fmt::format("s={}, w={}", o.stable_epoch, o.window);
}

Result<StepCrossValidation> cross_validate_step(const std::vector<StepRun>& runs,
                                                const StepGrid& grid, int folds,
                                                std::uint32_t seed) {
  if (folds < 2 || static_cast<std::size_t>(folds) > runs.size()) {
    return invalid_input("STEP cross-validation", "folds", fmt::format("{}", folds),
                         fmt::format("must be from 2 to the number of runs ({})", runs.size()));
  }
  const std::vector<StepOptions> settings = grid_settings(grid);
  if (settings.empty()) return invalid_input("STEP cross-validation", "grid", "", "empty");
  // Projection and absolute percentage error of every setting on every run, computed once.
  std::vector<std::vector<double>> ape(settings.size(), std::vector<double>(runs.size()));
  std::vector<std::vector<double>> total(settings.size(), std::vector<double>(runs.size()));
  for (std::size_t k = 0; k < settings.size(); ++k) {
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const StepRun& run = runs[r];
      if (!(run.measured_j > 0.0)) {
        return invalid_input("STEP cross-validation", "measured energy",
                             fmt::format("{}", run.measured_j), "must be positive");
      }
      JP_TRY(const StepProjection p,
             step_project(run.epoch_energies_j, static_cast<int>(run.epoch_energies_j.size()),
                          settings[k]));
      total[k][r] = p.total_j;
      ape[k][r] = 100.0 * std::abs(p.total_j - run.measured_j) / run.measured_j;
    }
  }
  const auto best_on = [&](const std::vector<bool>& use) {
    std::size_t best = 0;
    double best_error = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < settings.size(); ++k) {
      double error = 0.0;
      for (std::size_t r = 0; r < runs.size(); ++r) error += use[r] ? ape[k][r] : 0.0;
      if (error < best_error) {
        best_error = error;
        best = k;
      }
    }
    return best;
  };
  std::vector<std::size_t> order(runs.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  StepCrossValidation cv;
  cv.runs = runs.size();
  cv.folds = folds;
  cv.predicted_j.assign(runs.size(), 0.0);
  double error = 0.0;
  for (int f = 0; f < folds; ++f) {
    std::vector<bool> train(runs.size(), true);
    for (std::size_t p = 0; p < order.size(); ++p) {
      if (p % static_cast<std::size_t>(folds) == static_cast<std::size_t>(f)) {
        train[order[p]] = false;
      }
    }
    const std::size_t chosen = best_on(train);
    cv.chosen.push_back(settings[chosen]);
    for (std::size_t r = 0; r < runs.size(); ++r) {
      if (train[r]) continue;
      error += ape[chosen][r];
      cv.predicted_j[r] = total[chosen][r];
    }
  }
  cv.cv_mape_percent = error / static_cast<double>(runs.size());
  const std::size_t overall = best_on(std::vector<bool>(runs.size(), true));
  cv.chosen_on_all = settings[overall];
  cv.mape_on_all_percent = std::accumulate(ape[overall].begin(), ape[overall].end(), 0.0) /
                           static_cast<double>(runs.size());
  return cv;
}

}  // namespace jouleprof
