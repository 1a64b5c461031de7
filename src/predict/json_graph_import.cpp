#include "predict/json_graph_import.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/json_fields.hpp"
#include "core/json_file.hpp"
#include "core/text_file.hpp"
#include "core/unique_keys_parser.hpp"
#include "predict/onnx_import.hpp"

namespace jouleprof::predict {
namespace {

using Json = nlohmann::json;

// An nn-Meter model file of 100 000 nodes is about 20 MB; the document parsed takes several times
// its text.
constexpr std::uint64_t kMaxModelJsonBytes = std::uint64_t{256} << 20;

// A model file's objects are walked in the file's order, so that kernels and models are listed as
// written. nlohmann's ordered_json finds each key by a linear search while it parses, which made a
// 100 000-node graph take minutes (issue 30, class 6); the plain document, with the order of the
// keys of its first two levels taken from the parser, reads in O(N log N).
struct FileOrder {
  std::vector<std::string> top;                  // the document's keys
  std::vector<std::vector<std::string>> nested;  // nested[i]: the keys of top[i]'s object
};

struct ModelFile {
  Json doc;
  FileOrder order;
};

// The DOM builder every reader uses, which also notes the keys of the first two levels as they
// come. (nlohmann's parse callback would do the same, but it scans the parent object at every
// nested object's end, which is quadratic again.) A key given twice stops the parse before it is
// noted, so the order lists each key of the document once.
class OrderNotingParser : public UniqueKeysParser {
 public:
  OrderNotingParser(Json& document, FileOrder& order) : UniqueKeysParser(document), order_(order) {}
  bool key(std::string& name) {
    if (!UniqueKeysParser::key(name)) return false;
    if (open_objects() == 1) {
      order_.top.push_back(name);
      order_.nested.emplace_back();
    } else if (open_objects() == 2 && !order_.nested.empty()) {
      order_.nested.back().push_back(name);
    }
    return true;
  }

 private:
  FileOrder& order_;
};

Result<ModelFile> read_model_file(const std::filesystem::path& path) {
  JP_TRY(const std::string text,
         read_text_file(path.string(), "model JSON file", kMaxModelJsonBytes));
  ModelFile file;
  try {
    OrderNotingParser parser(file.doc, file.order);
    Json::sax_parse(text, &parser);
    if (parser.repeated_key()) return repeated_key_error(path.string(), "", *parser.repeated_key());
  } catch (const Json::exception& e) {
    return not_json_error(path.string(), text, e.what());
  }
  return file;
}

bool is_graph_node(const Json& v) {
  return v.is_object() && v.contains("inbounds") && v.contains("attr");
}
bool is_layer(const Json& v) { return v.is_object() && v.contains("op"); }

// `object` is a non-empty object whose first value in the file (`keys` in file order) satisfies
// `pred` (the files are uniform, so the first entry tells the format).
template <typename Pred>
bool first_entry_is(const Json& object, const std::vector<std::string>& keys, Pred pred) {
  return object.is_object() && !keys.empty() && pred(object.at(keys.front()));
}

// Whether the file is an object of objects whose first entries satisfy `pred`.
template <typename Pred>
bool first_nested_entry_is(const ModelFile& file, Pred pred) {
  return first_entry_is(file.doc, file.order.top, [&](const Json& first) {
    return first_entry_is(first, file.order.nested.front(), pred);
  });
}

// "<where>[<i>]", spelled only for an error.
auto indexed_path(const std::string& where, std::size_t i) {
  return [&where, i] { return fmt::format("{}[{}]", where, i); };
}

Result<std::vector<std::int64_t>> dims_of(const JsonFields& f, const std::string& where,
                                          const Json& shape) {
  JP_TRY(const Json* list, f.array(shape, where));
  std::vector<std::int64_t> dims;
  for (std::size_t i = 0; i < list->size(); ++i) {
    JP_TRY(const std::int64_t d, f.value<std::int64_t>((*list)[i], indexed_path(where, i)));
    dims.push_back(d);
  }
  JP_RETURN_IF_ERROR(check_dims(dims, f.origin(), where));
  return dims;
}

// Spatial size from a kernel_shape/strides list: [k], [kh, kw], or TensorFlow's [1, s, s, 1]; 0
// when absent.
Result<int> spatial(const JsonFields& f, const Json& attr, const std::string& where,
                    const char* key, TensorLayout layout) {
  const Json* v = JsonFields::find(attr, key);
  const std::string at = JsonFields::child(where, key);
  if (v == nullptr) return 0;
  if (!v->is_array()) return f.value<int>(*v, at);
  if (v->empty()) return 0;
  const std::size_t i = v->size() == 4 ? (layout == TensorLayout::kNhwc ? 1 : 2) : 0;
  return f.value<int>((*v)[i], indexed_path(at, i));
}

// `prefix` is the graph's name in a file of several graphs, "" in a file of one.
Result<ModelGraph> graph_from_json(const JsonFields& f, const std::string& prefix,
                                   const std::string& name, const Json& nodes,
                                   const std::vector<std::string>& node_names,
                                   TensorLayout default_layout) {
  static const Json kNoAttributes = Json::object();
  ModelGraph graph;
  graph.name = name;
  graph.nodes.reserve(node_names.size());
  for (const std::string& node_name : node_names) {
    const Json& node = nodes.at(node_name);
    const std::string where = JsonFields::child(prefix, node_name);
    const std::string attr_at = where + ".attr";
    JP_TRY(const Json* attr, f.object(node, "attr", where));
    GraphNode n;
    n.name = node_name;
    JP_TRY(n.op_type, f.get<std::string>(*attr, "type", attr_at));
    const std::string inner_at = attr_at + ".attr";
    const Json* inner = &kNoAttributes;
    if (const Json* given = JsonFields::find(*attr, "attr")) {
      JP_TRY(inner, f.object(*given, inner_at));
    }
    TensorLayout layout = default_layout;
    JP_TRY(const std::optional<std::string> data_format,
           f.optional<std::string>(*inner, "data_format", inner_at));
    if (data_format) {
      JP_TRY(layout, tensor_layout_from_string(*data_format));
    }
    JP_TRY(const Json* inbounds, f.array(node, "inbounds", where));
    const std::string inbounds_at = where + ".inbounds";
    for (std::size_t i = 0; i < inbounds->size(); ++i) {
      JP_TRY(std::string input, f.value<std::string>((*inbounds)[i], indexed_path(inbounds_at, i)));
      n.inputs.push_back(std::move(input));
    }
    if (const Json* shapes = JsonFields::find(*attr, "input_shape")) {
      const std::string shapes_at = attr_at + ".input_shape";
      JP_TRY(const Json* list, f.array(*shapes, shapes_at));
      for (std::size_t i = 0; i < list->size(); ++i) {
        JP_TRY(auto dims, dims_of(f, fmt::format("{}[{}]", shapes_at, i), (*list)[i]));
        n.input_shapes.push_back(shape_from_dims(dims, layout));
      }
    }
    if (const Json* shapes = JsonFields::find(*attr, "output_shape")) {
      const std::string shapes_at = attr_at + ".output_shape";
      JP_TRY(const Json* list, f.array(*shapes, shapes_at));
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
Result<ModelKernels> kernels_from_layers(const JsonFields& f, const std::string& prefix,
                                         const std::string& name, const Json& layers,
                                         const std::vector<std::string>& layer_names) {
  ModelKernels model{name, "kernel-list", {}};
  for (const std::string& layer_name : layer_names) {
    const Json& layer = layers.at(layer_name);
    const std::string where = JsonFields::child(prefix, layer_name);
    DetectedKernel k;
    k.members = {layer_name};
    k.config.name = layer_name;
    JP_TRY(k.config.op, f.get<std::string>(layer, "op", where));
    JP_TRY(k.config.cin, f.get_or<int>(layer, "cin", where, 0));
    JP_TRY(k.config.cout, f.get_or<int>(layer, "cout", where, 0));
    JP_TRY(k.config.kernel_size, f.get_or<int>(layer, "ks", where, 0));
    JP_TRY(k.config.stride, f.get_or<int>(layer, "stride", where, 0));
    JP_TRY(k.config.hw, f.get_or<int>(layer, "inputh", where, 0));
    if (const Json* cins = JsonFields::find(layer, "cins")) {
      const std::string cins_at = where + ".cins";
      JP_TRY(const Json* list, f.array(*cins, cins_at));
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

namespace {

Result<std::vector<ModelGraph>> graphs_of(const ModelFile& file, const std::filesystem::path& path,
                                          TensorLayout default_layout) {
  const std::string file_name = path.string();
  const JsonFields f(file_name);  // holds a view of the name
  std::vector<ModelGraph> graphs;
  if (first_entry_is(file.doc, file.order.top, is_graph_node)) {
    JP_TRY(auto g,
           graph_from_json(f, "", path.stem().string(), file.doc, file.order.top, default_layout));
    graphs.push_back(std::move(g));
  } else if (first_nested_entry_is(file, is_graph_node)) {
    for (std::size_t i = 0; i < file.order.top.size(); ++i) {
      const std::string& name = file.order.top[i];
      JP_TRY(auto g, graph_from_json(f, name, name, file.doc.at(name), file.order.nested[i],
                                     default_layout));
      graphs.push_back(std::move(g));
    }
  } else {
    return f.bad_value("(document)", file.doc,
                       "is not an nn-Meter graph (nodes need inbounds and attr)");
  }
  return graphs;
}

}  // namespace

Result<std::vector<ModelGraph>> import_nnmeter_graphs(const std::filesystem::path& path,
                                                      TensorLayout default_layout) {
  JP_TRY(const ModelFile file, read_model_file(path));
  return graphs_of(file, path, default_layout);
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
  JP_TRY(const ModelFile file, read_model_file(path));
  const std::string file_name = path.string();
  const JsonFields f(file_name);  // holds a view of the name
  if (first_entry_is(file.doc, file.order.top, is_layer)) {
    JP_TRY(auto m, kernels_from_layers(f, "", path.stem().string(), file.doc, file.order.top));
    models.push_back(std::move(m));
    return models;
  }
  if (first_nested_entry_is(file, is_layer)) {
    for (std::size_t i = 0; i < file.order.top.size(); ++i) {
      const std::string& name = file.order.top[i];
      JP_TRY(auto m, kernels_from_layers(f, name, name, file.doc.at(name), file.order.nested[i]));
      models.push_back(std::move(m));
    }
    return models;
  }
  JP_TRY(auto graphs, graphs_of(file, path, options.layout.value_or(TensorLayout::kNhwc)));
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
