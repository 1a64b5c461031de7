// measure_run: the `run` job as a library call — files, history and typed errors (the command
// line's own behaviour is tests/tools/run_command_test.cpp).
#include "jouleprof/run_measurement.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "jouleprof/history.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using ::jouleprof::testing::TempDir;

RunOptions simulated_run(const TempDir& dir) {
  RunOptions options;
  options.monitor.sources.selected = {"simulated"};
  options.monitor.sources.settings["simulate.watts"] = "40";
  options.monitor.interval_ns = 5 * kNsPerMs;
  options.command = {"sleep", "0.6"};  // past the first status tick (250 ms)
  options.output = (dir.path() / "run").string();
  return options;
}

TEST(RunMeasurement, WritesTheRunsFilesAndRecordsItInTheHistory) {
  TempDir dir;
  RunOptions options = simulated_run(dir);
  options.history_db = (dir.path() / "history.db").string();
  options.grid_intensity_g_per_kwh = 300.0;
  int statuses = 0;
  options.on_status = [&statuses](const LiveStatus&) { ++statuses; };
  const Result<RunMeasurement> run = measure_run(options);
  ASSERT_TRUE(run.ok()) << run.error().message();
  EXPECT_EQ(run->measurement.exit_code, 0);
  EXPECT_GT(statuses, 0);
  EXPECT_TRUE(std::filesystem::exists(run->files.profile));
  EXPECT_TRUE(std::filesystem::exists(run->files.samples));
  const Profile& p = run->measurement.profile;
  EXPECT_NEAR(p.total_energy_j(), 40.0 * ns_to_s(p.meta.end_ns - p.meta.begin_ns), 1.0);
  EXPECT_EQ(p.meta.grid_intensity_g_per_kwh, 300.0);
  EXPECT_EQ(p.meta.options.run.source, "simulated");
  EXPECT_EQ(p.meta.options.settings.at("simulate.watts"), "40");
  EXPECT_EQ(p.meta.options.run.interval_ms, 5.0);
  Result<HistoryDb> db = HistoryDb::open_existing(*options.history_db);
  ASSERT_TRUE(db.ok()) << db.error().message();
  const Result<std::vector<RunRecord>> runs = db->list(0);
  ASSERT_TRUE(runs.ok()) << runs.error().message();
  EXPECT_EQ(runs->size(), 1u);
}

TEST(RunMeasurement, ACommandThatCannotStartLeavesNoRunDirectory) {
  TempDir dir;
  RunOptions options = simulated_run(dir);
  options.command = {"/nonexistent/jouleprof-test-command"};
  const Result<RunMeasurement> run = measure_run(options);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().subject(), ErrorSubject::kCommandStart);
  EXPECT_EQ(run.error().code(), ErrorCode::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "run"));
}

TEST(RunMeasurement, NothingToMeasureIsInvalidInput) {
  TempDir dir;
  RunOptions options = simulated_run(dir);
  options.command.clear();
  const Result<RunMeasurement> run = measure_run(options);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(run.error().message().find("what to measure"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
