// The large zoo models: reference parameter counts at full size and one observed training step at
// a small input size (minutes under the sanitizers, hence LABELS slow).
#include <gtest/gtest.h>

#include "jouleprof/torch.hpp"
#include "torch/zoo_test_support.hpp"

namespace jouleprof::torch_adapter {
namespace {

TEST(ZooLarge, ReferenceParameterCounts) {
  // Hugging Face's BertModel / AlbertModel (with pooler) plus our 2-class classifier, and
  // torchvision's VGG16.
  for (const auto& [model, count] :
       {std::pair<std::string, std::int64_t>{"bert-base", 109'482'240 + 1'538},
        {"albert-base", 11'683'584 + 1'538},
        {"vgg16", 138'357'544}}) {
    WorkloadOptions o;
    o.model = model;
    o.batch = 1;
    o.seq = 8;
    o.image = 32;
    auto w = make_workload(o);
    ASSERT_TRUE(w.ok()) << w.error().message();
    EXPECT_EQ((*w)->parameter_count(), count) << model;
  }
}

TEST(ZooLarge, BertBaseTrainsOneStep) {
  WorkloadOptions o;
  o.model = "bert-base";
  o.mode = Mode::kTrain;
  o.batch = 1;
  o.seq = 8;
  o.vocab = 500;
  expect_observed_training_step(o);
}

TEST(ZooLarge, ResNet50TrainsOneStep) {
  WorkloadOptions o;
  o.model = "resnet-50";
  o.mode = Mode::kTrain;
  o.batch = 2;
  o.image = 32;
  expect_observed_training_step(o);
}

TEST(ZooLarge, Vgg16TrainsOneStep) {
  WorkloadOptions o;
  o.model = "vgg16";
  o.mode = Mode::kTrain;
  o.batch = 2;
  o.image = 32;
  o.hidden = 64;
  expect_observed_training_step(o);
}

}  // namespace
}  // namespace jouleprof::torch_adapter
