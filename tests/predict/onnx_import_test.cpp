#include "predict/onnx_import.hpp"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <fstream>

#include "predict/json_graph_import.hpp"
#include "test_support.hpp"

namespace jouleprof::predict {
namespace {

using jouleprof::testing::TempDir;

void add_input(onnx::GraphProto& g, const std::string& name, std::vector<std::int64_t> dims,
               bool with_shape = true) {
  auto* in = g.add_input();
  in->set_name(name);
  auto* tensor = in->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  if (!with_shape) return;
  auto* shape = tensor->mutable_shape();
  for (auto d : dims) shape->add_dim()->set_dim_value(d);
}

void add_weight(onnx::GraphProto& g, const std::string& name, std::vector<std::int64_t> dims) {
  auto* w = g.add_initializer();
  w->set_name(name);
  w->set_data_type(onnx::TensorProto::FLOAT);
  std::int64_t count = 1;
  for (auto d : dims) {
    w->add_dims(d);
    count *= d;
  }
  for (std::int64_t i = 0; i < count; ++i) w->add_float_data(0.5f);
}

onnx::NodeProto* add_node(onnx::GraphProto& g, const std::string& type, const std::string& name,
                          std::vector<std::string> inputs, const std::string& output) {
  auto* n = g.add_node();
  n->set_op_type(type);
  n->set_name(name);
  for (auto& i : inputs) n->add_input(i);
  n->add_output(output);
  return n;
}

void set_ints(onnx::NodeProto* n, const std::string& name, std::vector<std::int64_t> values) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (auto v : values) a->add_ints(v);
}

void set_int(onnx::NodeProto* n, const std::string& name, std::int64_t value) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

// x[1,3,32,32] → Conv 3×3/2 → BN → Relu → depthwise Conv 3×3 → Relu → GAP → Flatten → Gemm
std::filesystem::path write_model(const TempDir& dir, bool with_shapes) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  auto& g = *model.mutable_graph();
  g.set_name("tiny");
  add_input(g, "x", {1, 3, 32, 32}, with_shapes);
  add_weight(g, "w1", {16, 3, 3, 3});
  for (const char* p : {"scale", "bias", "mean", "var"}) add_weight(g, p, {16});
  add_weight(g, "w2", {16, 1, 3, 3});
  add_weight(g, "w3", {10, 16});
  auto* conv = add_node(g, "Conv", "conv1", {"x", "w1"}, "c1");
  set_ints(conv, "kernel_shape", {3, 3});
  set_ints(conv, "strides", {2, 2});
  set_ints(conv, "pads", {1, 1, 1, 1});
  add_node(g, "BatchNormalization", "bn1", {"c1", "scale", "bias", "mean", "var"}, "b1");
  add_node(g, "Relu", "relu1", {"b1"}, "r1");
  auto* dw = add_node(g, "Conv", "dw", {"r1", "w2"}, "d1");
  set_ints(dw, "pads", {1, 1, 1, 1});
  set_int(dw, "group", 16);
  add_node(g, "Relu", "relu2", {"d1"}, "r2");
  add_node(g, "GlobalAveragePool", "gap", {"r2"}, "g1");
  add_node(g, "Flatten", "flatten", {"g1"}, "f1");
  auto* fc = add_node(g, "Gemm", "fc", {"f1", "w3"}, "y");
  set_int(fc, "transB", 1);
  auto* out = g.add_output();
  out->set_name("y");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  const auto path = dir.path() / (with_shapes ? "tiny.onnx" : "noshape.onnx");
  std::ofstream file(path, std::ios::binary);
  model.SerializeToOstream(&file);
  return path;
}

TEST(OnnxImport, ShapeInferenceAndFusion) {
  TempDir dir;
  ModelLoadOptions options;
  options.detection.rules =
      FusionRules({{"BF_conv_bn", true}, {"BF_bn_relu", true}, {"BF_dwconv_relu", true}});
  auto models = load_model_kernels(write_model(dir, true), options);
  ASSERT_TRUE(models.ok()) << models.error().message();
  const auto& kernels = models->front().kernels;
  std::vector<std::string> ops;
  for (const auto& k : kernels) ops.push_back(k.config.op);
  ASSERT_EQ(ops, (std::vector<std::string>{"conv-bn-relu", "dwconv-relu", "gap", "fc"}));
  const KernelConfig& conv = kernels[0].config;
  EXPECT_EQ(conv.hw, 32);
  EXPECT_EQ(conv.cin, 3);
  EXPECT_EQ(conv.cout, 16);
  EXPECT_EQ(conv.kernel_size, 3);
  EXPECT_EQ(conv.stride, 2);
  const KernelConfig& dwconv = kernels[1].config;
  EXPECT_EQ(dwconv.hw, 16);          // inferred by ONNX: (32 + 2 − 3)/2 + 1
  EXPECT_EQ(dwconv.kernel_size, 3);  // from the weight's shape: no kernel_shape attribute
  EXPECT_EQ(dwconv.stride, 1);
  EXPECT_EQ(kernels[3].config.cin, 16);
  EXPECT_EQ(kernels[3].config.cout, 10);
}

TEST(OnnxImport, ModelWithoutShapesIsAClearError) {
  TempDir dir;
  auto graph = import_onnx(write_model(dir, false));
  ASSERT_FALSE(graph.ok());
  const std::string& m = graph.error().message();
  EXPECT_NE(m.find("noshape.onnx"), std::string::npos) << m;
  EXPECT_NE(m.find("conv1"), std::string::npos) << m;
  EXPECT_NE(m.find("no static shape"), std::string::npos) << m;
}

TEST(OnnxImport, NotAnOnnxFile) {
  TempDir dir;
  auto graph = import_onnx(dir.write("junk.onnx", "this is not protobuf \xff\xff\xff"));
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.error().message().find("junk.onnx"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof::predict
