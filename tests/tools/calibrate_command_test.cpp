// `jouleprof calibrate` end to end on the simulated source with short gate options: the classes
// with the most op time first, the coverage line, the gated figures in the file, bad flags.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "jouleprof_runner.hpp"

namespace jouleprof::testing {
namespace {

TEST(CalibrateCommand, GatedClassesByTimeOnASimulatedSource) {
  TempDir dir;
  const std::string file = (dir.path() / "calibration.json").string();
  const Invocation inv = run_jouleprof(
      {"calibrate", "--model",        "mlp",  "--layers",        "2",   "--hidden",
       "64",        "--batch",        "8",    "--threads",       "1",   "--simulate",
       "30",        "--repeat",       "2",    "--gate-interval", "20",  "--last-n",
       "5",         "--check-period", "0.15", "--tail-wait",     "0.1", "--min-updates",
       "100",       "--max-classes",  "3",    "--output",        file},
      dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.out << inv.err;
  EXPECT_NE(inv.out.find("NOT MEASURED"), std::string::npos) << inv.out;
  EXPECT_NE(inv.out.find("of the profiled step's operator time"), std::string::npos) << inv.out;
  EXPECT_NE(inv.out.find("calibration took"), std::string::npos) << inv.out;
  std::ifstream in(file);
  const auto doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["provenance"], "simulated");
  EXPECT_NE(doc["method"].get<std::string>().find("gated protocol"), std::string::npos);
  ASSERT_EQ(doc["classes"].size(), 3u);
  double previous_share = 1.0;
  double covered = 0.0;
  for (const auto& c : doc["classes"]) {
    const double share = c["self_time_share"].get<double>();
    EXPECT_LE(share, previous_share) << c["match"];
    previous_share = share;
    covered += share;
    // A constant 30 W: the class runs at the baseline, nothing above it (to the 1 % a window of
    // 100 counter updates resolves).
    EXPECT_NEAR(c["power_w"].get<double>(), 30.0, 1.0) << c["match"];
    EXPECT_NEAR(c["net_power_w"]["mean"].get<double>(), 0.0, 1.0) << c["match"];
    EXPECT_EQ(c["net_power_w"]["n"], 2);
    EXPECT_EQ(c["gates"].size(), 2u);
  }
  EXPECT_NEAR(doc["time_coverage"].get<double>(), covered, 1e-9);
  EXPECT_FALSE(doc["skipped"].empty());
}

TEST(CalibrateCommand, BadCoverageNamesTheFlag) {
  TempDir dir;
  const Invocation inv =
      run_jouleprof({"calibrate", "--model", "mlp", "--simulate", "30", "--coverage", "0"}, dir);
  EXPECT_NE(inv.exit_code, 0);
  EXPECT_NE(inv.err.find("--coverage"), std::string::npos) << inv.err;
}

}  // namespace
}  // namespace jouleprof::testing
