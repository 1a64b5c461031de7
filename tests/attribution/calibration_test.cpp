#include "jouleprof/calibration.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace jouleprof {
namespace {

TEST(Calibration, ReadsClassesGlobsAndProvenance) {
  const std::string text = R"({"format": "jouleprof-calibration", "version": 1, "device": "gpu0",
    "idle_w": 120, "provenance": "each class alone in a loop, NVML energy counter, 30 s",
    "classes": [{"match": "gemm", "power_w": 640}, {"match": "*norm*", "power_w": 220,
                 "provenance": "layer_norm alone"}]})";
  auto c = calibration_from_json_string(text, "cal.json");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->device, "gpu0");
  EXPECT_EQ(*c->idle_power_w, 120.0);
  EXPECT_EQ(*c->power_for("gemm"), 640.0);
  EXPECT_EQ(*c->power_for("layer_norm_bwd"), 220.0);
  EXPECT_FALSE(c->power_for("softmax").has_value());
}

TEST(Calibration, NamesFileFieldAndValueOnBadInput) {
  auto no_prov = calibration_from_json_string(
      R"({"format": "jouleprof-calibration", "version": 1, "classes": [{"match": "a", "power_w": 1}]})",
      "x.json");
  ASSERT_FALSE(no_prov.ok());
  EXPECT_NE(no_prov.error().message().find("provenance"), std::string::npos);
  auto bad_power = calibration_from_json_string(
      R"({"format": "jouleprof-calibration", "version": 1, "provenance": "p",
          "classes": [{"match": "a", "power_w": -3}]})",
      "x.json");
  ASSERT_FALSE(bad_power.ok());
  EXPECT_NE(bad_power.error().message().find("classes[0].power_w"), std::string::npos);
  EXPECT_NE(bad_power.error().message().find("x.json"), std::string::npos);
  EXPECT_FALSE(calibration_from_json_string("[1,2", "x.json").ok());
  EXPECT_FALSE(read_calibration_json("/nonexistent/cal.json").ok());
}

TEST(Calibration, AHandWrittenFileRoundTripsWithoutMeasurementFields) {
  Calibration c;
  c.device = "gpu0";
  c.provenance = "each class alone in a loop";
  c.classes.push_back({"gemm", 640.0, "", std::nullopt});
  testing::TempDir dir;
  const std::string path = (dir.path() / "cal.json").string();
  ASSERT_TRUE(write_calibration_json(c, path).ok());
  auto back = read_calibration_json(path);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_FALSE(back->idle_power_w.has_value());
  EXPECT_FALSE(back->time_coverage.has_value());
  ASSERT_EQ(back->classes.size(), 1u);
  EXPECT_FALSE(back->classes[0].measurement.has_value());
  EXPECT_EQ(back->origin, path);
}

TEST(Calibration, AMeasuredClassWithABrokenFigureNamesTheField) {
  auto c = calibration_from_json_string(
      R"({"format": "jouleprof-calibration", "version": 1, "provenance": "measured",
          "classes": [{"match": "aten::mm", "power_w": 30, "baseline_w": 7, "net_power_w": {"n": 2},
                       "tail_j_per_call": 0, "call_s": 1e-3, "calls_per_window": 10,
                       "self_time_share": 0.5}]})",
      "cal.json");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message().find("classes[0].net_power_w.mean"), std::string::npos)
      << c.error().message();
}

TEST(Calibration, AFrameworkDeviceCoversEveryChannelDeviceOfItsKind) {
  Calibration cuda;
  cuda.device = "cuda";
  EXPECT_TRUE(cuda.applies_to_device("gpu0"));
  EXPECT_TRUE(cuda.applies_to_device("gpu3"));
  EXPECT_FALSE(cuda.applies_to_device("cpu0"));
  Calibration cpu;
  cpu.device = "cpu";
  EXPECT_TRUE(cpu.applies_to_device("cpu1"));
  EXPECT_FALSE(cpu.applies_to_device("gpu0"));
  Calibration one;
  one.device = "gpu0";
  EXPECT_TRUE(one.applies_to_device("gpu0"));
  EXPECT_FALSE(one.applies_to_device("gpu1"));
  EXPECT_TRUE(Calibration{}.applies_to_device("anything"));
}

}  // namespace
}  // namespace jouleprof
