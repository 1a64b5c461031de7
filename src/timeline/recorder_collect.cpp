// Recorder::collect(): turns the threads' raw records into a Timeline, off the hot path.
#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "jouleprof/recorder.hpp"
#include "timeline/containment.hpp"
#include "timeline/name_table.hpp"
#include "timeline/recorder_state.hpp"

namespace jouleprof {
namespace {

using timeline::CarriedSpan;
using timeline::Record;
using timeline::RecordKind;
using timeline::ThreadBuffer;

// NameId -> the timeline's own name index, interning on first use.
class NameMapper {
 public:
  NameMapper(Timeline& timeline, std::vector<std::string> names)
      : timeline_(timeline), names_(std::move(names)), ids_(names_.size(), kNoIndex) {}

  std::uint32_t operator()(NameId id) {
    if (id >= names_.size())
      return timeline_.intern("[unknown name id " + std::to_string(id) + "]");
    if (ids_[id] == kNoIndex) ids_[id] = timeline_.intern(names_[id]);
    return ids_[id];
  }

 private:
  Timeline& timeline_;
  std::vector<std::string> names_;
  std::vector<std::uint32_t> ids_;
};

struct CollectContext {
  Timeline& timeline;
  NameMapper& names;
  const timeline::RawToMonotonic& to_ns;
  TimeNs close_ns;       // where spans still open end: the collect time or the stop time
  bool still_recording;  // open spans continue into the next collect
};

// Reads one thread's new records: begin/end nesting gives the parents; a span with no pass takes
// its parent's.
void collect_thread(ThreadBuffer& buffer, CollectContext& ctx) {
  const std::uint32_t size = buffer.size.load(std::memory_order_acquire);
  if (size == buffer.consumed && buffer.carried.empty()) return;

  Timeline& t = ctx.timeline;
  const std::uint32_t track = t.add_track(
      Track{TrackKind::kCpuThread, "thread " + std::to_string(buffer.tid), buffer.device});
  std::vector<std::uint32_t> open;  // timeline span indices, outermost first
  std::vector<CarriedSpan> open_source;
  std::map<std::uint32_t, Attributes> attributes_of;

  const auto open_span = [&](TimeNs begin_ns, NameId name, SpanCategory category, Pass pass) {
    Span span;
    span.begin_ns = begin_ns;
    span.end_ns = begin_ns;
    span.track = track;
    span.name = ctx.names(name);
    span.parent = open.empty() ? kNoIndex : open.back();
    span.category = category;
    span.pass = (pass == Pass::kNone && !open.empty()) ? t.spans()[open.back()].pass : pass;
    open.push_back(t.add_span(span));
    open_source.push_back(CarriedSpan{name, category, pass});
  };
  for (const CarriedSpan& c : buffer.carried) {
    open_span(buffer.carried_from_ns, c.name, c.category, c.pass);
  }

  TimeNs close_ns = ctx.close_ns;
  bool overflowed = false;
  std::vector<Attributes> pending;
  {
    const std::lock_guard lock(buffer.attributes_mutex);
    pending = buffer.attributes;
  }
  // While the thread keeps recording, the collect time is no clean cut: records stamped after it
  // can be read now, and records stamped before it can still be on their way. Spans still open are
  // cut at the last record read instead (or where the carried spans began): every child read now
  // ends before it, and every record read next time, being later on this thread, comes after it.
  TimeNs latest_ns =
      buffer.carried.empty() ? std::numeric_limits<TimeNs>::min() : buffer.carried_from_ns;
  for (std::uint32_t i = buffer.consumed; i < size && !overflowed; ++i) {
    const Record& r = buffer.records[i];
    const TimeNs at = ctx.to_ns(r.raw_time);
    if (r.kind != RecordKind::kOverflow) latest_ns = std::max(latest_ns, at);
    switch (r.kind) {
      case RecordKind::kBegin:
        open_span(at, r.payload, r.category, r.pass);
        break;
      case RecordKind::kEnd:
        // An end without a begin belongs to a span begun before recording started: ignored.
        if (!open.empty()) {
          t.spans()[open.back()].end_ns = std::max(at, t.spans()[open.back()].begin_ns);
          open.pop_back();
          open_source.pop_back();
        }
        break;
      case RecordKind::kMark:
        t.add_mark(Mark{at, track, ctx.names(r.payload)});
        break;
      case RecordKind::kAttributes:
        if (!open.empty() && r.payload < pending.size()) {
          Attributes& target = attributes_of[open.back()];
          const Attributes& more = pending[r.payload];
          target.insert(target.end(), more.begin(), more.end());
        }
        break;
      case RecordKind::kOverflow:
        close_ns = std::min(close_ns, at);
        overflowed = true;
        break;
    }
  }
  if (!overflowed) close_ns = ctx.still_recording ? latest_ns : std::max(close_ns, latest_ns);
  for (const std::uint32_t span : open) {
    t.spans()[span].end_ns = std::max(close_ns, t.spans()[span].begin_ns);
  }
  for (auto& [span, attrs] : attributes_of)
    t.spans()[span].attributes = t.add_attributes(std::move(attrs));

  buffer.consumed = size;
  if (ctx.still_recording && !overflowed) {
    buffer.carried = std::move(open_source);
    buffer.carried_from_ns = close_ns;
  } else {
    buffer.carried.clear();
  }
}

void collect_external(std::vector<timeline::ExternalSpan>& external, CollectContext& ctx) {
  using TrackKey = std::tuple<TrackKind, std::string, std::string>;
  std::map<TrackKey, std::vector<Span>> by_track;
  std::vector<TrackKey> track_order;
  for (const timeline::ExternalSpan& e : external) {
    TrackKey key{e.kind, e.track_name, e.device};
    auto [it, inserted] = by_track.try_emplace(key);
    if (inserted) track_order.push_back(key);
    Span span;
    span.begin_ns = e.begin_ns;
    span.end_ns = e.end_ns;
    span.name = ctx.names(e.name);
    span.category = e.category;
    span.pass = e.pass;
    it->second.push_back(span);
  }
  for (const TrackKey& key : track_order) {
    const auto& [kind, name, device] = key;
    const std::uint32_t track = ctx.timeline.add_track(Track{kind, name, device});
    std::vector<Span>& spans = by_track[key];
    for (Span& s : spans) s.track = track;
    timeline::append_by_containment(ctx.timeline, spans);
  }
  external.clear();
}

}  // namespace

Timeline Recorder::collect() {
  timeline::Registry& registry = timeline::Registry::instance();
  const std::lock_guard lock(registry.mutex);
  Timeline result;
  const std::uint64_t state = detail::recorder_state.load(std::memory_order_acquire);
  NameMapper names(result, timeline::NameTable::instance().snapshot());
  const timeline::RawAnchor now = timeline::RawAnchor::capture(registry.clock);
  const timeline::RawToMonotonic to_ns(registry.clock, registry.start_anchor, now);
  CollectContext ctx{result, names, to_ns,
                     registry.stopped ? to_ns(registry.stop_raw) : now.monotonic_ns,
                     (state & 1U) != 0};
  if (state != 0) {
    const std::uint64_t session = timeline::recording_state_of(state);
    for (const auto& buffer : registry.buffers) {
      if (buffer->session.load(std::memory_order_relaxed) == session) collect_thread(*buffer, ctx);
    }
  }
  collect_external(registry.external, ctx);
  return result;
}

}  // namespace jouleprof
