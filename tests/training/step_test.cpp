#include "jouleprof/step.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

namespace jouleprof {
namespace {

// Epoch 1 costs 6×, then a steady 100 J per epoch with a little spread.
std::vector<double> typical_epochs(int count) {
  std::vector<double> e = {600.0};
  for (int i = 1; i < count; ++i) e.push_back(100.0 + ((i % 3) - 1) * 2.0);
  return e;
}

TEST(Step, ProjectsThePublishedFormula) {
  const std::vector<double> e = typical_epochs(20);
  const auto p = step_project(e, 100);
  ASSERT_TRUE(p) << p.error().message();
  const double head = std::accumulate(e.begin(), e.begin() + 10, 0.0);
  const double window = std::accumulate(e.begin() + 10, e.begin() + 15, 0.0);
  EXPECT_DOUBLE_EQ(p->total_j, head + (100.0 - 10.0) / 5.0 * window);
  EXPECT_DOUBLE_EQ(p->head_j, head);
  EXPECT_EQ(p->stable_epoch, 10);
  EXPECT_EQ(p->window, 5);
  EXPECT_FALSE(p->fallback);
  EXPECT_TRUE(p->warnings.empty());
  // Epochs after s + w do not change the projection.
  const auto q = step_project(std::span<const double>(e).first(15), 100);
  ASSERT_TRUE(q);
  EXPECT_DOUBLE_EQ(q->total_j, p->total_j);
}

TEST(Step, BandComesFromTheWindowSpread) {
  std::vector<double> e(15, 100.0);
  auto p = step_project(e, 50);
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->band_low_j, p->total_j);
  EXPECT_DOUBLE_EQ(p->band_high_j, p->total_j);
  e = {100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 90, 110, 90, 110, 100};
  p = step_project(e, 50);
  ASSERT_TRUE(p);
  // stdev of the window = sqrt(400 / 4) = 10; half-width = 40 × t(4) × 10 / sqrt(5).
  const double half = 40.0 * 2.776 * 10.0 / std::sqrt(5.0);
  EXPECT_NEAR(p->band_high_j - p->total_j, half, 1e-9);
  EXPECT_NEAR(p->total_j - p->band_low_j, half, 1e-9);
}

TEST(Step, FewerKnownEpochsThanSPlusWFallBackWithAWarning) {
  const std::vector<double> e = typical_epochs(8);
  const auto p = step_project(e, 100);
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_TRUE(p->fallback);
  EXPECT_EQ(p->window, 5);
  EXPECT_EQ(p->stable_epoch, 3);
  ASSERT_EQ(p->warnings.size(), 1u);
  EXPECT_NE(p->warnings[0].find("only 8 of the s + w = 15"), std::string::npos);
  EXPECT_NE(p->warnings[0].find("the window: epochs 4…8"), std::string::npos) << p->warnings[0];
  const double head = e[0] + e[1] + e[2];
  const double window = std::accumulate(e.begin() + 3, e.end(), 0.0);
  EXPECT_DOUBLE_EQ(p->total_j, head + 97.0 / 5.0 * window);

  const auto one = step_project(std::span<const double>(e).first(1), 10);
  ASSERT_TRUE(one);
  EXPECT_DOUBLE_EQ(one->total_j, 6000.0);
  EXPECT_NE(one->method.find("E_1 × N"), std::string::npos);
  EXPECT_NE(one->warnings.at(0).find("epoch 1 costs more"), std::string::npos);
}

TEST(Step, APlanShorterThanSPlusWSaysSTEPCannotProjectIt) {
  // 6 of 10 planned epochs known, s + w = 15: more epochs will come, but never 15.
  const std::vector<double> e = typical_epochs(6);
  const auto p = step_project(e, 10);
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_TRUE(p->fallback);
  EXPECT_EQ(p->stable_epoch, 1);
  EXPECT_EQ(p->window, 5);
  ASSERT_EQ(p->warnings.size(), 1u);
  const std::string& w = p->warnings[0];
  EXPECT_NE(w.find("the planned run of 10 epochs is shorter than STEP's s + w = 15"),
            std::string::npos)
      << w;
  EXPECT_NE(w.find("the window: epochs 2…6"), std::string::npos) << w;
  EXPECT_NE(w.find("StepOptions::window with s + w ≤ 10"), std::string::npos) << w;
  EXPECT_EQ(w.find("epochs STEP needs"), std::string::npos) << w;

  const auto one = step_project(std::span<const double>(e).first(1), 10);
  ASSERT_TRUE(one);
  EXPECT_NE(one->warnings.at(0).find("the planned run of 10 epochs is shorter"), std::string::npos)
      << one->warnings.at(0);
  EXPECT_NE(one->warnings.at(0).find("E_1 × N"), std::string::npos) << one->warnings.at(0);
  const auto live = project_live(e, 10);
  ASSERT_TRUE(live);
  EXPECT_FALSE(live->ready);
}

TEST(Step, ARunShorterThanSPlusWIsItsMeasuredSum) {
  const std::vector<double> e = typical_epochs(12);
  const auto p = step_project(e, 12);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->fallback);
  EXPECT_DOUBLE_EQ(p->total_j, std::accumulate(e.begin(), e.end(), 0.0));
  EXPECT_NE(p->warnings.at(0).find("fewer than s + w"), std::string::npos);
}

TEST(Step, OnlineStabilityFindsTheFirstStableWindow) {
  // Warm-up: 600, 300, 150, then steady 100 J.
  std::vector<double> e = {600, 300, 150};
  for (int i = 0; i < 15; ++i) e.push_back(100.0);
  StepOptions options;
  options.online_stability = true;
  auto p = step_project(e, 60, options);
  ASSERT_TRUE(p);
  // The first e whose previous window [e − 5, e) is already steady: e = 8.
  EXPECT_EQ(p->stable_epoch, 8);
  EXPECT_DOUBLE_EQ(p->total_j, 1050.0 + 57.0 * 100.0);
  EXPECT_NE(p->method.find("online stability"), std::string::npos);
  // Epochs 1 … 8 summed, the window from epoch 9: numbered as jouleprof prints them.
  EXPECT_NE(p->method.find("from epoch 9 "), std::string::npos) << p->method;

  // Never stable: s stays at 10, with a warning.
  for (std::size_t i = 0; i < e.size(); ++i) e[i] = 100.0 + (i % 2 == 0 ? 30.0 : -30.0);
  p = step_project(e, 60, options);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->stable_epoch, 10);
  EXPECT_NE(p->warnings.at(0).find("no window"), std::string::npos);
}

TEST(Step, PowerVariantIsWindowPowerTimesDuration) {
  std::vector<double> energy(15, 100.0);
  std::vector<double> duration(15, 10.0);  // 10 W
  energy[12] = 120.0;
  const auto p = step_power_project(energy, duration, 30, 400.0);
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_DOUBLE_EQ(p->total_j, (520.0 / 50.0) * 400.0);
  EXPECT_NE(p->method.find("mean power of epochs 11…15 "), std::string::npos) << p->method;

  const auto bad = step_power_project(energy, std::vector<double>(3, 1.0), 30, 400.0);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("epoch durations"), std::string::npos);
}

TEST(Step, LiveProjectionGivesTheRemainingEnergy) {
  const std::vector<double> e = typical_epochs(16);
  const auto live = project_live(e, 40);
  ASSERT_TRUE(live);
  EXPECT_TRUE(live->ready);
  EXPECT_DOUBLE_EQ(live->energy_so_far_j, std::accumulate(e.begin(), e.end(), 0.0));
  EXPECT_DOUBLE_EQ(live->remaining_j, live->projection.total_j - live->energy_so_far_j);
  const auto early = project_live(std::span<const double>(e).first(4), 40);
  ASSERT_TRUE(early);
  EXPECT_FALSE(early->ready);
  EXPECT_FALSE(early->projection.warnings.empty());
}

TEST(Step, BadInputIsAnError) {
  const std::vector<double> e = typical_epochs(15);
  EXPECT_FALSE(step_project(e, 0));
  EXPECT_FALSE(step_project({}, 10));
  StepOptions zero_window;
  zero_window.window = 0;
  EXPECT_FALSE(step_project(e, 10, zero_window));
  const std::vector<double> negative = {100, -1};
  const auto r = step_project(negative, 10);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("epoch 2 energy"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
