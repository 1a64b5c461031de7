#include "predict/onnx_import.hpp"

#ifdef JOULEPROF_HAS_ONNX
#include <fmt/format.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "core/text_file.hpp"
#include "predict/kernel_detector.hpp"
#endif

namespace jouleprof::predict {

#ifdef JOULEPROF_HAS_ONNX
namespace {

using Dims = std::vector<std::int64_t>;

// Protobuf refuses a message over 2 GiB, so no ONNX model with its weights inside is larger (bigger
// models keep their weights in external files, which are not read). A larger file is refused
// before it is read, not after.
constexpr std::uint64_t kMaxOnnxBytes = std::uint64_t{2} << 30;

std::optional<Dims> known_dims(const onnx::ValueInfoProto& info) {
  if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return std::nullopt;
  Dims dims;
  const auto& shape = info.type().tensor_type().shape();
  for (int d = 0; d < shape.dim_size(); ++d) {
    if (shape.dim(d).has_dim_value()) {
      dims.push_back(shape.dim(d).dim_value());
    } else if (d == 0) {
      dims.push_back(1);  // symbolic batch
    } else {
      return std::nullopt;
    }
  }
  return dims;
}

const onnx::AttributeProto* attribute(const onnx::NodeProto& node, std::string_view name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int first_int(const onnx::AttributeProto* a, int fallback) {
  if (a == nullptr) return fallback;
  if (a->ints_size() > 0) return static_cast<int>(a->ints(0));
  if (a->type() == onnx::AttributeProto::INT) return static_cast<int>(a->i());
  return fallback;
}

// libonnx's shape inference divides by strides and dilations unchecked (found by
// fuzz/onnx_fuzz.cpp: a Conv with stride 0 ends the process with SIGFPE), so a graph whose
// convolution or pooling attributes are not positive is refused before it gets there.
Status check_window_attributes(const onnx::GraphProto& graph, const std::string& file) {
  for (int n = 0; n < graph.node_size(); ++n) {
    const onnx::NodeProto& node = graph.node(n);
    for (const char* name : {"strides", "dilations", "kernel_shape"}) {
      const onnx::AttributeProto* a = attribute(node, name);
      if (a == nullptr) continue;
      for (const std::int64_t v : a->ints()) {
        if (v <= 0) {
          return invalid_input(file, fmt::format("graph.node[{}] ({}).{}", n, node.op_type(), name),
                               std::to_string(v), "must be positive");
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

bool onnx_import_available() { return true; }

Result<ModelGraph> import_onnx(const std::filesystem::path& path, TensorLayout layout) {
  const std::string file = path.string();
  JP_TRY(const std::string bytes, read_text_file(file, "ONNX model", kMaxOnnxBytes));
  if (bytes.empty()) return invalid_input(file, "ModelProto", "", "the file is empty");
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes))
    return invalid_input(file, "ModelProto", "", "not a valid ONNX file");
  JP_RETURN_IF_ERROR(check_window_attributes(model.graph(), file));
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 0, true));
  } catch (const std::exception& e) {
    return invalid_input(file, "shape inference", "", e.what());
  }
  const onnx::GraphProto& g = model.graph();

  std::set<std::string> weights;
  std::map<std::string, Dims> weight_dims;
  for (const auto& init : g.initializer()) {
    weights.insert(init.name());
    weight_dims[init.name()] = Dims(init.dims().begin(), init.dims().end());
  }
  std::map<std::string, std::optional<Dims>> shapes;
  for (const auto& v : g.input()) shapes[v.name()] = known_dims(v);
  for (const auto& v : g.value_info()) shapes[v.name()] = known_dims(v);
  for (const auto& v : g.output()) shapes[v.name()] = known_dims(v);

  std::map<std::string, std::string> producer;
  ModelGraph graph;
  graph.name = g.name().empty() ? path.stem().string() : g.name();
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& node = g.node(i);
    const std::string name =
        node.name().empty() ? node.op_type() + "_" + std::to_string(i) : node.name();
    for (const auto& out : node.output()) producer[out] = name;
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& node = g.node(i);
    GraphNode n;
    n.name = node.name().empty() ? node.op_type() + "_" + std::to_string(i) : node.name();
    n.op_type = node.op_type();
    n.groups = first_int(attribute(node, "group"), 1);
    const bool needs_shapes = node.op_type() != "Constant" && node.op_type() != "Shape";
    auto shape_of = [&](const std::string& tensor) -> Result<Dims> {
      auto it = shapes.find(tensor);
      if (it == shapes.end() || !it->second) {
        return invalid_input(file, "node '" + n.name + "' (" + n.op_type + ")", tensor,
                             "tensor has no static shape after ONNX shape inference (give the "
                             "model inputs fixed dimensions)");
      }
      JP_RETURN_IF_ERROR(check_dims(*it->second, file, fmt::format("tensor '{}' shape", tensor)));
      return *it->second;
    };
    for (const auto& input : node.input()) {
      if (input.empty() || weights.contains(input)) continue;
      auto p = producer.find(input);
      n.inputs.push_back(p == producer.end() ? input : p->second);
      if (needs_shapes) {
        JP_TRY(Dims dims, shape_of(input));
        n.input_shapes.push_back(shape_from_dims(dims, layout));
      } else {
        n.input_shapes.push_back(TensorShape{});
      }
    }
    if (needs_shapes && node.output_size() > 0) {
      JP_TRY(Dims dims, shape_of(node.output(0)));
      n.output_shape = shape_from_dims(dims, layout);
    }
    const std::string kind = normalise_op_type(n);
    if (kind == "conv" || kind == "dwconv" || kind == "maxpool" || kind == "avgpool") {
      int kernel = first_int(attribute(node, "kernel_shape"), 0);
      if (kernel == 0 && node.input_size() > 1) {
        auto w = weight_dims.find(node.input(1));
        if (w != weight_dims.end() && w->second.size() == 4)
          kernel = static_cast<int>(w->second[2]);
      }
      n.kernel_size = kernel;
      n.stride = first_int(attribute(node, "strides"), 1);
    }
    graph.nodes.push_back(std::move(n));
  }
  return graph;
}

#else

bool onnx_import_available() { return false; }

Result<ModelGraph> import_onnx(const std::filesystem::path& path, TensorLayout) {
  return Error(ErrorCode::kUnsupported,
               path.string() +
                   ": this jouleprof was built without ONNX support "
                   "(apt-get install libonnx-dev and rebuild with -DJOULEPROF_WITH_ONNX=ON)");
}

#endif

}  // namespace jouleprof::predict
