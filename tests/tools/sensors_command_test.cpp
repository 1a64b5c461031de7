// `jouleprof sensors` end to end, on a fake root and on the simulated source.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "tools/jouleprof_runner.hpp"

namespace jouleprof {
namespace {

using ::jouleprof::testing::Invocation;
using ::jouleprof::testing::run_jouleprof;
using ::jouleprof::testing::TempDir;

TEST(SensorsCommand, FakeRootWithOnlyProcStatShowsTheEstimate) {
  ::jouleprof::testing::hide_gpu_libraries();
  TempDir root;
  root.write("proc/stat", "cpu  100 0 50 800 10 0 0 0 0 0\ncpu0 100 0 50 800 10 0 0 0 0 0\n");
  root.write("proc/cpuinfo", "model name\t: AMD EPYC 7763 64-Core Processor\n");
  TempDir dir;
  const Invocation inv = run_jouleprof(
      {"sensors", "--json", "--duration", "0.2", "--sysfs-root", root.path().string()}, dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  const nlohmann::json j = nlohmann::json::parse(inv.out);
  ASSERT_EQ(j["sources"].size(), 1U);
  EXPECT_EQ(j["sources"][0]["name"], "cpu-estimate");
  const nlohmann::json& channel = j["sources"][0]["channels"][0];
  EXPECT_EQ(channel["provenance"], "estimated");
  EXPECT_EQ(channel["unit"], "J (cumulative)");
  EXPECT_NE(channel["provenance_detail"].get<std::string>().find("TDP 280 W"), std::string::npos);
  EXPECT_FALSE(j["notes"].empty());
}

TEST(SensorsCommand, SimulatedSourceWithNestingAndMeasuredPeriod) {
  TempDir dir;
  const Invocation inv =
      run_jouleprof({"sensors", "--json", "--duration", "0.2", "--source", "simulated", "--set",
                     "simulate.watts=5", "--set", "simulate.channels=energy,power"},
                    dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  const nlohmann::json j = nlohmann::json::parse(inv.out);
  ASSERT_EQ(j["sources"].size(), 1U);
  const nlohmann::json& channels = j["sources"][0]["channels"];
  ASSERT_EQ(channels.size(), 2U);
  EXPECT_EQ(channels[1]["parent_id"], channels[0]["id"]);
  EXPECT_EQ(channels[0]["provenance"], "simulated");
  EXPECT_GT(channels[0]["measured_period_ns"].get<long long>(), 0);
  EXPECT_GT(channels[0]["samples"].get<long long>(), 2);
}

TEST(SensorsCommand, AMisspeltSettingIsAnErrorListingTheSourcesSettings) {
  TempDir dir;
  const Invocation inv = run_jouleprof(
      {"sensors", "--duration", "0.1", "--source", "simulated", "--set", "simulate.wats=5"}, dir);
  EXPECT_EQ(inv.exit_code, 1) << inv.err;
  EXPECT_NE(inv.err.find("simulate.wats"), std::string::npos) << inv.err;
  EXPECT_NE(inv.err.find("simulate.watts"), std::string::npos) << inv.err;
}

// The GPU backends, against the fake libraries: their channels, the parameters the libraries'
// documentation leaves open, and the vendor in every detail.
TEST(SensorsCommand, AmdAndIntelGpusWithTheirParameters) {
  ::jouleprof::testing::hide_gpu_libraries();
  ::setenv("JOULEPROF_ROCM_SMI_LIBRARY", FAKE_ROCM_SMI_PATH, 1);
  ::setenv("JOULEPROF_LEVEL_ZERO_LIBRARY", FAKE_LEVEL_ZERO_PATH, 1);
  TempDir dir;
  const Invocation inv = run_jouleprof(
      {"sensors", "--json", "--duration", "0.1", "--source", "rocm-smi,level-zero"}, dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  const nlohmann::json j = nlohmann::json::parse(inv.out);
  ASSERT_EQ(j["sources"].size(), 2U) << inv.out;
  EXPECT_EQ(j["sources"][0]["name"], "rocm-smi");
  EXPECT_EQ(j["sources"][1]["name"], "level-zero");
  const nlohmann::json& amd = j["sources"][0]["channels"][0];
  EXPECT_EQ(amd["id"], "rocm-smi:0:energy");
  EXPECT_EQ(amd["device"], "gpu0");
  EXPECT_NE(amd["provenance_detail"].get<std::string>().find("rocm-smi.counter_bits"),
            std::string::npos);
  const nlohmann::json& intel = j["sources"][1]["channels"][0];
  EXPECT_EQ(intel["device"], "gpu2") << "the numbering continues after the two AMD GPUs";
  EXPECT_NE(intel["provenance_detail"].get<std::string>().find("Intel gpu 0"), std::string::npos);
  EXPECT_NE(intel["provenance_detail"].get<std::string>().find("level-zero.update_period_ms"),
            std::string::npos);
  ::unsetenv("JOULEPROF_ROCM_SMI_LIBRARY");
  ::unsetenv("JOULEPROF_LEVEL_ZERO_LIBRARY");
}

TEST(SensorsCommand, UnavailableSourcesComeWithReasonAndFix) {
  ::jouleprof::testing::hide_gpu_libraries();
  TempDir empty_root;
  TempDir dir;
  const Invocation inv = run_jouleprof(
      {"sensors", "--duration", "0.1", "--sysfs-root", empty_root.path().string()}, dir);
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  EXPECT_NE(inv.out.find("Unavailable:"), std::string::npos) << inv.out;
  EXPECT_NE(inv.out.find("cpu-estimate: "), std::string::npos);
  EXPECT_NE(inv.out.find("fix: "), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
