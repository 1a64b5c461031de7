#include "predict/json_graph_import.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/json_fields.hpp"
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
    // The wording of parse_json (core/json_file.hpp), which reads only unordered documents.
    return Error(ErrorCode::kInvalidInput,
                 fmt::format("{}: not valid JSON: {}", path.string(), e.what()));
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

// "<where>[<i>]", spelled only for an error.
auto indexed_path(const std::string& where, std::size_t i) {
  return [&where, i] { return fmt::format("{}[{}]", where, i); };
}

Result<std::vector<std::int64_t>> dims_of(const OrderedJsonFields& f, const std::string& where,
                                          const OrderedJson& shape) {
  JP_TRY(const OrderedJson* list, f.array(shape, where));
  std::vector<std::int64_t> dims;
  for (std::size_t i = 0; i < list->size(); ++i) {
    JP_TRY(const std::int64_t d, f.value<std::int64_t>((*list)[i], indexed_path(where, i)));
    dims.push_back(d);
  }
  return dims;
}

// Spatial size from a kernel_shape/strides list: [k], [kh, kw], or TensorFlow's [1, s, s, 1]; 0
// when absent.
Result<int> spatial(const OrderedJsonFields& f, const OrderedJson& attr, const std::string& where,
                    const char* key, TensorLayout layout) {
  const OrderedJson* v = OrderedJsonFields::find(attr, key);
  const std::string at = OrderedJsonFields::child(where, key);
  if (v == nullptr) return 0;
  if (!v->is_array()) return f.value<int>(*v, at);
  if (v->empty()) return 0;
  const std::size_t i = v->size() == 4 ? (layout == TensorLayout::kNhwc ? 1 : 2) : 0;
  return f.value<int>((*v)[i], indexed_path(at, i));
}

// `prefix` is the graph's name in a file of several graphs, "" in a file of one.
Result<ModelGraph> graph_from_json(const OrderedJsonFields& f, const std::string& prefix,
                                   const std::string& name, const OrderedJson& nodes,
                                   TensorLayout default_layout) {
  static const OrderedJson kNoAttributes = OrderedJson::object();
  ModelGraph graph;
  graph.name = name;
  for (const auto& [node_name, node] : nodes.items()) {
    const std::string where = OrderedJsonFields::child(prefix, node_name);
    const std::string attr_at = where + ".attr";
    JP_TRY(const OrderedJson* attr, f.object(node, "attr", where));
    GraphNode n;
    n.name = node_name;
    JP_TRY(n.op_type, f.get<std::string>(*attr, "type", attr_at));
    const std::string inner_at = attr_at + ".attr";
    const OrderedJson* inner = &kNoAttributes;
    if (const OrderedJson* given = OrderedJsonFields::find(*attr, "attr")) {
      JP_TRY(inner, f.object(*given, inner_at));
    }
    TensorLayout layout = default_layout;
    JP_TRY(const std::optional<std::string> data_format,
           f.optional<std::string>(*inner, "data_format", inner_at));
    if (data_format) {
      JP_TRY(layout, tensor_layout_from_string(*data_format));
    }
    JP_TRY(const OrderedJson* inbounds, f.array(node, "inbounds", where));
    const std::string inbounds_at = where + ".inbounds";
    for (std::size_t i = 0; i < inbounds->size(); ++i) {
      JP_TRY(std::string input, f.value<std::string>((*inbounds)[i], indexed_path(inbounds_at, i)));
      n.inputs.push_back(std::move(input));
    }
    if (const OrderedJson* shapes = OrderedJsonFields::find(*attr, "input_shape")) {
      const std::string shapes_at = attr_at + ".input_shape";
      JP_TRY(const OrderedJson* list, f.array(*shapes, shapes_at));
      for (std::size_t i = 0; i < list->size(); ++i) {
        JP_TRY(auto dims, dims_of(f, fmt::format("{}[{}]", shapes_at, i), (*list)[i]));
        n.input_shapes.push_back(shape_from_dims(dims, layout));
      }
    }
    if (const OrderedJson* shapes = OrderedJsonFields::find(*attr, "output_shape")) {
      const std::string shapes_at = attr_at + ".output_shape";
      JP_TRY(const OrderedJson* list, f.array(*shapes, shapes_at));
      if (!list->empty()) {
        JP_TRY(auto dims, dims_of(f, shapes_at + "[0]", list->front()));
        n.output_shape = shape_from_dims(dims, layout);
      }
    }
    // Graph inputs (placeholders) carry no input_shape: shapes must still line up with inputs.
    if (!n.inputs.empty() && n.input_shapes.size() != n.inputs.size() && n.op_type != "Const" &&
        n.op_type != "Identity") {
      return f.error(attr_at + ".input_shape",
                     fmt::format("holds {} shapes, not one per inbound node ({})",
                                 n.input_shapes.size(), n.inputs.size()));
    }
    JP_TRY(n.kernel_size, spatial(f, *inner, inner_at, "kernel_shape", layout));
    if (n.kernel_size == 0) {
      JP_TRY(n.kernel_size, spatial(f, *inner, inner_at, "ks", layout));
    }
    JP_TRY(n.stride, spatial(f, *inner, inner_at, "strides", layout));
    JP_TRY(n.groups, f.get_or<int>(*inner, "group", inner_at, 1));
    graph.nodes.push_back(std::move(n));
  }
  return graph;
}

// `prefix` is the model's name in a file of several models, "" in a file of one.
Result<ModelKernels> kernels_from_layers(const OrderedJsonFields& f, const std::string& prefix,
                                         const std::string& name, const OrderedJson& layers) {
  ModelKernels model{name, "kernel-list", {}};
  for (const auto& [layer_name, layer] : layers.items()) {
    const std::string where = OrderedJsonFields::child(prefix, layer_name);
    DetectedKernel k;
    k.members = {layer_name};
    k.config.name = layer_name;
    JP_TRY(k.config.op, f.get<std::string>(layer, "op", where));
    JP_TRY(k.config.cin, f.get_or<int>(layer, "cin", where, 0));
    JP_TRY(k.config.cout, f.get_or<int>(layer, "cout", where, 0));
    JP_TRY(k.config.kernel_size, f.get_or<int>(layer, "ks", where, 0));
    JP_TRY(k.config.stride, f.get_or<int>(layer, "stride", where, 0));
    JP_TRY(k.config.hw, f.get_or<int>(layer, "inputh", where, 0));
    if (const OrderedJson* cins = OrderedJsonFields::find(layer, "cins")) {
      const std::string cins_at = where + ".cins";
      JP_TRY(const OrderedJson* list, f.array(*cins, cins_at));
      for (std::size_t i = 0; i < list->size(); ++i) {
        JP_TRY(const int c, f.value<int>((*list)[i], indexed_path(cins_at, i)));
        k.config.input_channels.push_back(c);
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
  const OrderedJsonFields f(file);
  std::vector<ModelGraph> graphs;
  if (first_entry_is(doc, is_graph_node)) {
    JP_TRY(auto g, graph_from_json(f, "", path.stem().string(), doc, default_layout));
    graphs.push_back(std::move(g));
  } else if (first_entry_is(
                 doc, [](const OrderedJson& v) { return first_entry_is(v, is_graph_node); })) {
    for (const auto& [name, nodes] : doc.items()) {
      JP_TRY(auto g, graph_from_json(f, name, name, nodes, default_layout));
      graphs.push_back(std::move(g));
    }
  } else {
    return f.bad_value("(document)", doc,
                       "is not an nn-Meter graph (nodes need inbounds and attr)");
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
  const OrderedJsonFields f(file);
  if (first_entry_is(doc, is_layer)) {
    JP_TRY(auto m, kernels_from_layers(f, "", path.stem().string(), doc));
    models.push_back(std::move(m));
    return models;
  }
  if (first_entry_is(doc, [](const OrderedJson& v) { return first_entry_is(v, is_layer); })) {
    for (const auto& [name, layers] : doc.items()) {
      JP_TRY(auto m, kernels_from_layers(f, name, name, layers));
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
