#include "testing/step_cross_validation.hpp"

#include <gtest/gtest.h>

namespace jouleprof {
namespace {

// Runs whose first three epochs warm up and whose later epochs are flat: STEP is exact from s = 3
// with any window, and wrong for s < 3 (a warm epoch inside the window is extrapolated).
std::vector<StepRun> warm_up_runs() {
  std::vector<StepRun> runs;
  for (int r = 0; r < 10; ++r) {
    StepRun run;
    const double level = 100.0 + 10.0 * r;
    run.epoch_energies_j = {5.0 * level, 3.0 * level, 2.0 * level};
    run.epoch_energies_j.resize(40, level);
    for (double e : run.epoch_energies_j) run.measured_j += e;
    runs.push_back(run);
  }
  return runs;
}

TEST(StepCrossValidation, EachFoldChoosesASettingThatIsExactOnItsRuns) {
  StepGrid grid;
  grid.stable_epochs = {1, 2, 3};
  grid.windows = {2, 5};
  grid.stability_cvs = {0.0};
  const auto cv = cross_validate_step(warm_up_runs(), grid, 5, 7);
  ASSERT_TRUE(cv) << cv.error().message();
  EXPECT_EQ(cv->chosen.size(), 5u);
  EXPECT_NEAR(cv->cv_mape_percent, 0.0, 1e-9);
  for (const StepOptions& o : cv->chosen) EXPECT_EQ(o.stable_epoch, 3);
  EXPECT_EQ(describe_step_setting(cv->chosen_on_all), "s=3, w=2");
  ASSERT_EQ(cv->predicted_j.size(), 10u);
  EXPECT_NEAR(cv->predicted_j[0], warm_up_runs()[0].measured_j, 1e-6);
}

TEST(StepCrossValidation, ASettingThatIsWrongEverywhereShowsInTheFigure) {
  StepGrid grid;
  grid.stable_epochs = {1};
  grid.windows = {2};
  grid.stability_cvs = {0.0};
  const auto cv = cross_validate_step(warm_up_runs(), grid, 2, 7);
  ASSERT_TRUE(cv) << cv.error().message();
  // s = 1, w = 2 extrapolates (3 + 2) / 2 = 2.5 levels over 39 epochs against 1 level.
  EXPECT_GT(cv->cv_mape_percent, 100.0);
}

TEST(StepCrossValidation, FoldsMustFitTheRuns) {
  const auto none = cross_validate_step(warm_up_runs(), StepGrid{}, 1, 7);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message().find("folds"), std::string::npos);
  EXPECT_FALSE(cross_validate_step(warm_up_runs(), StepGrid{}, 11, 7));
}

}  // namespace
}  // namespace jouleprof
