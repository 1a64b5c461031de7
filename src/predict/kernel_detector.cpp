#include "predict/kernel_detector.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <queue>

namespace jouleprof::predict {
namespace {

// Inputs produced outside the graph (model inputs) get distinct negative ids, so two blocks
// reading different model inputs are not mistaken for one reading the same tensor.
int external_input_id(std::size_t k) { return -static_cast<int>(k) - 1; }
// only_input()'s answer for a node without exactly one input.
constexpr int kNoSingleInput = std::numeric_limits<int>::min();

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return out;
}

// The graph during detection: one entry per (possibly fused) kernel candidate.
struct Work {
  std::string op;
  std::string first_op, last_op;
  std::vector<std::string> members;
  std::vector<int> inputs;  // indices into the work list; negative ids for model inputs
  std::vector<TensorShape> in_shapes;
  TensorShape out_shape;
  int kernel_size = 0;
  int stride = 0;
  bool alive = true;
};

// Every step is linear in the graph (issue 30, class 6): who consumes a node is kept in an index,
// not searched for. The index only ever grows; an entry whose consumer died or no longer reads
// the node is dropped when next read, so each costs its removal once.
class Detector {
 public:
  Detector(std::vector<Work> work, const DetectionOptions& options)
      : work_(std::move(work)), options_(options), consumers_of_(work_.size()) {
    for (int i = 0; i < static_cast<int>(work_.size()); ++i) note_inputs(i);
  }

  std::vector<DetectedKernel> run() {
    drop_constants();
    fuse_se_blocks();
    fuse_hswish_blocks();
    fuse_channelshuffle_blocks();
    drop_no_ops();
    fuse_by_rules();
    return kernels();
  }

 private:
  void note_inputs(int consumer) {
    for (int in : work_[consumer].inputs) {
      if (in >= 0) consumers_of_[static_cast<std::size_t>(in)].push_back(consumer);
    }
  }

  bool reads(int consumer, int index) const {
    const std::vector<int>& in = work_[consumer].inputs;
    return std::find(in.begin(), in.end(), index) != in.end();
  }

  // The live nodes that read `index`, in work order, each once.
  std::vector<int> consumers(int index) const {
    std::vector<int>& noted = consumers_of_[static_cast<std::size_t>(index)];
    std::sort(noted.begin(), noted.end());
    noted.erase(std::unique(noted.begin(), noted.end()), noted.end());
    std::erase_if(noted, [&](int c) { return !work_[c].alive || !reads(c, index); });
    return noted;
  }

  bool single_consumer(int index, int consumer) const {
    auto c = consumers(index);
    return c.size() == 1 && c[0] == consumer;
  }

  const std::string& op(int index) const { return work_[index].op; }
  bool is(int index, std::string_view name) const {
    return index >= 0 && work_[index].alive && work_[index].op == name;
  }
  int only_input(int index) const {
    return index >= 0 && work_[index].inputs.size() == 1 ? work_[index].inputs[0] : kNoSingleInput;
  }

  void replace_input(int from, int to) {
    std::vector<int> readers;
    readers.swap(consumers_of_[static_cast<std::size_t>(from)]);
    for (int c : readers) {
      std::replace(work_[c].inputs.begin(), work_[c].inputs.end(), from, to);
      if (to >= 0) consumers_of_[static_cast<std::size_t>(to)].push_back(c);
    }
  }

  // Removes node i from every consumer's inputs (with the matching input shape).
  void drop_input(int i) {
    std::vector<int> readers;
    readers.swap(consumers_of_[static_cast<std::size_t>(i)]);
    for (int c : readers) {
      Work& w = work_[c];
      for (std::size_t k = w.inputs.size(); k-- > 0;) {
        if (w.inputs[k] != i) continue;
        w.inputs.erase(w.inputs.begin() + static_cast<std::ptrdiff_t>(k));
        if (k < w.in_shapes.size())
          w.in_shapes.erase(w.in_shapes.begin() + static_cast<std::ptrdiff_t>(k));
      }
    }
  }

  // Constants are weights, not work: they and the inputs they feed disappear.
  void drop_constants() {
    for (int i = 0; i < static_cast<int>(work_.size()); ++i) {
      if (op(i) != "const") continue;
      work_[i].alive = false;
      drop_input(i);
    }
  }

  // Replaces `members` (in order, the last one the block's output) by one work entry named
  // `name` whose inputs are `entry`'s and whose input shape is `entry`'s.
  void fuse_block(const std::vector<int>& members, int entry, const std::string& name) {
    const int last = members.back();
    Work fused;
    fused.op = fused.first_op = fused.last_op = name;
    for (int m : members) {
      fused.members.insert(fused.members.end(), work_[m].members.begin(), work_[m].members.end());
    }
    fused.inputs = work_[entry].inputs;
    fused.in_shapes = work_[entry].in_shapes;
    fused.out_shape = work_[last].out_shape;
    for (int m : members) work_[m].alive = false;
    work_[last] = std::move(fused);
    note_inputs(last);
  }

  // Every member but the last feeds only other members.
  bool closed(const std::vector<int>& members) const {
    for (std::size_t i = 0; i + 1 < members.size(); ++i) {
      for (int c : consumers(members[i])) {
        if (std::find(members.begin(), members.end(), c) == members.end()) return false;
      }
    }
    return true;
  }

  // mul(x, f(gap(x))) with f a short single-input chain.
  void fuse_se_blocks() {
    static const std::set<std::string> kChainOps{
        "conv", "fc",      "relu",    "hsigmoid", "sigmoid",   "add",   "mul",
        "div",  "reshape", "flatten", "squeeze",  "unsqueeze", "hswish"};
    for (int m = 0; m < static_cast<int>(work_.size()); ++m) {
      if (!is(m, "mul") || work_[m].inputs.size() != 2) continue;
      for (int side = 0; side < 2; ++side) {
        const int x = work_[m].inputs[static_cast<std::size_t>(side)];
        int cursor = work_[m].inputs[static_cast<std::size_t>(1 - side)];
        std::vector<int> chain;
        while (cursor >= 0 && work_[cursor].alive &&
               static_cast<int>(chain.size()) <= options_.max_se_chain) {
          chain.push_back(cursor);
          if (op(cursor) == "gap") break;
          if (!kChainOps.contains(op(cursor)) || work_[cursor].inputs.size() != 1) break;
          cursor = work_[cursor].inputs[0];
        }
        if (chain.empty() || op(chain.back()) != "gap" || only_input(chain.back()) != x) continue;
        std::vector<int> members(chain.rbegin(), chain.rend());
        members.push_back(m);
        if (!closed(members)) continue;
        fuse_block(members, members.front(), "se");
        break;
      }
    }
  }

  // x·hsigmoid(x) and x·relu6(x + 3)/6 (the constants are weights, so add has one data input).
  void fuse_hswish_blocks() {
    for (int m = 0; m < static_cast<int>(work_.size()); ++m) {
      if (!is(m, "mul") || work_[m].inputs.size() != 2) continue;
      for (int side = 0; side < 2; ++side) {
        const int x = work_[m].inputs[static_cast<std::size_t>(side)];
        const int gate = work_[m].inputs[static_cast<std::size_t>(1 - side)];
        std::vector<int> members;
        if (is(gate, "hsigmoid") && only_input(gate) == x) {
          members = {gate, m};
        } else if (is(gate, "relu") && is(only_input(gate), "add") &&
                   only_input(only_input(gate)) == x) {
          members = {only_input(gate), gate, m};
          auto after = consumers(m);
          if (after.size() == 1 && (is(after[0], "div") || is(after[0], "mul")) &&
              work_[after[0]].inputs.size() == 1) {
            members.push_back(after[0]);
          }
        }
        if (members.empty() || !closed(members)) continue;
        fuse_block(members, members.front(), "hswish");
        break;
      }
    }
  }

  void fuse_channelshuffle_blocks() {
    for (int t = 0; t < static_cast<int>(work_.size()); ++t) {
      if (!is(t, "transpose")) continue;
      const int before = only_input(t);
      auto after = consumers(t);
      if (!is(before, "reshape") || after.size() != 1 || !is(after[0], "reshape")) continue;
      std::vector<int> members{before, t, after[0]};
      if (!closed(members)) continue;
      fuse_block(members, before, "channelshuffle");
    }
  }

  void drop_no_ops() {
    for (int i = 0; i < static_cast<int>(work_.size()); ++i) {
      if (!work_[i].alive || !options_.no_op_types.contains(op(i)) || work_[i].inputs.size() > 1)
        continue;
      work_[i].alive = false;
      // A source no-op (a placeholder) becomes a model input of its consumers.
      replace_input(i, work_[i].inputs.empty()
                           ? external_input_id(work_.size() + static_cast<std::size_t>(i))
                           : work_[i].inputs[0]);
    }
  }

  void fuse_by_rules() {
    for (int a = 0; a < static_cast<int>(work_.size()); ++a) {
      if (!work_[a].alive) continue;
      for (;;) {
        auto next = consumers(a);
        if (next.size() != 1) break;
        const int b = next[0];
        if (work_[b].inputs.size() != 1 ||
            !options_.rules.fusible(work_[a].last_op, work_[b].first_op)) {
          break;
        }
        Work& producer = work_[a];
        Work& consumer = work_[b];
        producer.op += "-" + consumer.op;
        producer.last_op = consumer.last_op;
        producer.members.insert(producer.members.end(), consumer.members.begin(),
                                consumer.members.end());
        producer.out_shape = consumer.out_shape;
        if (producer.kernel_size == 0) {
          producer.kernel_size = consumer.kernel_size;
          producer.stride = consumer.stride;
        }
        consumer.alive = false;
        replace_input(b, a);
      }
    }
  }

  std::vector<DetectedKernel> kernels() const {
    std::vector<DetectedKernel> out;
    for (const Work& w : work_) {
      if (!w.alive) continue;
      DetectedKernel k;
      k.members = w.members;
      k.config.name = w.members.front();
      k.config.op = w.op;
      const TensorShape in = w.in_shapes.empty() ? w.out_shape : w.in_shapes.front();
      k.config.hw = static_cast<int>(in.h);
      k.config.cin = static_cast<int>(in.c);
      k.config.cout = static_cast<int>(w.out_shape.c);
      k.config.kernel_size = w.kernel_size;
      k.config.stride = w.stride;
      const FeatureSet set = feature_set_of(predictor_type(w.op));
      if (set == FeatureSet::kAdd || set == FeatureSet::kConcat) {
        for (const TensorShape& s : w.in_shapes)
          k.config.input_channels.push_back(static_cast<int>(s.c));
      }
      out.push_back(std::move(k));
    }
    return out;
  }

  std::vector<Work> work_;
  const DetectionOptions& options_;
  mutable std::vector<std::vector<int>> consumers_of_;  // by node: who may read it (see above)
};

// Kahn's algorithm, ties broken by file order so the kernel list follows the file.
Result<std::vector<std::size_t>> topological_order(
    const ModelGraph& graph, const std::map<std::string, std::size_t>& index) {
  const std::size_t n = graph.nodes.size();
  std::vector<int> pending(n, 0);
  std::vector<std::vector<std::size_t>> consumers(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (const auto& in : graph.nodes[i].inputs) {
      if (auto it = index.find(in); it != index.end()) {
        ++pending[i];
        consumers[it->second].push_back(i);
      }
    }
  }
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push(i);
  }
  std::vector<std::size_t> order;
  while (!ready.empty()) {
    const std::size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (std::size_t c : consumers[i]) {
      if (--pending[c] == 0) ready.push(c);
    }
  }
  if (order.size() != n) {
    return invalid_input(graph.name, "graph", "", "the operator graph has a cycle");
  }
  return order;
}

}  // namespace

std::string normalise_op_type(const GraphNode& node) {
  static const std::map<std::string, std::string> kNames{{"conv", "conv"},
                                                         {"conv2d", "conv"},
                                                         {"depthwiseconv2dnative", "dwconv"},
                                                         {"depthwiseconv2d", "dwconv"},
                                                         {"dwconv", "dwconv"},
                                                         {"batchnormalization", "bn"},
                                                         {"fusedbatchnorm", "bn"},
                                                         {"fusedbatchnormv3", "bn"},
                                                         {"batchnorm", "bn"},
                                                         {"bn", "bn"},
                                                         {"relu", "relu"},
                                                         {"relu6", "relu"},
                                                         {"clip", "relu"},
                                                         {"hardswish", "hswish"},
                                                         {"hswish", "hswish"},
                                                         {"hardsigmoid", "hsigmoid"},
                                                         {"hsigmoid", "hsigmoid"},
                                                         {"sigmoid", "sigmoid"},
                                                         {"gemm", "fc"},
                                                         {"matmul", "fc"},
                                                         {"dense", "fc"},
                                                         {"fc", "fc"},
                                                         {"linear", "fc"},
                                                         {"add", "add"},
                                                         {"addv2", "add"},
                                                         {"sum", "add"},
                                                         {"mul", "mul"},
                                                         {"div", "div"},
                                                         {"realdiv", "div"},
                                                         {"concat", "concat"},
                                                         {"concatv2", "concat"},
                                                         {"maxpool", "maxpool"},
                                                         {"maxpool2d", "maxpool"},
                                                         {"averagepool", "avgpool"},
                                                         {"avgpool", "avgpool"},
                                                         {"avgpool2d", "avgpool"},
                                                         {"globalaveragepool", "gap"},
                                                         {"global-pool", "gap"},
                                                         {"gap", "gap"},
                                                         {"reshape", "reshape"},
                                                         {"transpose", "transpose"},
                                                         {"split", "split"},
                                                         {"identity", "identity"},
                                                         {"dropout", "identity"},
                                                         {"constant", "const"},
                                                         {"const", "const"},
                                                         {"flatten", "flatten"},
                                                         {"squeeze", "squeeze"},
                                                         {"unsqueeze", "unsqueeze"},
                                                         {"shape", "shape"}};
  const std::string key = lower(node.op_type);
  auto it = kNames.find(key);
  std::string name = it != kNames.end() ? it->second : key;
  // A convolution with one group per input channel is depthwise.
  if (name == "conv" && node.groups > 1 && !node.input_shapes.empty() &&
      node.groups == node.input_shapes.front().c) {
    name = "dwconv";
  }
  return name;
}

Result<std::vector<DetectedKernel>> detect_kernels(const ModelGraph& graph,
                                                   const DetectionOptions& options) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    if (!index.emplace(graph.nodes[i].name, i).second) {
      return invalid_input(graph.name, "node", graph.nodes[i].name, "node name used twice");
    }
  }
  JP_TRY(auto order, topological_order(graph, index));
  std::vector<int> position(graph.nodes.size());
  for (std::size_t p = 0; p < order.size(); ++p) position[order[p]] = static_cast<int>(p);

  std::map<std::string, int> external;
  std::vector<Work> work;
  work.reserve(order.size());
  for (std::size_t i : order) {
    const GraphNode& node = graph.nodes[i];
    Work w;
    w.op = w.first_op = w.last_op = normalise_op_type(node);
    w.members = {node.name};
    for (const auto& in : node.inputs) {
      auto it = index.find(in);
      if (it != index.end()) {
        w.inputs.push_back(position[it->second]);
      } else {
        auto [ext, added] = external.emplace(in, external_input_id(external.size()));
        w.inputs.push_back(ext->second);
      }
    }
    w.in_shapes = node.input_shapes;
    w.out_shape = node.output_shape;
    w.kernel_size = node.kernel_size;
    w.stride = node.stride;
    work.push_back(std::move(w));
  }
  return Detector(std::move(work), options).run();
}

}  // namespace jouleprof::predict
