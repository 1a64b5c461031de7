#include <gtest/gtest.h>

#include "jouleprof/attribution.hpp"

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
      R"({"format": "jouleprof-calibration", "version": 1, "classes": [{"match": "a", "power_w": 1}]})", "x.json");
  ASSERT_FALSE(no_prov.ok());
  EXPECT_NE(no_prov.error().message().find("provenance"), std::string::npos);
  auto bad_power = calibration_from_json_string(
      R"({"format": "jouleprof-calibration", "version": 1, "provenance": "p",
          "classes": [{"match": "a", "power_w": -3}]})", "x.json");
  ASSERT_FALSE(bad_power.ok());
  EXPECT_NE(bad_power.error().message().find("classes[0].power_w"), std::string::npos);
  EXPECT_NE(bad_power.error().message().find("x.json"), std::string::npos);
  EXPECT_FALSE(calibration_from_json_string("[1,2", "x.json").ok());
  EXPECT_FALSE(read_calibration_json("/nonexistent/cal.json").ok());
}

}  // namespace
}  // namespace jouleprof
