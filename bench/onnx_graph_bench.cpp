// Reading an ONNX model and detecting its kernels must be linear in its nodes too (issue 30,
// class 6, measured for nn-Meter graphs in model_graph_bench.cpp): a convolution followed by a
// chain of N Relu nodes, written with the ONNX protobuf classes, through shape inference, the
// graph's tensor maps and the fusion rules' walk that folds the chain into the convolution's
// kernel.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include "relu_chain_load.hpp"

namespace jouleprof::predict {
namespace {

void add_float_tensor(onnx::ValueInfoProto* value, const std::string& name,
                      std::initializer_list<std::int64_t> dims) {
  value->set_name(name);
  auto* tensor = value->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  for (const std::int64_t d : dims) tensor->mutable_shape()->add_dim()->set_dim_value(d);
}

std::filesystem::path relu_chain_onnx(std::size_t n) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto& g = *model.mutable_graph();
  g.set_name("relu-chain");
  add_float_tensor(g.add_input(), "x", {1, 3, 32, 32});
  onnx::TensorProto* w = g.add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  for (const std::int64_t d : {16, 3, 3, 3}) w->add_dims(d);
  for (int i = 0; i < 16 * 3 * 3 * 3; ++i) w->add_float_data(0.5F);
  onnx::NodeProto* conv = g.add_node();
  conv->set_op_type("Conv");
  conv->set_name("conv");
  conv->add_input("x");
  conv->add_input("w");
  conv->add_output("t0");
  onnx::AttributeProto* pads = conv->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  for (std::size_t i = 0; i < n; ++i) {
    onnx::NodeProto* relu = g.add_node();
    relu->set_op_type("Relu");
    relu->set_name(fmt::format("relu_{}", i));
    relu->add_input(fmt::format("t{}", i));
    relu->add_output(fmt::format("t{}", i + 1));
  }
  add_float_tensor(g.add_output(), fmt::format("t{}", n), {1, 16, 32, 32});
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / fmt::format("jouleprof-relu-chain-{}.onnx", n);
  std::ofstream out(path, std::ios::binary);
  model.SerializeToOstream(&out);
  return path;
}

void BM_LoadOnnxReluChain(benchmark::State& state) { load_relu_chain(state, relu_chain_onnx); }
BENCHMARK(BM_LoadOnnxReluChain)->Apply(relu_chain_sizes);

}  // namespace
}  // namespace jouleprof::predict

BENCHMARK_MAIN();
