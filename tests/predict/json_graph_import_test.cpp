#include "predict/json_graph_import.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace jouleprof::predict {
namespace {

using jouleprof::testing::TempDir;

// An nn-Meter IR fragment (TensorFlow, NHWC): conv → bn → relu.
const char* kNnMeterGraph = R"({
  "input_im_0": {"inbounds": [], "attr": {"name": "input_im_0", "type": "Placeholder",
                 "output_shape": [[1, 224, 224, 3]], "attr": {}}, "outbounds": ["conv"]},
  "conv": {"inbounds": ["input_im_0"], "attr": {"name": "conv", "type": "Conv2D",
           "input_shape": [[1, 224, 224, 3]], "output_shape": [[1, 112, 112, 32]],
           "attr": {"data_format": "NHWC", "strides": [1, 2, 2, 1], "kernel_shape": [3, 3]}},
           "outbounds": ["bn"]},
  "bn": {"inbounds": ["conv"], "attr": {"name": "bn", "type": "FusedBatchNormV3",
         "input_shape": [[1, 112, 112, 32]], "output_shape": [[1, 112, 112, 32]], "attr": {}},
         "outbounds": ["relu"]},
  "relu": {"inbounds": ["bn"], "attr": {"name": "relu", "type": "Relu6",
           "input_shape": [[1, 112, 112, 32]], "output_shape": [[1, 112, 112, 32]], "attr": {}},
           "outbounds": []}
})";

ModelLoadOptions options_with_rules() {
  ModelLoadOptions o;
  o.detection.rules = FusionRules({{"BF_conv_bn", true}, {"BF_bn_relu", true}});
  return o;
}

TEST(JsonGraphImport, NnMeterGraphNhwc) {
  TempDir dir;
  auto models = load_model_kernels(dir.write("g.json", kNnMeterGraph), options_with_rules());
  ASSERT_TRUE(models.ok()) << models.error().message();
  ASSERT_EQ(models->size(), 1u);
  const auto& kernels = models->front().kernels;
  EXPECT_EQ(models->front().format, "nn-meter-graph");
  // The placeholder is dropped as a no-op; the conv block is fused.
  ASSERT_EQ(kernels.size(), 1u);
  const KernelConfig& k = kernels[0].config;
  EXPECT_EQ(k.op, "conv-bn-relu");
  EXPECT_EQ(k.hw, 224);
  EXPECT_EQ(k.cin, 3);
  EXPECT_EQ(k.cout, 32);
  EXPECT_EQ(k.kernel_size, 3);
  EXPECT_EQ(k.stride, 2);
}

TEST(JsonGraphImport, NchwShapesAreNormalised) {
  const std::vector<std::int64_t> nchw{1, 32, 112, 112};
  const TensorShape s = shape_from_dims(nchw, TensorLayout::kNchw);
  EXPECT_EQ(s.c, 32);
  EXPECT_EQ(s.h, 112);
  const std::vector<std::int64_t> nhwc{1, 112, 112, 32};
  EXPECT_EQ(shape_from_dims(nhwc, TensorLayout::kNhwc).c, 32);
}

TEST(JsonGraphImport, MissingTypeIsNamed) {
  TempDir dir;
  auto models = load_model_kernels(
      dir.write("g.json",
                R"({"conv": {"inbounds": [], "attr": {"name": "conv"}, "outbounds": []}})"),
      options_with_rules());
  ASSERT_FALSE(models.ok());
  EXPECT_NE(models.error().message().find("attr.type"), std::string::npos)
      << models.error().message();
}

// A node given twice: the document holds the second, the file's order the first node's keys; the
// reader walked one with the other's keys and threw (fuzz/crashes/nnmeter_json).
TEST(JsonGraphImport, ANodeGivenTwiceIsRefused) {
  TempDir dir;
  const auto path = dir.write("g.json", R"({
    "relu": {"inbounds": [], "attr": {"type": "Relu"}, "outbounds": []},
    "relu": {"inputs": [], "attr": {"type": "Relu"}, "outbounds": []}})");
  auto models = load_model_kernels(path, options_with_rules());
  ASSERT_FALSE(models.ok());
  EXPECT_EQ(models.error().message(),
            path.string() +
                ": key 'relu' appears twice in one object, and JSON does not say which value "
                "holds");
}

TEST(JsonGraphImport, KernelListOfOneModel) {
  TempDir dir;
  auto models = load_model_kernels(
      dir.write("m.json",
                R"({"layer1": {"op": "conv-bn-relu", "cin": 3, "cout": 32, "ks": 3, "stride": 2,
                                         "inputh": 224, "inputw": 224},
                              "layer2": {"op": "fc", "cin": 1024, "cout": 1000, "ks": null, "stride": null,
                                         "inputh": null, "inputw": null}})"),
      options_with_rules());
  ASSERT_TRUE(models.ok()) << models.error().message();
  ASSERT_EQ(models->front().kernels.size(), 2u);
  EXPECT_EQ(models->front().kernels[0].config.name, "layer1");
  EXPECT_EQ(models->front().kernels[1].config.cout, 1000);
  EXPECT_EQ(models->front().kernels[1].config.kernel_size, 0);
}

// Models, layers and graph nodes are listed as the file writes them, not sorted by name (the
// document is read unordered for speed; its keys' order is noted while parsing).
TEST(JsonGraphImport, EverythingKeepsTheFilesOrder) {
  TempDir dir;
  auto models =
      load_model_kernels(dir.write("m.json", R"({"zeta": {"z2": {"op": "fc", "cin": 8, "cout": 4},
                                       "a1": {"op": "fc", "cin": 4, "cout": 2}},
                              "alpha": {"only": {"op": "fc", "cin": 2, "cout": 1}}})"),
                         options_with_rules());
  ASSERT_TRUE(models.ok()) << models.error().message();
  ASSERT_EQ(models->size(), 2u);
  EXPECT_EQ((*models)[0].name, "zeta");
  EXPECT_EQ((*models)[0].kernels[0].config.name, "z2");
  EXPECT_EQ((*models)[0].kernels[1].config.name, "a1");
  EXPECT_EQ((*models)[1].name, "alpha");

  // Two independent branches: the one the file gives first comes first.
  const char* branches = R"({
    "x": {"inbounds": [], "attr": {"type": "Placeholder", "output_shape": [[1, 8, 8, 3]],
          "attr": {}}, "outbounds": ["zconv", "aconv"]},
    "zconv": {"inbounds": ["x"], "attr": {"type": "Conv2D", "input_shape": [[1, 8, 8, 3]],
              "output_shape": [[1, 8, 8, 4]], "attr": {"kernel_shape": [3, 3]}}, "outbounds": []},
    "aconv": {"inbounds": ["x"], "attr": {"type": "Conv2D", "input_shape": [[1, 8, 8, 3]],
              "output_shape": [[1, 8, 8, 5]], "attr": {"kernel_shape": [1, 1]}}, "outbounds": []}
  })";
  auto graph = load_model_kernels(dir.write("g.json", branches), options_with_rules());
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  ASSERT_EQ(graph->front().kernels.size(), 2u);
  EXPECT_EQ(graph->front().kernels[0].config.name, "zconv");
  EXPECT_EQ(graph->front().kernels[1].config.name, "aconv");
}

// A long chain folds into one kernel, member by member (the detector's deepest walk; its speed
// is bench/model_graph_bench's).
TEST(JsonGraphImport, AChainOfAThousandReluNodesFoldsIntoItsConvolution) {
  std::string text = R"({"conv": {"inbounds": [], "attr": {"type": "Conv2D",)"
                     R"( "input_shape": [[1, 8, 8, 3]], "output_shape": [[1, 8, 8, 4]],)"
                     R"( "attr": {"kernel_shape": [3, 3]}}, "outbounds": ["r0"]})";
  for (int i = 0; i < 1000; ++i) {
    text += ", \"r" + std::to_string(i) + "\": {\"inbounds\": [\"" +
            (i == 0 ? std::string("conv") : "r" + std::to_string(i - 1)) +
            "\"], \"attr\": {\"type\": \"Relu\", \"input_shape\": [[1, 8, 8, 4]], "
            "\"output_shape\": [[1, 8, 8, 4]], \"attr\": {}}, \"outbounds\": []}";
  }
  text += "}";
  TempDir dir;
  ModelLoadOptions options;
  options.detection.rules = FusionRules({{"BF_conv_relu", true}, {"BF_relu_relu", true}});
  auto models = load_model_kernels(dir.write("chain.json", text), options);
  ASSERT_TRUE(models.ok()) << models.error().message();
  const auto& kernels = models->front().kernels;
  ASSERT_FALSE(kernels.empty());
  EXPECT_EQ(kernels.front().config.name, "conv");
  std::size_t members = 0;
  for (const DetectedKernel& k : kernels) members += k.members.size();
  EXPECT_EQ(members, 1001u) << "every node is in exactly one kernel";
}

TEST(JsonGraphImport, MobileNetV1Variants) {
  JP_REQUIRE_SHARED_DATA("deepen2023/models/mobilenetv1-variants.json");
  auto models = load_model_kernels(
      jouleprof::testing::shared_data() / "deepen2023/models/mobilenetv1-variants.json",
      options_with_rules());
  ASSERT_TRUE(models.ok()) << models.error().message();
  ASSERT_EQ(models->size(), 201u);
  EXPECT_EQ(models->front().name, "mobilenetv1_0");
  const auto& first = models->front().kernels.front().config;  // file order is kept
  EXPECT_EQ(first.name, "layer1");
  EXPECT_EQ(first.hw, 224);
  EXPECT_EQ(first.cout, 32);
  for (const auto& m : *models) {
    for (const auto& k : m.kernels) {
      EXPECT_TRUE(features_of(k.config).ok()) << m.name << " " << k.config.name;
    }
  }
}

TEST(JsonGraphImport, AModelWithoutKernelsIsAnError) {
  TempDir dir;
  for (const char* text : {"{}", R"({"empty_model": {}})"}) {
    auto models = load_model_kernels(dir.write("m.json", text), options_with_rules());
    EXPECT_FALSE(models.ok()) << text << " must not predict 0 mJ";
  }
  auto onnx = load_model_kernels(dir.write("m.onnx", ""), options_with_rules());
  ASSERT_FALSE(onnx.ok());
  EXPECT_NE(onnx.error().message().find("the file is empty"), std::string::npos)
      << onnx.error().message();
}

}  // namespace
}  // namespace jouleprof::predict
