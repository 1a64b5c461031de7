// Every zoo model builds and runs one observed training step on the CPU at a small size.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "jouleprof/recorder.hpp"
#include "jouleprof/torch.hpp"
#include "torch/zoo_test_support.hpp"

namespace jouleprof::torch_adapter {
namespace {

class SmallZooModel : public ::testing::TestWithParam<WorkloadOptions> {};

TEST_P(SmallZooModel, RunsOneObservedTrainingStep) { expect_observed_training_step(GetParam()); }

WorkloadOptions small(std::string model) {
  WorkloadOptions o;
  o.model = std::move(model);
  o.mode = Mode::kTrain;
  o.batch = 2;
  o.seq = 16;
  o.image = 32;
  o.vocab = 500;
  o.threads = 1;
  return o;
}

INSTANTIATE_TEST_SUITE_P(Zoo, SmallZooModel,
                         ::testing::Values(
                             small("bert-mini"),
                             [] {
                               auto o = small("bert-L6-H512");
                               o.layers = 2;
                               return o;
                             }(),
                             [] {
                               auto o = small("albert-base");
                               o.hidden = 128;
                               o.layers = 3;
                               return o;
                             }(),
                             small("resnet-18"), small("mobilenet-v2"),
                             [] {
                               auto o = small("mlp");
                               o.hidden = 64;
                               return o;
                             }()),
                         [](const auto& param_info) {
                           std::string name = param_info.param.model;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

TEST(Zoo, ListsEveryPresetOfTheIssue) {
  std::vector<std::string> names;
  for (const auto& m : zoo_models()) names.push_back(m.name);
  for (const std::string expected :
       {"bert-base", "bert-mini", "albert-base", "resnet-18", "resnet-50", "mobilenet-v2", "vgg16",
        "mlp", "bert-L6-H512", "bert-L8-H768", "bert-L10-H512", "bert-L12-H768"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
}

TEST(Zoo, RejectsUnknownModelsAndBadSizes) {
  WorkloadOptions o;
  o.model = "gpt-9";
  auto unknown = make_workload(o);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message().find("gpt-9"), std::string::npos);

  o = small("bert-mini");
  o.hidden = 100;
  o.heads = 3;
  auto bad_heads = make_workload(o);
  ASSERT_FALSE(bad_heads.ok());
  EXPECT_NE(bad_heads.error().message().find("WorkloadOptions::hidden"), std::string::npos);

  o = small("bert-mini");
  o.seq = 1000;
  EXPECT_FALSE(make_workload(o).ok());

  o = small("resnet-18");
  o.batch = -1;
  EXPECT_FALSE(make_workload(o).ok());
}

TEST(Zoo, VisionModelsHaveTheReferenceParameterCounts) {
  // torchvision's counts for 1000 classes: the zoo builds the same networks.
  for (const auto& [model, count] : {std::pair<std::string, std::int64_t>{"resnet-18", 11'689'512},
                                     {"resnet-50", 25'557'032},
                                     {"mobilenet-v2", 3'504'872}}) {
    WorkloadOptions o;
    o.model = model;
    o.batch = 1;
    o.image = 32;
    auto w = make_workload(o);
    ASSERT_TRUE(w.ok()) << w.error().message();
    EXPECT_EQ((*w)->parameter_count(), count) << model;
  }
}

TEST(Zoo, BertHasTheReferenceParameterCountAtASmallSize) {
  // Embeddings V·H + P·H + 2·H + 2H (norm); per layer 4(H²+H) + 2·2H + 2·(4H·H) + 4H + H;
  // pooler H² + H; classifier 2H + 2.
  WorkloadOptions o = {};
  o.model = "bert";
  o.layers = 2;
  o.hidden = 64;
  o.vocab = 100;
  o.batch = 1;
  o.seq = 8;
  auto w = make_workload(o);
  ASSERT_TRUE(w.ok()) << w.error().message();
  const std::int64_t h = 64;
  const std::int64_t embeddings = 100 * h + 512 * h + 2 * h + 2 * h;
  const std::int64_t layer = 4 * (h * h + h) + 2 * 2 * h + (h * 4 * h + 4 * h) + (4 * h * h + h);
  const std::int64_t expected = embeddings + 2 * layer + (h * h + h) + (2 * h + 2);
  EXPECT_EQ((*w)->parameter_count(), expected);
}

}  // namespace
}  // namespace jouleprof::torch_adapter
