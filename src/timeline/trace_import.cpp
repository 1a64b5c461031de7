// Chrome-trace import (PyTorch profiler / Kineto, TensorFlow timeline, generic) and format
// detection. The mapping of fields to spans is documented in docs/timeline.md.
#include "jouleprof/trace_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>

#include "core/parse.hpp"
#include "timeline/backward_links.hpp"
#include "timeline/chrome_trace_reader.hpp"
#include "timeline/chunked_vector.hpp"
#include "timeline/collectives.hpp"
#include "timeline/containment.hpp"
#include "timeline/span_dump_parse.hpp"
#include "timeline/string_arena.hpp"
#include "timeline/trace_file.hpp"
#include "timeline/trace_time.hpp"

namespace jouleprof {

namespace {

using timeline::ChromeEvent;

// Unix-epoch nanoseconds after 2001-09-09: a trace whose times reach this is on the realtime
// clock; CLOCK_MONOTONIC (time since boot) would need 31 years of uptime.
constexpr TimeNs kEpochTimesFromNs = 1'000'000'000'000'000'000;

std::string_view unquoted(std::string_view token) {
  if (token.size() >= 2 && token.front() == '"' && token.back() == '"') {
    return token.substr(1, token.size() - 2);
  }
  return token;
}

// The number after `key` in `text` ("/device:GPU:3/stream:7" with "GPU:" -> 3).
std::optional<std::int64_t> number_after(std::string_view text, std::string_view key) {
  const auto at = text.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  return to_int64(leading_digits(text.substr(at + key.size())));
}

bool ends_with_backward(std::string_view name) {
  while (!name.empty() && name.back() >= '0' && name.back() <= '9') name.remove_suffix(1);
  return name.ends_with("Backward");
}

// What Kineto's categories mean. GPU categories put their track on a device.
struct CategoryMeaning {
  SpanCategory category = SpanCategory::kRegion;
  bool gpu = false;
  bool kineto = false;  // only Kineto writes this category
  bool skip = false;    // the profiler's own activity
};

// Module scopes: Kineto's python_function events (with_stack) and the record_function scopes that
// jouleprof's Python hooks open are named "nn.Module: <name>"; the span keeps <name>.
constexpr std::string_view kModulePrefix = "nn.Module: ";
// torch.profiler numbers its steps "ProfilerStep#<n>"; every step is one node "step", as the
// built-in models' steps are, and keeps its number in the attribute "step".
constexpr std::string_view kStepPrefix = "ProfilerStep#";
constexpr std::string_view kStepName = "step";
// Zero-length scopes jouleprof's Python package leaves in a torch.profiler trace: a clock
// reference ("jouleprof::clock_sync <monotonic ns>"), the model whose modules its hooks scope
// ("jouleprof::module_scopes <root module's span name>") and epoch boundaries. They are not spans.
constexpr std::string_view kClockSyncPrefix = "jouleprof::clock_sync ";
constexpr std::string_view kModuleScopesPrefix = "jouleprof::module_scopes ";
constexpr std::string_view kEpochBeginScope = "jouleprof::epoch_begin";
constexpr std::string_view kEpochEndScope = "jouleprof::epoch_end";
// torch's legacy profiler (builds without Kineto, such as Debian's torch 1.13) writes a bare array
// of events without categories, all in the process "CPU functions", times in µs since its start.
constexpr std::string_view kLegacyTorchPid = "\"CPU functions\"";

bool is_legacy_torch(const ChromeEvent& e) {
  return e.category.empty() && e.pid == kLegacyTorchPid;
}

// What an event of torch's legacy profiler is, from its name alone: operators and autograd nodes
// carry a namespace ("aten::addmm", "torch::autograd::AccumulateGrad") or end in Backward<n>;
// the rest are record_function scopes.
CategoryMeaning legacy_torch_meaning(std::string_view name) {
  if (name.starts_with(kStepPrefix)) return {SpanCategory::kStep, false, false, false};
  if (name.find("::") != std::string_view::npos || ends_with_backward(name))
    return {SpanCategory::kOp, false, false, false};
  return {};
}

CategoryMeaning meaning_of(const ChromeEvent& e) {
  const std::string_view cat = e.category;
  const std::string_view name = e.name;
  if (name.starts_with(kModulePrefix)) {
    return {SpanCategory::kLayer, false, cat == "python_function" || cat == "user_annotation",
            false};
  }
  if (is_legacy_torch(e)) return legacy_torch_meaning(name);
  const bool step = name.starts_with(kStepPrefix);
  if (cat == "kernel") return {SpanCategory::kKernel, true, true, false};
  if (cat == "gpu_memcpy" || cat == "gpu_memset") return {SpanCategory::kMemory, true, true, false};
  if (cat == "gpu_user_annotation") return {SpanCategory::kRegion, true, true, false};
  if (cat == "cuda_runtime" || cat == "cuda_driver")
    return {SpanCategory::kCall, false, true, false};
  if (cat == "cpu_op" || cat == "operator") {
    return {step ? SpanCategory::kStep : SpanCategory::kOp, false, true, false};
  }
  if (cat == "user_annotation") {
    return {step ? SpanCategory::kStep : SpanCategory::kRegion, false, true, false};
  }
  if (cat == "python_function") return {SpanCategory::kRegion, false, true, false};
  if (cat == "overhead" || cat == "Trace") return {SpanCategory::kRegion, false, true, true};
  if (cat == "Op") return {SpanCategory::kOp, false, false, false};  // TensorFlow
  return {};
}

bool is_accumulate_grad(std::string_view name) { return name.ends_with("AccumulateGrad"); }

// Kineto's evidence of the training pass; spans without evidence take their parent's later.
Pass pass_evidence(const ChromeEvent& e) {
  if (e.name.starts_with("autograd::engine::evaluate_function") || ends_with_backward(e.name)) {
    return Pass::kBackward;
  }
  if (e.name.starts_with("Optimizer.")) return Pass::kOptimizer;
  // A module's scope is its forward call (backward work is linked to modules after import).
  if (e.name.starts_with(kModulePrefix)) return Pass::kForward;
  if (e.has_sequence_number) return e.fwd_thread_id == 0 ? Pass::kForward : Pass::kBackward;
  return Pass::kNone;
}

struct TrackKey {
  std::string_view pid;
  std::string_view tid;
  bool operator==(const TrackKey&) const = default;
};

struct TrackKeyHash {
  std::size_t operator()(const TrackKey& k) const {
    const std::hash<std::string_view> h;
    return h(k.pid) * 31 + h(k.tid);
  }
};

struct LocalTrack {
  TrackKey key;
  bool gpu = false;
  std::int64_t device = -1;  // args.device of its GPU events
  std::int64_t stream = -1;  // args.stream of its GPU events
  bool skip = false;         // TensorFlow: tensors, allocators, a duplicate stream:all
  TrackKind kind = TrackKind::kCpuThread;
  std::string name;
  std::string device_name;
  std::uint32_t placed = kNoIndex;
};

struct PendingSpan {
  Span span;  // trace-relative times; track: local index; attributes: parse-time set or none
  std::int64_t correlation = -1;
  std::int64_t sequence = -1;      // autograd's "Sequence number"
  std::int64_t fwd_thread = 0;     // "Fwd thread id"
  std::uint32_t bytes = kNoIndex;  // GPU memory operations: index of the raw token in gpu_bytes_
};

struct PendingMark {
  TimeNs t_ns;
  std::uint32_t track;
  std::uint32_t name;
};

struct OpenBegin {
  TimeNs begin_ns;
  std::uint32_t name;
  CategoryMeaning meaning;
  Pass pass;
  std::int64_t sequence;
  std::int64_t fwd_thread;
  std::uint32_t attributes;
};

// The first clock_sync scope: monotonic_ns = its name's number at its trace time.
struct ClockSync {
  TimeNs trace_ns = 0;  // the scope's ts (without baseTimeNanoseconds)
  TimeNs monotonic_ns = 0;
};

// A flow event's id: its number (Kineto's are correlation ids), or for an id that is not a number,
// the index of its text among such texts.
struct FlowId {
  std::int64_t value = 0;
  bool numbered = true;
  bool operator==(const FlowId&) const = default;
};

struct FlowIdHash {
  std::size_t operator()(const FlowId& id) const {
    return std::hash<std::int64_t>()(id.value) * 2 + (id.numbered ? 1 : 0);
  }
};

struct FlowEnd {
  FlowId id;
  std::uint32_t track;
  TimeNs t_ns;
};

class TraceBuilder final : public timeline::ChromeEventSink {
 public:
  explicit TraceBuilder(std::string_view origin) : origin_(origin) {}

  Status on_event(const ChromeEvent& e) override {
    ++events_;
    switch (e.phase) {
      case 'M':
        return on_metadata(e);
      case 'X':
        return on_complete(e);
      case 'B':
        return on_begin(e);
      case 'E':
        return on_end(e);
      case 'i':
      case 'I':
      case 'R':
        return on_instant(e);
      case 's':
      case 't':
      case 'f':
        return on_flow(e);
      default:
        ++skipped_;  // counters, objects, async events: not spans
        return Status::Ok();
    }
  }

  Result<TraceImport> finish(const timeline::ChromeTraceHeader& header,
                             const TraceImportOptions& options);

 private:
  Error bad(const ChromeEvent& e, std::string_view field, std::string_view value,
            std::string_view problem) const {
    return invalid_input(origin_, fmt::format("traceEvents[{}].{}", e.index, field), value,
                         problem);
  }

  Result<TimeNs> time_field(const ChromeEvent& e, std::string_view field,
                            std::string_view token) const {
    if (token.empty()) return bad(e, field, "", "missing");
    const auto ns = timeline::microseconds_token_to_ns(token);
    if (!ns) return bad(e, field, token, "is not a number of microseconds");
    return *ns;
  }

  // The event's views last only while it is read: what is kept is copied into strings_.
  std::uint32_t intern(std::string_view name) {
    if (auto it = name_ids_.find(name); it != name_ids_.end()) return it->second;
    const std::uint32_t id = timeline_.intern(name);
    name_ids_.emplace(strings_.copy(name), id);
    return id;
  }

  std::uint32_t track_of(const ChromeEvent& e) {
    if (auto it = track_ids_.find(TrackKey{e.pid, e.tid}); it != track_ids_.end())
      return it->second;
    const TrackKey key{strings_.keep(e.pid), strings_.keep(e.tid)};
    const auto id = static_cast<std::uint32_t>(tracks_.size());
    LocalTrack track;
    track.key = key;
    tracks_.push_back(std::move(track));
    track_ids_.emplace(key, id);
    return id;
  }

  Status on_metadata(const ChromeEvent& e) {
    ++skipped_;
    const std::string pid(unquoted(e.pid));
    if (e.name == "process_name") {
      process_names_[pid] = std::string(e.arg_name);
    } else if (e.name == "process_labels") {
      process_labels_[pid] = std::string(e.arg_labels);
    } else if (e.name == "thread_name") {
      thread_names_[TrackKey{strings_.keep(e.pid), strings_.keep(e.tid)}] = std::string(e.arg_name);
    }
    return Status::Ok();
  }

  // The span's name: TensorFlow's node name (hierarchical) where it has one, a module's own name,
  // "step" for torch.profiler's steps, else the event name.
  std::uint32_t span_name(const ChromeEvent& e) {
    if (e.category == "Op" && !e.arg_name.empty()) return intern(e.arg_name);
    if (e.name.starts_with(kModulePrefix)) return intern(e.name.substr(kModulePrefix.size()));
    if (e.name.starts_with(kStepPrefix)) return intern(kStepName);
    return intern(e.name);
  }

  std::uint32_t parse_time_attributes(const ChromeEvent& e) {
    Attributes attrs;
    if (!e.arg_input_dims.empty()) attrs.emplace_back("input_dims", std::string(e.arg_input_dims));
    if (e.category == "Op" && !e.arg_op.empty()) attrs.emplace_back("op", std::string(e.arg_op));
    if (e.name.starts_with(kStepPrefix))
      attrs.emplace_back("step", std::string(e.name.substr(kStepPrefix.size())));
    if (attrs.empty()) return kNoIndex;
    return timeline_.add_attributes(std::move(attrs));
  }

  void add_pending(const ChromeEvent& e, const CategoryMeaning& meaning, TimeNs begin_ns,
                   TimeNs end_ns, std::uint32_t name, Pass pass, std::int64_t sequence,
                   std::int64_t fwd_thread, std::uint32_t attributes) {
    const std::uint32_t track = track_of(e);
    LocalTrack& local = tracks_[track];
    if (meaning.gpu) {
      local.gpu = true;
      if (e.arg_device >= 0) local.device = e.arg_device;
      if (e.arg_stream >= 0) local.stream = e.arg_stream;
    }
    kineto_seen_ = kineto_seen_ || meaning.kineto;
    legacy_torch_seen_ = legacy_torch_seen_ || is_legacy_torch(e);
    PendingSpan p;
    p.span.begin_ns = begin_ns;
    p.span.end_ns = end_ns;
    p.span.track = track;
    p.span.name = name;
    p.span.category = meaning.category;
    p.span.pass = pass;
    if (meaning.gpu) {
      if (!e.arg_bytes.empty()) {
        p.bytes = static_cast<std::uint32_t>(gpu_bytes_.size());
        gpu_bytes_.push_back(strings_.keep(e.arg_bytes));
      }
    } else {
      p.span.attributes = attributes;
    }
    p.correlation = e.correlation;
    p.sequence = sequence;
    p.fwd_thread = fwd_thread;
    spans_.push_back(p);
  }

  static std::int64_t sequence_of(const ChromeEvent& e) {
    return e.has_sequence_number ? e.sequence_number : -1;
  }

  // jouleprof's own scopes (see kClockSyncPrefix; complete events, as torch writes them): true
  // when `e` was one and has been used.
  Result<bool> take_jouleprof_scope(const ChromeEvent& e) {
    if (e.name.starts_with(kClockSyncPrefix)) {
      ++skipped_;
      if (clock_sync_) return true;  // the first one maps the clock
      JP_TRY(const TimeNs t_ns, time_field(e, "ts", e.ts_token));
      const auto monotonic_ns = to_int64(e.name.substr(kClockSyncPrefix.size()));
      if (!monotonic_ns) return bad(e, "name", e.name, "has no monotonic time after clock_sync");
      clock_sync_ = ClockSync{t_ns, *monotonic_ns};
      return true;
    }
    if (e.name.starts_with(kModuleScopesPrefix)) {
      ++skipped_;
      const std::string model(e.name.substr(kModuleScopesPrefix.size()));
      if (std::find(scoped_models_.begin(), scoped_models_.end(), model) == scoped_models_.end())
        scoped_models_.push_back(model);
      return true;
    }
    if (e.name == kEpochBeginScope || e.name == kEpochEndScope) {
      ++skipped_;
      JP_TRY(const TimeNs t_ns, time_field(e, "ts", e.ts_token));
      marks_.push_back(PendingMark{
          t_ns, track_of(e), intern(e.name == kEpochBeginScope ? "epoch_begin" : "epoch_end")});
      return true;
    }
    return false;
  }

  Status on_complete(const ChromeEvent& e) {
    const CategoryMeaning meaning = meaning_of(e);
    if (meaning.skip) {
      ++skipped_;
      kineto_seen_ = true;
      return Status::Ok();
    }
    JP_TRY(const bool taken, take_jouleprof_scope(e));
    if (taken) return Status::Ok();
    JP_TRY(const TimeNs begin_ns, time_field(e, "ts", e.ts_token));
    JP_TRY(const TimeNs duration_ns, time_field(e, "dur", e.dur_token));
    if (duration_ns < 0) return bad(e, "dur", e.dur_token, "is negative");
    add_pending(e, meaning, begin_ns, begin_ns + duration_ns, span_name(e), pass_evidence(e),
                sequence_of(e), e.fwd_thread_id, meaning.gpu ? kNoIndex : parse_time_attributes(e));
    return Status::Ok();
  }

  Status on_begin(const ChromeEvent& e) {
    JP_TRY(const TimeNs begin_ns, time_field(e, "ts", e.ts_token));
    const std::uint32_t track = track_of(e);
    if (open_.size() <= track) open_.resize(track + 1);
    const CategoryMeaning meaning = meaning_of(e);
    open_[track].push_back(OpenBegin{begin_ns, span_name(e), meaning, pass_evidence(e),
                                     sequence_of(e), e.fwd_thread_id,
                                     meaning.gpu ? kNoIndex : parse_time_attributes(e)});
    return Status::Ok();
  }

  Status on_end(const ChromeEvent& e) {
    JP_TRY(const TimeNs end_ns, time_field(e, "ts", e.ts_token));
    const std::uint32_t track = track_of(e);
    if (open_.size() <= track || open_[track].empty()) {
      ++unmatched_ends_;
      return Status::Ok();
    }
    const OpenBegin b = open_[track].back();
    open_[track].pop_back();
    if (end_ns < b.begin_ns) return bad(e, "ts", e.ts_token, "ends before its B event began");
    add_pending(e, b.meaning, b.begin_ns, end_ns, b.name, b.pass, b.sequence, b.fwd_thread,
                b.attributes);
    return Status::Ok();
  }

  Status on_instant(const ChromeEvent& e) {
    // Global instants ("s": "g") are the profiler's own bookkeeping, on no thread.
    if (e.scope == "g") {
      ++skipped_;
      return Status::Ok();
    }
    JP_TRY(const TimeNs t_ns, time_field(e, "ts", e.ts_token));
    marks_.push_back(PendingMark{t_ns, track_of(e), intern(e.name)});
    return Status::Ok();
  }

  Status on_flow(const ChromeEvent& e) {
    ++skipped_;
    if (e.id_token.empty() || e.ts_token.empty()) return Status::Ok();
    JP_TRY(const TimeNs t_ns, time_field(e, "ts", e.ts_token));
    // Kept as a list: link_flows() indexes them only if some GPU span lacks a correlation arg.
    (e.phase == 's' ? flow_starts_ : flow_finishes_)
        .push_back(FlowEnd{flow_id(e.id_token), track_of(e), t_ns});
    return Status::Ok();
  }

  FlowId flow_id(std::string_view token) {
    if (const auto number = to_int64(unquoted(token))) return FlowId{*number, true};
    const auto [it, added] = flow_texts_.try_emplace(strings_.keep(token), flow_texts_.size());
    (void)added;
    return FlowId{static_cast<std::int64_t>(it->second), false};
  }

  void classify_tracks(TraceFormat format);
  void classify_tensorflow_track(LocalTrack& track, std::string_view process);
  void link_flows();
  std::vector<std::uint32_t> link_backward_to_modules(TraceImport& out);
  void place_spans(TraceImport& out);
  void map_clock(const timeline::ChromeTraceHeader& header, const TraceImportOptions& options,
                 TraceImport& out);

  std::string_view origin_;
  timeline::StringArena strings_;  // what the views below point into
  Timeline timeline_;
  std::unordered_map<std::string_view, std::uint32_t> name_ids_;
  std::vector<LocalTrack> tracks_;
  std::unordered_map<TrackKey, std::uint32_t, TrackKeyHash> track_ids_;
  std::unordered_map<std::string, std::string> process_names_;
  std::unordered_map<std::string, std::string> process_labels_;
  std::unordered_map<TrackKey, std::string, TrackKeyHash> thread_names_;
  timeline::ChunkedVector<PendingSpan> spans_;
  std::vector<std::string_view> gpu_bytes_;  // PendingSpan::bytes
  std::vector<PendingMark> marks_;
  std::vector<std::vector<OpenBegin>> open_;
  timeline::ChunkedVector<FlowEnd> flow_starts_;
  timeline::ChunkedVector<FlowEnd> flow_finishes_;
  std::unordered_map<std::string_view, std::size_t> flow_texts_;  // ids that are not numbers
  bool kineto_seen_ = false;
  bool legacy_torch_seen_ = false;
  std::optional<ClockSync> clock_sync_;
  std::vector<std::string> scoped_models_;  // from jouleprof::module_scopes scopes, in trace order
  std::uint64_t events_ = 0;
  std::uint64_t skipped_ = 0;
  std::uint64_t unmatched_ends_ = 0;
  std::vector<std::string> warnings_;
};

void TraceBuilder::classify_tensorflow_track(LocalTrack& track, std::string_view process) {
  const auto gpu = number_after(process, "device:GPU:");
  const auto cpu = number_after(process, "device:CPU:");
  const bool stream = process.find("/stream:") != std::string_view::npos;
  const bool memcpy = process.find("/memcpy") != std::string_view::npos;
  if (process.ends_with(" Tensors") || process == "Allocators") {
    track.skip = true;
    return;
  }
  if (gpu && (stream || memcpy)) {
    track.kind = TrackKind::kGpuStream;
    track.device_name = fmt::format("gpu{}", *gpu);
    track.gpu = true;
  } else {
    // Op scheduling on the host, also for ops placed on a GPU: the kernels run on its streams.
    track.kind = TrackKind::kCpuThread;
    track.device_name = cpu ? fmt::format("cpu{}", *cpu) : "cpu0";
  }
  const std::string_view tid = unquoted(track.key.tid);
  track.name = tid == "0" ? std::string(process) : fmt::format("{} (lane {})", process, tid);
}

void TraceBuilder::classify_tracks(TraceFormat format) {
  if (format == TraceFormat::kTensorFlow) {
    // stream:all repeats every kernel of the per-stream lanes: keep the lanes when both exist.
    std::unordered_map<std::int64_t, bool> gpu_has_streams;
    for (const auto& [pid, process] : process_names_) {
      const auto gpu = number_after(process, "device:GPU:");
      if (gpu && number_after(process, "/stream:")) gpu_has_streams[*gpu] = true;
    }
    for (LocalTrack& track : tracks_) {
      const auto it = process_names_.find(std::string(unquoted(track.key.pid)));
      const std::string process =
          it != process_names_.end() ? it->second : std::string(unquoted(track.key.pid));
      classify_tensorflow_track(track, process);
      const auto gpu = number_after(process, "device:GPU:");
      if (gpu && process.find("/stream:all") != std::string::npos && gpu_has_streams[*gpu]) {
        track.skip = true;
      }
    }
    if (std::any_of(gpu_has_streams.begin(), gpu_has_streams.end(),
                    [](const auto& kv) { return kv.second; })) {
      warnings_.push_back(
          "TensorFlow timeline: the stream:all lanes repeat the per-stream lanes and were left "
          "out");
    }
    return;
  }
  for (LocalTrack& track : tracks_) {
    const std::string pid(unquoted(track.key.pid));
    const std::string_view tid = unquoted(track.key.tid);
    const auto labels = process_labels_.find(pid);
    if (labels != process_labels_.end() && labels->second.starts_with("GPU")) track.gpu = true;
    const auto thread = thread_names_.find(track.key);
    const std::string thread_name =
        thread != thread_names_.end() ? std::string(trim_ascii_space(thread->second)) : "";
    if (track.gpu) {
      track.kind = TrackKind::kGpuStream;
      const std::int64_t device = track.device >= 0 ? track.device : to_int64(pid).value_or(0);
      track.device_name = fmt::format("gpu{}", device);
      track.name = !thread_name.empty() ? thread_name
                   : track.stream >= 0  ? fmt::format("stream {}", track.stream)
                                        : fmt::format("stream {}", tid);
    } else {
      track.kind = TrackKind::kCpuThread;
      track.device_name = "cpu0";
      track.name = !thread_name.empty() ? thread_name : fmt::format("thread {}", tid);
    }
  }
}

// Kineto writes an ac2g flow from each launch to its kernel; where the kernel lacks a
// `correlation` arg, the flow supplies it (its id is the correlation id).
void TraceBuilder::link_flows() {
  bool needed = false;
  for (std::size_t i = 0; i < spans_.size() && !needed; ++i)
    needed = spans_[i].correlation < 0 && tracks_[spans_[i].span.track].gpu;
  if (!needed || flow_finishes_.empty()) return;
  struct At {
    std::uint32_t track;
    TimeNs t_ns;
    bool operator==(const At&) const = default;
  };
  struct AtHash {
    std::size_t operator()(const At& a) const { return std::hash<TimeNs>()(a.t_ns) * 31 + a.track; }
  };
  std::unordered_map<FlowId, FlowEnd, FlowIdHash> starts;
  for (std::size_t i = 0; i < flow_starts_.size(); ++i)
    starts.emplace(flow_starts_[i].id, flow_starts_[i]);
  std::unordered_map<At, std::size_t, AtHash> span_at;
  for (std::size_t i = 0; i < spans_.size(); ++i) {
    span_at.emplace(At{spans_[i].span.track, spans_[i].span.begin_ns}, i);
  }
  for (std::size_t f = 0; f < flow_finishes_.size(); ++f) {
    const FlowEnd& finish = flow_finishes_[f];
    const auto start = starts.find(finish.id);
    const auto gpu = span_at.find(At{finish.track, finish.t_ns});
    if (start == starts.end() || gpu == span_at.end()) continue;
    const auto launch = span_at.find(At{start->second.track, start->second.t_ns});
    if (launch == span_at.end()) continue;
    PendingSpan& gpu_span = spans_[gpu->second];
    PendingSpan& launch_span = spans_[launch->second];
    if (gpu_span.correlation >= 0) continue;
    const std::int64_t correlation = launch_span.correlation >= 0 ? launch_span.correlation
                                     : finish.id.numbered         ? finish.id.value
                                                                  : -1;
    if (correlation < 0) continue;
    gpu_span.correlation = correlation;
    launch_span.correlation = correlation;
  }
}

// Inserts, before each backward span that was linked to a module, a kLayer span of that module's
// path with the same times (timeline/backward_links.hpp). Returns, per pending span, the index of
// the module span inserted before it (or kNone).
std::vector<std::uint32_t> TraceBuilder::link_backward_to_modules(TraceImport& out) {
  std::vector<timeline::AutogradSpan> host;
  std::vector<std::uint32_t> pending_of_host;
  bool any_sequence = false;
  for (std::size_t i = 0; i < spans_.size(); ++i) {
    const PendingSpan& p = spans_[i];
    if (tracks_[p.span.track].skip || tracks_[p.span.track].kind == TrackKind::kGpuStream) continue;
    timeline::AutogradSpan a;
    a.begin_ns = p.span.begin_ns;
    a.end_ns = p.span.end_ns;
    a.track = p.span.track;
    a.name = p.span.name;
    a.layer = p.span.category == SpanCategory::kLayer;
    a.backward = p.span.pass == Pass::kBackward;
    a.accumulate_grad = is_accumulate_grad(timeline_.name(p.span.name));
    a.sequence = p.sequence;
    a.fwd_thread = p.fwd_thread;
    any_sequence = any_sequence || p.sequence >= 0;
    host.push_back(a);
    pending_of_host.push_back(static_cast<std::uint32_t>(i));
  }
  std::vector<std::uint32_t> inserted_before(spans_.size(), kNoIndex);
  if (!any_sequence &&
      std::none_of(host.begin(), host.end(), [](const auto& a) { return a.backward; })) {
    return inserted_before;
  }
  const timeline::BackwardLinks links = timeline::link_backward(host, timeline_);
  out.backward = BackwardLinkStats{links.nodes,       links.linked_nodes, links.module_nodes,
                                   links.backward_ns, links.linked_ns,    links.module_ns};
  for (const timeline::BackwardModuleSpan& m : links.module_spans) {
    const PendingSpan& wrapped = spans_[pending_of_host[m.wraps]];
    PendingSpan module;
    module.span.begin_ns = wrapped.span.begin_ns;
    module.span.end_ns = wrapped.span.end_ns;
    module.span.track = wrapped.span.track;
    module.span.name = timeline_.intern(m.module_path);
    module.span.category = SpanCategory::kLayer;
    module.span.pass = Pass::kBackward;
    inserted_before[pending_of_host[m.wraps]] = static_cast<std::uint32_t>(spans_.size());
    spans_.push_back(module);
  }
  inserted_before.resize(spans_.size(), kNoIndex);
  return inserted_before;
}

// The pending spans of each track, in input order, each module span inserted before the span it
// wraps: one index array ordered by track (a counting sort), and where each track's part begins.
struct SpansByTrack {
  std::vector<std::uint32_t> spans;
  std::vector<std::size_t> begin;  // track t: spans[begin[t], begin[t + 1])

  std::span<const std::uint32_t> of(std::size_t track) const {
    return std::span<const std::uint32_t>(spans).subspan(begin[track],
                                                         begin[track + 1] - begin[track]);
  }
};

// A number's decimal text, without allocating.
class NumberText {
 public:
  std::string_view of(std::int64_t value) {
    const auto [end, ec] = std::to_chars(text_.data(), text_.data() + text_.size(), value);
    (void)ec;  // 20 digits and a sign always fit
    return std::string_view(text_.data(), static_cast<std::size_t>(end - text_.data()));
  }

 private:
  std::array<char, 24> text_{};
};

// Correlation id -> the host span (timeline index) that launched the GPU work; the first
// launch of an id wins.
class LaunchIndex {
 public:
  void add(std::int64_t correlation, std::uint32_t span) {
    launches_.emplace_back(correlation, span);
  }
  void seal() {
    std::stable_sort(launches_.begin(), launches_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  std::optional<std::uint32_t> find(std::int64_t correlation) const {
    const auto it = std::lower_bound(launches_.begin(), launches_.end(), correlation,
                                     [](const auto& a, std::int64_t c) { return a.first < c; });
    if (it == launches_.end() || it->first != correlation) return std::nullopt;
    return it->second;
  }

 private:
  std::vector<std::pair<std::int64_t, std::uint32_t>> launches_;
};

void TraceBuilder::place_spans(TraceImport& out) {
  for (LocalTrack& track : tracks_) {
    if (!track.skip)
      track.placed = timeline_.add_track(Track{track.kind, track.name, track.device_name});
  }
  const std::size_t traced_spans = spans_.size();
  const std::vector<std::uint32_t> module_before = link_backward_to_modules(out);
  SpansByTrack by_track;
  by_track.begin.assign(tracks_.size() + 1, 0);
  for (std::size_t i = 0; i < traced_spans; ++i) {
    const std::uint32_t track = spans_[i].span.track;
    by_track.begin[track + 1] += module_before[i] != kNoIndex ? 2 : 1;
  }
  for (std::size_t t = 0; t < tracks_.size(); ++t) {
    if (tracks_[t].skip) {
      skipped_ += by_track.begin[t + 1];
      by_track.begin[t + 1] = 0;
    }
    by_track.begin[t + 1] += by_track.begin[t];
  }
  by_track.spans.resize(by_track.begin.back());
  std::vector<std::size_t> next(by_track.begin.begin(), by_track.begin.end() - 1);
  for (std::size_t i = 0; i < traced_spans; ++i) {
    const std::uint32_t track = spans_[i].span.track;
    if (tracks_[track].skip) continue;
    // Equal times: containment keeps input order, so the module span becomes the parent.
    if (module_before[i] != kNoIndex) by_track.spans[next[track]++] = module_before[i];
    by_track.spans[next[track]++] = static_cast<std::uint32_t>(i);
  }
  timeline_.spans().reserve(timeline_.spans().size() + by_track.spans.size());

  // Host tracks first: GPU spans take their pass from the call that launched them.
  LaunchIndex launches;
  std::vector<Span> spans;
  for (std::size_t t = 0; t < tracks_.size(); ++t) {
    if (tracks_[t].skip || tracks_[t].kind == TrackKind::kGpuStream) continue;
    spans.clear();
    for (const std::uint32_t i : by_track.of(t)) {
      spans.push_back(spans_[i].span);
      spans.back().track = tracks_[t].placed;
    }
    const std::vector<std::uint32_t> placed = timeline::append_by_containment(timeline_, spans);
    const std::span<const std::uint32_t> pending = by_track.of(t);
    for (std::size_t k = 0; k < placed.size(); ++k) {
      const std::int64_t correlation = spans_[pending[k]].correlation;
      if (correlation >= 0) launches.add(correlation, placed[k]);
    }
  }
  launches.seal();
  for (std::size_t t = 0; t < tracks_.size(); ++t) {
    if (tracks_[t].skip || tracks_[t].kind != TrackKind::kGpuStream) continue;
    spans.clear();
    for (const std::uint32_t i : by_track.of(t)) {
      const PendingSpan& p = spans_[i];
      Span span = p.span;
      span.track = tracks_[t].placed;
      if (span.category == SpanCategory::kOp) span.category = SpanCategory::kKernel;  // TF lanes
      std::array<AttributeSet::Entry, 3> attrs;
      std::size_t count = 0;
      NumberText correlation_text;
      NumberText launch_text;
      if (p.correlation >= 0) {
        attrs[count++] = {"correlation", correlation_text.of(p.correlation)};
        if (const auto launch = launches.find(p.correlation)) {
          attrs[count++] = {"launch_span", launch_text.of(*launch)};
          if (span.pass == Pass::kNone) span.pass = timeline_.spans()[*launch].pass;
          ++out.gpu_spans_linked;
        }
      }
      if (p.bytes != kNoIndex) attrs[count++] = {"bytes", gpu_bytes_[p.bytes]};
      if (count > 0) span.attributes = timeline_.add_attributes(std::span(attrs.data(), count));
      spans.push_back(span);
      ++out.gpu_spans;
    }
    timeline::append_by_containment(timeline_, spans);
  }
  for (const PendingMark& m : marks_) {
    if (!tracks_[m.track].skip) timeline_.add_mark(Mark{m.t_ns, tracks_[m.track].placed, m.name});
  }
}

// trace_ns = baseTimeNanoseconds + ts; monotonic = trace_ns + offset. In order: an explicit
// offset, an explicit clock, the first clock_sync scope, the clock the format implies.
void TraceBuilder::map_clock(const timeline::ChromeTraceHeader& header,
                             const TraceImportOptions& options, TraceImport& out) {
  const TimeNs base_ns = header.base_time_ns.value_or(0);
  out.clock = options.clock;
  if (out.clock == TraceClock::kAuto) {
    if (out.format == TraceFormat::kTorchLegacy) {
      out.clock = TraceClock::kRelative;
    } else if (out.format == TraceFormat::kChrome) {
      const auto [first, last] = timeline_.extent();
      (void)last;
      out.clock =
          base_ns + first >= kEpochTimesFromNs ? TraceClock::kRealtime : TraceClock::kMonotonic;
    } else {
      out.clock = TraceClock::kRealtime;
    }
  }
  if (options.offset_ns) {
    out.offset_ns = *options.offset_ns;
    out.clock_mapping = fmt::format("offset {} ns given explicitly", out.offset_ns);
  } else if (clock_sync_ && options.clock == TraceClock::kAuto) {
    out.offset_ns = clock_sync_->monotonic_ns - (base_ns + clock_sync_->trace_ns);
    out.clock_mapping = fmt::format(
        "the trace's jouleprof::clock_sync scope (monotonic {} ns at trace time {} ns): offset {} "
        "ns",
        clock_sync_->monotonic_ns, base_ns + clock_sync_->trace_ns, out.offset_ns);
  } else if (out.clock == TraceClock::kRealtime) {
    const ClockAnchor anchor = options.anchor.value_or(ClockAnchor::capture());
    out.offset_ns = anchor.monotonic_ns - anchor.realtime_ns;
    out.clock_mapping = fmt::format(
        "realtime to monotonic through {} anchor (realtime {} ns = monotonic {} ns): offset {} ns",
        options.anchor ? "the given"
                       : "this host's current (valid for traces recorded here since boot)",
        anchor.realtime_ns, anchor.monotonic_ns, out.offset_ns);
  } else if (out.clock == TraceClock::kRelative) {
    out.offset_ns = 0;
    out.clock_established = false;
    out.clock_mapping =
        "none: torch's legacy profiler counts from its own start and the trace has no "
        "jouleprof::clock_sync scope";
  } else {
    out.offset_ns = 0;
    out.clock_mapping = "trace times taken as CLOCK_MONOTONIC: offset 0 ns";
  }
  if (base_ns != 0) {
    out.clock_mapping += fmt::format("; trace time = baseTimeNanoseconds {} + ts", base_ns);
  }
}

// A clock offset that would move the trace's times past 64-bit nanoseconds (an --offset-ns of
// INT64_MAX would otherwise date them in 1734).
Error out_of_range(std::string_view origin, const std::string& clock_mapping) {
  return Error(
      ErrorCode::kInvalidInput,
      fmt::format("{}: the trace's times, moved by its clock offset ({}), leave the 64-bit "
                  "nanosecond range (±292 years)",
                  origin, clock_mapping));
}

Result<TraceImport> TraceBuilder::finish(const timeline::ChromeTraceHeader& header,
                                         const TraceImportOptions& options) {
  TraceImport out;
  const bool tensorflow =
      std::any_of(process_names_.begin(), process_names_.end(),
                  [](const auto& kv) { return kv.second.find("/device:") != std::string::npos; });
  out.format = tensorflow ? TraceFormat::kTensorFlow
               : (header.base_time_ns || header.has_device_properties || kineto_seen_)
                   ? TraceFormat::kKineto
               : legacy_torch_seen_ ? TraceFormat::kTorchLegacy
                                    : TraceFormat::kChrome;
  classify_tracks(out.format);
  link_flows();
  place_spans(out);
  timeline::mark_collectives(timeline_);
  for (std::size_t t = 0; t < open_.size(); ++t) {
    if (!open_[t].empty()) {
      warnings_.push_back(fmt::format("{} B event(s) on track {} never ended and were left out",
                                      open_[t].size(), tracks_[t].name));
    }
  }
  if (unmatched_ends_ > 0) {
    warnings_.push_back(
        fmt::format("{} E event(s) without a B event were left out", unmatched_ends_));
  }

  for (const std::string& model : scoped_models_) {
    const bool ran =
        std::any_of(timeline_.spans().begin(), timeline_.spans().end(), [&](const Span& s) {
          return s.category == SpanCategory::kLayer && timeline_.name(s.name) == model;
        });
    if (!ran) out.scoped_models_not_run.push_back(model);
  }

  map_clock(header, options, out);
  const TimeNs base_ns = header.base_time_ns.value_or(0);
  TimeNs shift_ns = 0;
  if (__builtin_add_overflow(base_ns, out.offset_ns, &shift_ns)) {
    return invalid_input(origin_, "baseTimeNanoseconds", std::to_string(base_ns),
                         "with the clock offset it leaves the 64-bit nanosecond range");
  }
  if (!timeline_.shift(shift_ns)) return out_of_range(origin_, out.clock_mapping);
  out.timeline = std::move(timeline_);
  out.events = events_;
  out.skipped_events = skipped_;
  out.warnings = std::move(warnings_);
  return out;
}

Result<TraceImport> from_span_dump(const timeline::TraceText& text, std::string_view origin,
                                   const TraceImportOptions& options) {
  JP_TRY(SpanDump dump, timeline::parse_span_dump(text, origin));
  TraceImport out;
  out.format = TraceFormat::kSpanDump;
  out.clock = TraceClock::kMonotonic;
  out.offset_ns = options.offset_ns.value_or(0);
  out.clock_mapping = options.offset_ns
                          ? fmt::format("offset {} ns given explicitly", out.offset_ns)
                          : "span dumps are CLOCK_MONOTONIC: offset 0 ns";
  out.timeline = std::move(dump.timeline);
  if (!out.timeline.shift(out.offset_ns)) return out_of_range(origin, out.clock_mapping);
  out.events = out.timeline.spans().size() + out.timeline.marks().size();
  out.dropped = dump.dropped;
  for (const Span& s : out.timeline.spans()) {
    if (out.timeline.tracks()[s.track].kind == TrackKind::kGpuStream) ++out.gpu_spans;
  }
  if (dump.dropped > 0) {
    out.warnings.push_back(fmt::format(
        "the recorder dropped {} records (full buffers): spans are missing", dump.dropped));
  }
  return out;
}

// Streams the Chrome trace from `text`; a span dump (its "format" comes first) is parsed whole
// from what `whole_text` gives.
template <typename WholeText>
Result<TraceImport> import_stream(timeline::TextSource& text, std::string_view origin,
                                  const TraceImportOptions& options, const WholeText& whole_text) {
  TraceBuilder builder(origin);
  timeline::ChromeTraceHeader header;
  JP_RETURN_IF_ERROR(timeline::read_chrome_trace(text, origin, header, builder));
  if (header.is_span_dump) {
    JP_TRY(const timeline::TraceText whole, whole_text());
    return from_span_dump(whole, origin, options);
  }
  return builder.finish(header, options);
}

}  // namespace

Result<TraceImport> import_trace(const std::string& path, const TraceImportOptions& options) {
  JP_TRY(std::unique_ptr<timeline::TraceStream> stream, timeline::TraceStream::open(path));
  return import_stream(*stream, path, options, [&] { return timeline::read_trace_file(path); });
}

Result<TraceImport> import_trace_text(std::string text, std::string_view origin,
                                      const TraceImportOptions& options) {
  const timeline::TraceText whole(std::move(text));
  timeline::MemoryText source(whole.view());
  return import_stream(source, origin, options,
                       [&]() -> Result<timeline::TraceText> { return whole; });
}

}  // namespace jouleprof
