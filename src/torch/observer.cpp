// The RecordFunction observer: aten ops → recorder spans, layer scopes → layer paths, backward
// nodes → the layer whose forward op created them.
//
// Hot path (every aten op): one thread-local name lookup (hash of the op name), one recorder
// begin/end, and for forward ops that feed autograd one store of the current layer under the op's
// autograd sequence number. Locks are taken only on first sight of a name or layer path, and on
// the per-thread sequence table (uncontended: only its own thread writes, backward reads it).
#include <ATen/record_function.h>
#include <torch/cuda.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "jouleprof/torch.hpp"
#include "torch/replay_args.hpp"

// Device-side timing needs a CUDA build of libtorch (CMake defines JOULEPROF_TORCH_CUDA) and its
// CUDA headers; elsewhere ObserverOptions::device_timing reports that it is unavailable.
#if defined(JOULEPROF_TORCH_CUDA) && __has_include(<ATen/cuda/CUDAEvent.h>) && \
    __has_include(<cuda_runtime_api.h>)
#define JOULEPROF_DEVICE_TIMING 1
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace jouleprof::torch_adapter {
namespace {

// ---- Layer paths: a trie of labels; node 0 is the root (no layer).
class LayerTrie {
 public:
  static LayerTrie& instance() {
    static LayerTrie trie;
    return trie;
  }

  LayerName label(std::string_view name) {
    std::lock_guard lock(mutex_);
    auto it = label_ids_.find(std::string(name));
    if (it != label_ids_.end()) return LayerName{label_names_[it->second], it->second};
    const auto id = static_cast<std::uint32_t>(labels_.size());
    labels_.emplace_back(name);
    label_names_.push_back(intern_name(name));
    label_ids_.emplace(std::string(name), id);
    return LayerName{label_names_.back(), id};
  }

  std::uint32_t child(std::uint32_t parent, std::uint32_t label_id) {
    std::lock_guard lock(mutex_);
    const std::uint64_t key = (std::uint64_t{parent} << 32) | label_id;
    auto it = children_.find(key);
    if (it != children_.end()) return it->second;
    const auto id = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back(Node{parent, label_id, kNoPathName});
    children_.emplace(key, id);
    return id;
  }

  // The recorder name of the node's full path ("encoder/layer_3/attention"), interned on first use.
  NameId path_name(std::uint32_t node) {
    std::lock_guard lock(mutex_);
    if (nodes_[node].path_name == kNoPathName)
      nodes_[node].path_name = intern_name(path_locked(node));
    return nodes_[node].path_name;
  }

  std::string path(std::uint32_t node) {
    std::lock_guard lock(mutex_);
    return path_locked(node);
  }

 private:
  static constexpr NameId kNoPathName = ~NameId{0};
  struct Node {
    std::uint32_t parent;
    std::uint32_t label;
    NameId path_name;
  };

  LayerTrie() { nodes_.push_back(Node{0, 0, kNoPathName}); }

  std::string path_locked(std::uint32_t node) const {
    std::vector<std::uint32_t> chain;
    for (std::uint32_t n = node; n != 0; n = nodes_[n].parent) chain.push_back(nodes_[n].label);
    std::string text;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      if (!text.empty()) text += '/';
      text += labels_[*it];
    }
    return text;
  }

  std::mutex mutex_;
  std::vector<std::string> labels_;
  std::vector<NameId> label_names_;
  std::unordered_map<std::string, std::uint32_t> label_ids_;
  std::vector<Node> nodes_;
  std::unordered_map<std::uint64_t, std::uint32_t> children_;
};

// ---- Autograd sequence number → layer node, per forward thread.
class SequenceTable {
 public:
  void set(std::int64_t seq, std::uint32_t node) {
    std::lock_guard lock(mutex_);
    if (base_ < 0) base_ = seq;
    if (seq < base_) return;  // numbers from before the observer started: never looked up
    const auto index = static_cast<std::size_t>(seq - base_);
    if (index >= layer_of_.size()) layer_of_.resize(std::max(index + 1, layer_of_.size() * 2), 0);
    layer_of_[index] = node;
  }
  std::uint32_t get(std::int64_t seq) {
    std::lock_guard lock(mutex_);
    if (base_ < 0 || seq < base_) return 0;
    const auto index = static_cast<std::size_t>(seq - base_);
    return index < layer_of_.size() ? layer_of_[index] : 0;
  }

 private:
  std::mutex mutex_;
  std::int64_t base_ = -1;
  std::vector<std::uint32_t> layer_of_;
};

class SequenceTables {
 public:
  static SequenceTables& instance() {
    static SequenceTables tables;
    return tables;
  }
  std::shared_ptr<SequenceTable> for_thread(std::uint64_t thread_id) {
    std::lock_guard lock(mutex_);
    auto& table = tables_[thread_id];
    if (!table) table = std::make_shared<SequenceTable>();
    return table;
  }
  // Forgets every table (a new observer session); threads notice through generation().
  void clear() {
    std::lock_guard lock(mutex_);
    tables_.clear();
    generation_.fetch_add(1, std::memory_order_relaxed);
  }
  std::uint64_t generation() const { return generation_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> generation_{0};
  std::mutex mutex_;
  std::unordered_map<std::uint64_t, std::shared_ptr<SequenceTable>> tables_;
};

// ---- Captured calls (shapes mode), one store per thread, merged on request.
struct CaptureStore {
  std::mutex mutex;
  std::unordered_map<std::string, CapturedOp> by_key;
};

class CaptureStores {
 public:
  static CaptureStores& instance() {
    static CaptureStores stores;
    return stores;
  }
  std::shared_ptr<CaptureStore> add() {
    std::lock_guard lock(mutex_);
    stores_.push_back(std::make_shared<CaptureStore>());
    return stores_.back();
  }
  std::vector<std::shared_ptr<CaptureStore>> all() {
    std::lock_guard lock(mutex_);
    return stores_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::shared_ptr<CaptureStore>> stores_;
};

// What on_start opened, so that on_end closes exactly that (start/end pairs are LIFO per thread).
enum OpenedFlags : std::uint8_t {
  kOpenedSpan = 1,       // one op span
  kOpenedLayerSpan = 2,  // a backward layer-path span around it
  kEnteredBackward = 4,  // a backward node: pass forced to kBackward inside
  kPushedLayer = 8,      // a user scope: current layer node pushed
  kDeviceTimed = 16,     // CUDA events recorded around it (an outermost op)
  kCountedOp = 32,       // op depth incremented
};

struct ThreadState {
  std::uint32_t layer = 0;  // current layer trie node
  Pass pass = Pass::kNone;
  int backward_depth = 0;
  int op_depth = 0;                       // FUNCTION-scope ops open on this thread
  std::uint32_t last_backward_layer = 0;  // layer node of the last backward node run here
  std::vector<std::size_t> device_open;   // indices of this thread's open device intervals
  std::vector<std::uint32_t> layer_stack;
  std::vector<std::uint8_t> opened;
  std::unordered_map<std::uint64_t, std::uint32_t> child_cache;
  // Op names: keys view strings owned by name_storage (a deque never moves its elements).
  struct OpName {
    NameId id;
    const std::string* text;
    // libtorch's engine wraps each autograd node in a FUNCTION-scope record named
    // "autograd::engine::evaluate_function: <node>"; the node's own record (BACKWARD_FUNCTION)
    // sits inside it. The wrapper is not an op: no span, so the node's layer span is the one that
    // sits directly under the backward pass.
    bool engine_wrapper;
    // AccumulateGrad has no sequence number: the engine runs it as soon as its gradient is ready
    // (it has the highest priority of the ready queue), right after the node that produced it,
    // so it is charged to that node's layer.
    bool accumulate_grad;
  };
  std::unordered_map<std::string_view, OpName> op_names;
  std::deque<std::string> name_storage;
  std::unordered_map<std::string_view, LayerName> scope_labels;
  std::shared_ptr<SequenceTable> sequence;
  std::uint64_t sequence_generation = 0;
  std::shared_ptr<CaptureStore> capture;

  Pass current_pass() const { return backward_depth > 0 ? Pass::kBackward : pass; }

  const OpName& op_name(const char* name) {
    const std::string_view view(name);
    auto it = op_names.find(view);
    if (it != op_names.end()) return it->second;
    const std::string& stored = name_storage.emplace_back(view);
    const bool wrapper = view.rfind("autograd::engine::evaluate_function", 0) == 0;
    const bool accumulate_grad = view.ends_with("AccumulateGrad");
    return op_names.emplace(stored, OpName{intern_name(stored), &stored, wrapper, accumulate_grad})
        .first->second;
  }

  LayerName scope_label(const char* name) {
    const std::string_view view(name);
    auto it = scope_labels.find(view);
    if (it != scope_labels.end()) return it->second;
    const std::string& stored = name_storage.emplace_back(view);
    const LayerName label = LayerTrie::instance().label(stored);
    scope_labels.emplace(stored, label);
    return label;
  }

  void push_layer(std::uint32_t label) {
    const std::uint64_t key = (std::uint64_t{layer} << 32) | label;
    auto it = child_cache.find(key);
    std::uint32_t node = 0;
    if (it != child_cache.end()) {
      node = it->second;
    } else {
      node = LayerTrie::instance().child(layer, label);
      child_cache.emplace(key, node);
    }
    layer_stack.push_back(layer);
    layer = node;
  }
  void pop_layer() {
    if (layer_stack.empty()) return;
    layer = layer_stack.back();
    layer_stack.pop_back();
  }
};

thread_local ThreadState t_state;

std::atomic<bool> g_observer_running{false};
std::atomic<bool> g_capture_shapes{false};
std::atomic<bool> g_device_timing{false};

#ifdef JOULEPROF_DEVICE_TIMING
// Device-side execution intervals: a pair of CUDA events recorded on the current stream around
// each outermost op. The start event completes when the stream reaches the op's first kernel, the
// end event after its last, so the interval is when the device ran the op, not when the CPU
// launched it. Event times are converted to the monotonic clock through a reference event that
// completed at a known monotonic time (recorded on an idle, synchronised device).
class DeviceTimer {
 public:
  static DeviceTimer& instance() {
    static DeviceTimer timer;
    return timer;
  }

  void reset_reference() {
    std::lock_guard lock(mutex_);
    reset_reference_locked();
  }

  std::size_t begin(const std::string* op, std::uint32_t layer, Pass pass) {
    std::lock_guard lock(mutex_);
    Interval interval{take_event(), take_event(), op, layer, pass, 0, 0};
    const c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream();
    interval.stream = static_cast<std::int64_t>(stream.id());
    interval.device = static_cast<int>(stream.device_index());
    interval.begin->record(stream);
    pending_.push_back(std::move(interval));
    return pending_.size() - 1;
  }

  void end(std::size_t index) {
    std::lock_guard lock(mutex_);
    if (index < pending_.size()) pending_[index].end->record(c10::cuda::getCurrentCUDAStream());
  }

  // Waits for the device, turns every finished interval into a span on its stream's GPU track.
  template <typename PathOf>
  std::size_t flush(PathOf path_of) {
    std::lock_guard lock(mutex_);
    if (pending_.empty()) return 0;
    torch::cuda::synchronize();
    std::size_t added = 0;
    for (Interval& i : pending_) {
      if (i.begin->isCreated() && i.end->isCreated() && reference_) {
        const TimeNs begin_ns =
            reference_ns_ + static_cast<TimeNs>(reference_->elapsed_time(*i.begin) * 1e6);
        const TimeNs end_ns =
            reference_ns_ + static_cast<TimeNs>(reference_->elapsed_time(*i.end) * 1e6);
        if (end_ns > begin_ns) {
          const std::string path = path_of(i.layer);
          const NameId name = intern_name(path.empty() ? *i.op : path + "/" + *i.op);
          Recorder::global().add_external_span(TrackKind::kGpuStream,
                                               "stream " + std::to_string(i.stream),
                                               "gpu" + std::to_string(i.device), name, begin_ns,
                                               end_ns, SpanCategory::kKernel, i.pass);
          ++added;
        }
      }
      pool_.push_back(std::move(i.begin));
      pool_.push_back(std::move(i.end));
    }
    pending_.clear();
    reset_reference_locked();
    return added;
  }

 private:
  struct Interval {
    std::unique_ptr<at::cuda::CUDAEvent> begin, end;
    const std::string* op;
    std::uint32_t layer;
    Pass pass;
    std::int64_t stream;
    int device;
  };

  std::unique_ptr<at::cuda::CUDAEvent> take_event() {
    if (pool_.empty()) return std::make_unique<at::cuda::CUDAEvent>(cudaEventDefault);
    auto event = std::move(pool_.back());
    pool_.pop_back();
    return event;
  }

  void reset_reference_locked() {
    torch::cuda::synchronize();
    reference_ = std::make_unique<at::cuda::CUDAEvent>(cudaEventDefault);
    reference_->record(c10::cuda::getCurrentCUDAStream());
    reference_->synchronize();
    reference_ns_ = monotonic_now_ns();
  }

  std::mutex mutex_;
  std::vector<Interval> pending_;
  std::vector<std::unique_ptr<at::cuda::CUDAEvent>> pool_;
  std::unique_ptr<at::cuda::CUDAEvent> reference_;
  TimeNs reference_ns_ = 0;
};
#endif

std::string dtype_short(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Float:
      return "f32";
    case c10::ScalarType::Double:
      return "f64";
    case c10::ScalarType::Half:
      return "f16";
    case c10::ScalarType::BFloat16:
      return "bf16";
    case c10::ScalarType::Long:
      return "i64";
    case c10::ScalarType::Int:
      return "i32";
    case c10::ScalarType::Bool:
      return "bool";
    case c10::ScalarType::Byte:
      return "u8";
    default:
      return c10::toString(type);
  }
}

TensorSpec tensor_spec(const at::Tensor& tensor) {
  TensorSpec spec;
  spec.defined = tensor.defined();
  if (!spec.defined) return spec;
  spec.sizes = tensor.sizes().vec();
  spec.dtype = tensor.scalar_type();
  spec.device = tensor.device();
  return spec;
}

void describe(std::ostringstream& out, const TensorSpec& spec) {
  if (!spec.defined) {
    out << "undefined";
    return;
  }
  out << dtype_short(spec.dtype) << '[';
  for (std::size_t i = 0; i < spec.sizes.size(); ++i) out << (i ? "," : "") << spec.sizes[i];
  out << ']';
}

// Turns the op's inputs into a replayable form; sets `reason` when an argument cannot be replayed.
std::vector<ArgSpec> arg_specs(c10::ArrayRef<const c10::IValue> inputs, std::string& reason) {
  std::vector<ArgSpec> specs;
  specs.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const c10::IValue& value = inputs[i];
    if (value.isTensor()) {
      specs.emplace_back(tensor_spec(value.toTensor()));
    } else if (value.isTensorList()) {
      TensorListSpec list;
      for (const at::Tensor& t : value.toTensorVector()) list.push_back(tensor_spec(t));
      specs.emplace_back(std::move(list));
    } else if (value.isNone() || value.isInt() || value.isDouble() || value.isBool() ||
               value.isString() || value.isDevice() || value.isComplexDouble()) {
      specs.emplace_back(value);
    } else if (value.isIntList()) {
      specs.emplace_back(c10::IValue(value.toIntVector()));
    } else if (value.isDoubleList()) {
      specs.emplace_back(c10::IValue(value.toDoubleVector()));
    } else if (value.isBoolList()) {
      specs.emplace_back(c10::IValue(value.toBoolList().copy()));
    } else {
      if (reason.empty()) reason = "argument " + std::to_string(i) + " is a " + value.tagKind();
      specs.emplace_back(c10::IValue());
    }
  }
  return specs;
}

std::string signature_of(const std::vector<ArgSpec>& specs) {
  std::ostringstream out;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (i) out << ", ";
    if (const auto* tensor = std::get_if<TensorSpec>(&specs[i])) {
      describe(out, *tensor);
    } else if (const auto* list = std::get_if<TensorListSpec>(&specs[i])) {
      out << '(';
      for (std::size_t j = 0; j < list->size(); ++j) {
        if (j) out << ", ";
        describe(out, (*list)[j]);
      }
      out << ')';
    } else {
      out << std::get<c10::IValue>(specs[i]);
    }
  }
  return out.str();
}

void capture_call(ThreadState& state, const at::RecordFunction& fn) {
  const auto op = fn.operator_name();
  if (!op) return;  // not a dispatcher op: nothing to replay
  std::string reason;
  auto args = std::make_shared<ReplayArgs>();
  args->op = *op;
  args->args = arg_specs(fn.inputs(), reason);
  std::string signature = signature_of(args->args);
  annotate("shapes", signature);  // on the op's span, which on_start has just begun
  std::string key = op->name + "." + op->overload_name + "(" + signature + ")";
  if (!state.capture) state.capture = CaptureStores::instance().add();
  std::lock_guard lock(state.capture->mutex);
  auto [it, inserted] = state.capture->by_key.try_emplace(std::move(key));
  CapturedOp& entry = it->second;
  if (inserted) {
    entry.op_name = op->name;
    entry.overload = op->overload_name;
    entry.signature = std::move(signature);
    entry.pass = state.current_pass();
    entry.not_replayable_reason = reason;
    if (reason.empty()) entry.args = std::move(args);
  }
  ++entry.calls;
}

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  ThreadState& state = t_state;
  std::uint8_t opened = 0;
  switch (fn.scope()) {
    case at::RecordScope::FUNCTION: {
      const ThreadState::OpName& op = state.op_name(fn.name());
      if (op.engine_wrapper) break;
      const std::int64_t seq = fn.seqNr();
      if (seq >= 0 && state.backward_depth == 0) {
        SequenceTables& tables = SequenceTables::instance();
        if (!state.sequence || state.sequence_generation != tables.generation()) {
          state.sequence_generation = tables.generation();
          state.sequence = tables.for_thread(at::RecordFunction::currentThreadId());
        }
        // The last op to see a number before autograd consumes it is the one creating the node.
        state.sequence->set(seq, state.layer);
      }
      begin(op.id, SpanCategory::kOp, state.current_pass());
      opened = kOpenedSpan | kCountedOp;
#ifdef JOULEPROF_DEVICE_TIMING
      if (state.op_depth == 0 && g_device_timing.load(std::memory_order_relaxed)) {
        state.device_open.push_back(
            DeviceTimer::instance().begin(op.text, state.layer, state.current_pass()));
        opened |= kDeviceTimed;
      }
#endif
      ++state.op_depth;
      if (g_capture_shapes.load(std::memory_order_relaxed)) capture_call(state, fn);
      break;
    }
    case at::RecordScope::BACKWARD_FUNCTION: {
      const ThreadState::OpName& op = state.op_name(fn.name());
      std::uint32_t node = 0;
      if (fn.seqNr() >= 0) {
        node = SequenceTables::instance().for_thread(fn.forwardThreadId())->get(fn.seqNr());
        state.last_backward_layer = node;
      } else if (op.accumulate_grad) {
        node = state.last_backward_layer;
      }
      if (node != 0) {
        begin(LayerTrie::instance().path_name(node), SpanCategory::kLayer, Pass::kBackward);
        opened |= kOpenedLayerSpan;
      }
      begin(op.id, SpanCategory::kOp, Pass::kBackward);
      ++state.backward_depth;
      opened |= kOpenedSpan | kEnteredBackward;
      break;
    }
    case at::RecordScope::USER_SCOPE: {
      const LayerName label = state.scope_label(fn.name());
      begin(label.name, SpanCategory::kLayer, state.current_pass());
      state.push_layer(label.label);
      opened = kOpenedSpan | kPushedLayer;
      break;
    }
    default:
      break;
  }
  state.opened.push_back(opened);
  return nullptr;
}

void on_end(const at::RecordFunction& /*fn*/, at::ObserverContext* /*context*/) {
  ThreadState& state = t_state;
  if (state.opened.empty()) return;
  const std::uint8_t opened = state.opened.back();
  state.opened.pop_back();
  if (opened & kCountedOp) --state.op_depth;
#ifdef JOULEPROF_DEVICE_TIMING
  if ((opened & kDeviceTimed) && !state.device_open.empty()) {
    DeviceTimer::instance().end(state.device_open.back());
    state.device_open.pop_back();
  }
#endif
  if (opened & kPushedLayer) state.pop_layer();
  if (opened & kEnteredBackward) --state.backward_depth;
  if (opened & kOpenedSpan) end();
  if (opened & kOpenedLayerSpan) end();
}

}  // namespace

LayerName layer_name(std::string_view name) { return LayerTrie::instance().label(name); }

LayerScope::LayerScope(LayerName name) noexcept {
  ThreadState& state = t_state;
  begin(name.name, SpanCategory::kLayer, state.current_pass());
  state.push_layer(name.label);
}

LayerScope::~LayerScope() {
  t_state.pop_layer();
  end();
}

namespace {
NameId pass_name(Pass pass) {
  static const NameId forward = intern_name("forward");
  static const NameId backward = intern_name("backward");
  static const NameId optimizer = intern_name("optimizer");
  static const NameId communication = intern_name("communication");
  static const NameId none = intern_name("step");
  switch (pass) {
    case Pass::kForward:
      return forward;
    case Pass::kBackward:
      return backward;
    case Pass::kOptimizer:
      return optimizer;
    case Pass::kCommunication:
      return communication;
    case Pass::kNone:
      return none;
  }
  return none;
}
}  // namespace

PassScope::PassScope(Pass pass) noexcept : PassScope(pass, pass_name(pass)) {}

PassScope::PassScope(Pass pass, NameId name) noexcept : previous_(t_state.pass) {
  t_state.pass = pass;
  begin(name, SpanCategory::kRegion, pass);
}

PassScope::~PassScope() {
  end();
  t_state.pass = previous_;
}

Observer::Observer(ObserverOptions options) : options_(options) {}

Observer::~Observer() { stop(); }

Status Observer::start() {
  if (running()) return Status::Ok();
  bool expected = false;
  if (!g_observer_running.compare_exchange_strong(expected, true)) {
    return Error(ErrorCode::kUnsupported,
                 "another jouleprof torch observer is already running in this process");
  }
  if (options_.device_timing && !device_timing_available()) {
    g_observer_running.store(false);
    return Error(ErrorCode::kUnavailable,
                 "device timing needs a CUDA build of libtorch and a visible GPU (this build: " +
                     std::string(device_timing_compiled() ? "CUDA, no device" : "no CUDA") + ")");
  }
  SequenceTables::instance().clear();
  g_capture_shapes.store(options_.record_shapes, std::memory_order_relaxed);
#ifdef JOULEPROF_DEVICE_TIMING
  if (options_.device_timing) DeviceTimer::instance().reset_reference();
#endif
  g_device_timing.store(options_.device_timing, std::memory_order_relaxed);
  at::RecordFunctionCallback callback(on_start, on_end);
  callback.needsInputs(options_.record_shapes)
      .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION,
               at::RecordScope::USER_SCOPE});
  handle_ = at::addGlobalCallback(callback);
  return Status::Ok();
}

void Observer::stop() {
  if (!running()) return;
  at::removeCallback(handle_);
  handle_ = 0;
  flush_device_spans();
  g_device_timing.store(false, std::memory_order_relaxed);
  g_capture_shapes.store(false, std::memory_order_relaxed);
  g_observer_running.store(false);
}

std::vector<CapturedOp> Observer::captured_ops() const {
  std::map<std::string, CapturedOp> merged;
  for (const auto& store : CaptureStores::instance().all()) {
    std::lock_guard lock(store->mutex);
    for (const auto& [key, op] : store->by_key) {
      auto [it, inserted] = merged.try_emplace(key, op);
      if (!inserted) it->second.calls += op.calls;
    }
  }
  std::vector<CapturedOp> ops;
  ops.reserve(merged.size());
  for (auto& [key, op] : merged) ops.push_back(std::move(op));
  std::stable_sort(ops.begin(), ops.end(),
                   [](const CapturedOp& a, const CapturedOp& b) { return a.calls > b.calls; });
  return ops;
}

std::size_t Observer::flush_device_spans() {
#ifdef JOULEPROF_DEVICE_TIMING
  if (options_.device_timing) {
    return DeviceTimer::instance().flush(
        [](std::uint32_t node) { return LayerTrie::instance().path(node); });
  }
#endif
  return 0;
}

void Observer::clear_captured() {
  for (const auto& store : CaptureStores::instance().all()) {
    std::lock_guard lock(store->mutex);
    store->by_key.clear();
  }
}

bool cuda_available() { return torch::cuda::is_available(); }

bool device_timing_compiled() {
#ifdef JOULEPROF_DEVICE_TIMING
  return true;
#else
  return false;
#endif
}

bool device_timing_available() { return device_timing_compiled() && cuda_available(); }

}  // namespace jouleprof::torch_adapter
