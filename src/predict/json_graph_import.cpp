#include "predict/json_graph_import.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/json_brief.hpp"
#include "core/text_file.hpp"
#include "predict/onnx_import.hpp"

namespace jouleprof::predict {
namespace {

// ordered_json keeps the file's order, so kernels and models are listed as written.
using OrderedJson = nlohmann::ordered_json;

Result<OrderedJson> read_json(const std::filesystem::path& path) {
  JP_TRY(const std::string text, read_text_file(path.string(), "model JSON file"));
  try {
    return OrderedJson::parse(text);
  } catch (const OrderedJson::exception& e) {
    return invalid_input(path.string(), "JSON", "", e.what());
  }
}

bool is_graph_node(const OrderedJson& v) {
  return v.is_object() && v.contains("inbounds") && v.contains("attr");
}
bool is_layer(const OrderedJson& v) { return v.is_object() && v.contains("op"); }

// `doc` is a non-empty object whose first value satisfies `pred` (the files are uniform, so the
// first entry tells the format).
template <typename Pred>
bool first_entry_is(const OrderedJson& doc, Pred pred) {
  return doc.is_object() && !doc.empty() && pred(doc.begin().value());
}

Result<std::vector<std::int64_t>> dims_of(const std::string& where, const OrderedJson& shape) {
  if (!shape.is_array())
    return invalid_input(where, "shape", json_brief(shape), "expected a list of dimensions");
  std::vector<std::int64_t> dims;
  for (const OrderedJson& d : shape) {
    if (!d.is_number_integer())
      return invalid_input(where, "shape", json_brief(shape), "dimension is not an integer");
    dims.push_back(d.get<std::int64_t>());
  }
  return dims;
}

// Spatial size from a kernel_shape/strides list: [k], [kh, kw], or TensorFlow's [1, s, s, 1].
int spatial(const OrderedJson& attr, const char* key, TensorLayout layout) {
  auto it = attr.find(key);
  if (it == attr.end()) return 0;
  if (it->is_number_integer()) return it->get<int>();
  if (!it->is_array() || it->empty() || !it->front().is_number_integer()) return 0;
  if (it->size() == 4) return (*it)[layout == TensorLayout::kNhwc ? 1 : 2].get<int>();
  return it->front().get<int>();
}

Result<ModelGraph> graph_from_json(const std::string& file, const std::string& name,
                                   const OrderedJson& nodes, TensorLayout default_layout) {
  ModelGraph graph;
  graph.name = name;
  for (const auto& [node_name, node] : nodes.items()) {
    const std::string where = file + ": node '" + node_name + "'";
    if (!is_graph_node(node)) return invalid_input(where, "inbounds/attr", "", "key missing");
    const OrderedJson& attr = node.at("attr");
    GraphNode n;
    n.name = node_name;
    if (!attr.contains("type") || !attr["type"].is_string()) {
      return invalid_input(where, "attr.type", "", "key missing");
    }
    n.op_type = attr["type"].get<std::string>();
    const OrderedJson inner = attr.value("attr", OrderedJson::object());
    TensorLayout layout = default_layout;
    if (inner.contains("data_format") && inner["data_format"].is_string()) {
      JP_TRY(layout, tensor_layout_from_string(inner["data_format"].get<std::string>()));
    }
    for (const OrderedJson& in : node.at("inbounds")) {
      if (!in.is_string())
        return invalid_input(where, "inbounds", json_brief(in), "expected node names");
      n.inputs.push_back(in.get<std::string>());
    }
    if (attr.contains("input_shape")) {
      for (const OrderedJson& shape : attr["input_shape"]) {
        JP_TRY(auto dims, dims_of(where, shape));
        n.input_shapes.push_back(shape_from_dims(dims, layout));
      }
    }
    if (attr.contains("output_shape") && attr["output_shape"].is_array() &&
        !attr["output_shape"].empty()) {
      JP_TRY(auto dims, dims_of(where, attr["output_shape"][0]));
      n.output_shape = shape_from_dims(dims, layout);
    }
    // Graph inputs (placeholders) carry no input_shape: shapes must still line up with inputs.
    if (!n.inputs.empty() && n.input_shapes.size() != n.inputs.size() && n.op_type != "Const" &&
        n.op_type != "Identity") {
      return invalid_input(
          where, "attr.input_shape", std::to_string(n.input_shapes.size()) + " shapes",
          "needs one shape per inbound node (" + std::to_string(n.inputs.size()) + ")");
    }
    n.kernel_size = spatial(inner, "kernel_shape", layout);
    if (n.kernel_size == 0) n.kernel_size = spatial(inner, "ks", layout);
    n.stride = spatial(inner, "strides", layout);
    n.groups = inner.contains("group") && inner["group"].is_number_integer()
                   ? inner["group"].get<int>()
                   : 1;
    graph.nodes.push_back(std::move(n));
  }
  return graph;
}

int optional_int(const OrderedJson& layer, const char* key) {
  auto it = layer.find(key);
  return it != layer.end() && it->is_number_integer() ? it->get<int>() : 0;
}

Result<ModelKernels> kernels_from_layers(const std::string& file, const std::string& name,
                                         const OrderedJson& layers) {
  ModelKernels model{name, "kernel-list", {}};
  for (const auto& [layer_name, layer] : layers.items()) {
    const std::string where = file + ": " + name + "/" + layer_name;
    if (!is_layer(layer) || !layer["op"].is_string())
      return invalid_input(where, "op", "", "key missing");
    DetectedKernel k;
    k.members = {layer_name};
    k.config.name = layer_name;
    k.config.op = layer["op"].get<std::string>();
    k.config.cin = optional_int(layer, "cin");
    k.config.cout = optional_int(layer, "cout");
    k.config.kernel_size = optional_int(layer, "ks");
    k.config.stride = optional_int(layer, "stride");
    k.config.hw = optional_int(layer, "inputh");
    if (layer.contains("cins") && layer["cins"].is_array()) {
      for (const OrderedJson& c : layer["cins"]) {
        if (!c.is_number_integer())
          return invalid_input(where, "cins", json_brief(c), "not an integer");
        k.config.input_channels.push_back(c.get<int>());
      }
    }
    model.kernels.push_back(std::move(k));
  }
  return model;
}

}  // namespace

Result<std::vector<ModelGraph>> import_nnmeter_graphs(const std::filesystem::path& path,
                                                      TensorLayout default_layout) {
  JP_TRY(OrderedJson doc, read_json(path));
  const std::string file = path.string();
  std::vector<ModelGraph> graphs;
  if (first_entry_is(doc, is_graph_node)) {
    JP_TRY(auto g, graph_from_json(file, path.stem().string(), doc, default_layout));
    graphs.push_back(std::move(g));
  } else if (first_entry_is(
                 doc, [](const OrderedJson& v) { return first_entry_is(v, is_graph_node); })) {
    for (const auto& [name, nodes] : doc.items()) {
      JP_TRY(auto g, graph_from_json(file, name, nodes, default_layout));
      graphs.push_back(std::move(g));
    }
  } else {
    return invalid_input(file, "top level", "",
                         "not an nn-Meter graph (nodes need inbounds and attr)");
  }
  return graphs;
}

namespace {

Result<std::vector<ModelKernels>> read_model_kernels(const std::filesystem::path& path,
                                                     const ModelLoadOptions& options) {
  std::vector<ModelKernels> models;
  if (path.extension() == ".onnx") {
    JP_TRY(ModelGraph graph, import_onnx(path, options.layout.value_or(TensorLayout::kNchw)));
    JP_TRY(auto kernels, detect_kernels(graph, options.detection));
    models.push_back({graph.name, "onnx", std::move(kernels)});
    return models;
  }
  JP_TRY(OrderedJson doc, read_json(path));
  const std::string file = path.string();
  if (first_entry_is(doc, is_layer)) {
    JP_TRY(auto m, kernels_from_layers(file, path.stem().string(), doc));
    models.push_back(std::move(m));
    return models;
  }
  if (first_entry_is(doc, [](const OrderedJson& v) { return first_entry_is(v, is_layer); })) {
    for (const auto& [name, layers] : doc.items()) {
      JP_TRY(auto m, kernels_from_layers(file, name, layers));
      models.push_back(std::move(m));
    }
    return models;
  }
  JP_TRY(auto graphs, import_nnmeter_graphs(path, options.layout.value_or(TensorLayout::kNhwc)));
  for (const ModelGraph& graph : graphs) {
    JP_TRY(auto kernels, detect_kernels(graph, options.detection));
    models.push_back({graph.name, "nn-meter-graph", std::move(kernels)});
  }
  return models;
}

}  // namespace

Result<std::vector<ModelKernels>> load_model_kernels(const std::filesystem::path& path,
                                                     const ModelLoadOptions& options) {
  JP_TRY(std::vector<ModelKernels> models, read_model_kernels(path, options));
  // An empty file or graph would otherwise predict 0 mJ, as if the model cost nothing.
  if (models.empty()) return invalid_input(path.string(), "models", "", "the file holds no model");
  for (const ModelKernels& m : models) {
    if (m.kernels.empty()) {
      return invalid_input(path.string(), "model", m.name, "holds no kernels: nothing to predict");
    }
  }
  return models;
}

}  // namespace jouleprof::predict
