// The recorder: spans from instrumented code, on the hot path.
//
//   jouleprof::Recorder::global().start();
//   {
//     JOULEPROF_SCOPE("encoder/layer_3");         // RAII: begin now, end at scope exit
//     JOULEPROF_SCOPE_CAT("matmul", jouleprof::SpanCategory::kOp);
//     ...
//   }
//   jouleprof::epoch_end();
//   jouleprof::Timeline t = jouleprof::Recorder::global().collect();
//
// begin/end cost tens of nanoseconds: each thread writes fixed-size records into its own bounded
// buffer (no locks, no allocation, no formatting); names are interned once, up front. When
// recording is off, begin/end cost one relaxed atomic load. Nesting on a thread builds the path.
#pragma once

#include <cstdint>
#include <string_view>

#include "jouleprof/clock.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/timeline.hpp"

namespace jouleprof {

using NameId = std::uint32_t;

// Interns a name for the hot path (thread-safe; takes a lock: call it once per name).
NameId intern_name(std::string_view name);

class Recorder {
 public:
  static Recorder& global();

  void start();  // clears earlier records and begins recording on every thread
  void stop();
  bool enabled() const;

  // Moves everything recorded so far (all threads) into a Timeline: one CPU-thread track per
  // thread, parents from nesting. Spans still open are closed at the collect time.
  Timeline collect();

  // Records dropped because a thread's buffer was full (reported, never silent).
  std::uint64_t dropped() const;

  // Off the hot path: a span with explicit times on a named track (GPU kernels measured with
  // device events, spans imported from another process).
  void add_external_span(TrackKind kind, std::string_view track_name, std::string_view device,
                         NameId name, TimeNs begin_ns, TimeNs end_ns, SpanCategory category,
                         Pass pass = Pass::kNone);
};

void begin(NameId name, SpanCategory category = SpanCategory::kRegion,
           Pass pass = Pass::kNone) noexcept;
void end() noexcept;
void mark(NameId name) noexcept;
void epoch_end() noexcept;  // a mark named "epoch_end"

class Scope {
 public:
  explicit Scope(NameId name, SpanCategory category = SpanCategory::kRegion,
                 Pass pass = Pass::kNone) noexcept {
    begin(name, category, pass);
  }
  ~Scope() { end(); }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
};

}  // namespace jouleprof

#define JOULEPROF_SCOPE_CAT(name, category)                                                  \
  static const ::jouleprof::NameId JP_CONCAT_(jp_name_, __LINE__) =                          \
      ::jouleprof::intern_name(name);                                                        \
  ::jouleprof::Scope JP_CONCAT_(jp_scope_, __LINE__)(JP_CONCAT_(jp_name_, __LINE__), category)
#define JOULEPROF_SCOPE(name) JOULEPROF_SCOPE_CAT(name, ::jouleprof::SpanCategory::kRegion)
