#include "predict/fusion_rule_measurement.hpp"

#include <gtest/gtest.h>

#include "predict/fusion_rules.hpp"
#include "test_support.hpp"

namespace jouleprof::predict {
namespace {

using jouleprof::testing::TempDir;

KernelEnergy figures(double ms, double mj) {
  KernelEnergy e;
  e.call_ms = ms;
  e.energy_mj = mj;
  e.repetitions = 3;
  e.provenance = "estimated:cpu-estimate";
  return e;
}

TEST(FusionRuleMeasurement, ThePublishedCriterion) {
  // conv 10 ms, bn 2 ms: fused 10.5 ms saves 1.5 ms > 0.5 · 2 ms.
  EXPECT_TRUE(fusion_saves(10.0, 2.0, 10.5));
  // fused 11.2 ms saves 0.8 ms, not more than 1 ms.
  EXPECT_FALSE(fusion_saves(10.0, 2.0, 11.2));
  // exactly half is not enough (strict inequality)
  EXPECT_FALSE(fusion_saves(10.0, 2.0, 11.0));
  EXPECT_FALSE(fusion_saves(1.0, 1.0, 2.1));  // running together costs more
}

TEST(FusionRuleMeasurement, RuleNames) {
  auto ops = rule_ops("BF_conv_bn");
  ASSERT_TRUE(ops.ok());
  EXPECT_EQ(ops->first, "conv");
  EXPECT_EQ(ops->second, "bn");
  for (const char* bad : {"conv_bn", "BF_conv", "BF__bn", "BF_conv_", "BF_a_b_c"}) {
    auto r = rule_ops(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message().find(bad), std::string::npos) << r.error().message();
  }
}

TEST(FusionRuleMeasurement, JudgesByLatencyOrEnergy) {
  // Time says fuse (saving 1.5 > 1), energy says not (saving 0.1 ≤ 0.5).
  MeasuredRule by_time = judge_rule("BF_conv_bn", "conv → bn", figures(10, 5), figures(2, 1),
                                    figures(10.5, 5.9), FusionCriterion::kLatency);
  EXPECT_TRUE(by_time.obey_latency);
  EXPECT_FALSE(by_time.obey_energy);
  EXPECT_TRUE(by_time.obey);
  MeasuredRule by_energy = judge_rule("BF_conv_bn", "conv → bn", figures(10, 5), figures(2, 1),
                                      figures(10.5, 5.9), FusionCriterion::kEnergy);
  EXPECT_FALSE(by_energy.obey);
}

TEST(FusionRuleMeasurement, WrittenRulesReadBackByTheDetector) {
  TempDir dir;
  std::vector<MeasuredRule> rules{
      judge_rule("BF_conv_bn", "conv → bn on 1×64×28×28", figures(10, 5), figures(2, 1),
                 figures(10.5, 5.2), FusionCriterion::kLatency),
      judge_rule("BF_conv_add", "conv → add on 1×64×28×28", figures(10, 5), figures(2, 1),
                 figures(12, 6), FusionCriterion::kLatency),
      unmeasured_rule("BF_concat_conv", true, "default.json", "libtorch cannot build this block"),
  };
  const auto path = dir.path() / "rules.json";
  ASSERT_TRUE(
      write_measured_rules(rules, FusionCriterion::kLatency, KernelEnergyFigure::kTotal, path)
          .ok());
  auto read = FusionRules::from_file(path);
  ASSERT_TRUE(read.ok()) << read.error().message();
  EXPECT_EQ(read->rules().size(), 3u);
  EXPECT_TRUE(read->fusible("conv", "bn"));
  EXPECT_FALSE(read->fusible("conv", "add"));
  EXPECT_TRUE(read->fusible("concat", "conv"));  // kept from the input, marked unmeasured
  const std::string text = jouleprof::testing::read_file(path);
  EXPECT_NE(text.find("\"energy_provenance\": \"estimated:cpu-estimate\""), std::string::npos)
      << text;
  EXPECT_NE(text.find("\"measured\": false"), std::string::npos) << text;
  EXPECT_NE(text.find("\"latency_ms\""), std::string::npos) << text;
}

}  // namespace
}  // namespace jouleprof::predict
