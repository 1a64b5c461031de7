// The recorder: spans from instrumented code, on the hot path.
//
//   jouleprof::Recorder::global().start();
//   {
//     JOULEPROF_SCOPE("encoder/layer_3");         // RAII: begin now, end at scope exit
//     JOULEPROF_SCOPE_CAT("matmul", jouleprof::SpanCategory::kOp);
//     jouleprof::annotate("shape", "[32,128,768]");  // off the hot path: attaches to "matmul"
//     ...
//   }
//   jouleprof::epoch_end();  // after jouleprof::epoch_begin() at the epoch's start
//   jouleprof::Timeline t = jouleprof::Recorder::global().collect();
//
// begin/end cost tens of nanoseconds: each thread writes fixed-size records into its own bounded
// buffer (no locks, no allocation, no formatting); names are interned once, up front. When
// recording is off, begin/end cost one relaxed atomic load. Nesting on a thread builds the path;
// a '/' in a name adds levels of its own ("encoder/layer_3" under "bert" is bert/encoder/layer_3).
//
// Timestamps are raw on the hot path (the CPU's time-stamp counter where the kernel itself uses
// it as its clock source, else CLOCK_MONOTONIC) and converted to the one monotonic axis when
// collected; docs/timeline.md says how.
//
// A process started with JOULEPROF_SPANS_FILE=PATH in its environment starts recording by itself
// and writes its spans to PATH (jouleprof's span dump) when it exits; this is how
// `jouleprof run --spans` collects spans from a child.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jouleprof/clock.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/timeline.hpp"

namespace jouleprof {

using NameId = std::uint32_t;

// Records per thread and recording session (16 bytes each) unless set_buffer_records says
// otherwise: 16 MiB of address space per recording thread, committed only as it fills. At two
// records per span that is half a million spans per thread; beyond it records are dropped and
// counted.
inline constexpr std::size_t kDefaultBufferRecords = std::size_t{1} << 20;

// The environment variable that turns on recording at start-up and names the span dump written
// at exit. "%p" in it is replaced by the process id, so that forked children write their own files.
inline constexpr const char* kSpansFileEnv = "JOULEPROF_SPANS_FILE";

// Interns a name for the hot path (thread-safe; takes a lock: call it once per name).
NameId intern_name(std::string_view name);

class Recorder {
 public:
  static Recorder& global();

  void start();  // clears earlier records and begins recording on every thread
  void stop();
  bool enabled() const;

  // Moves everything recorded so far (all threads) into a Timeline: one CPU-thread track per
  // thread, parents from nesting. Spans still open are cut at the thread's last record read by
  // this collect (or at the stop time, or where the thread's buffer filled up) and continue from
  // there in the next collect, so that no child outlives its parent in either piece.
  Timeline collect();

  // Records dropped because a thread's buffer was full (reported, never silent).
  std::uint64_t dropped() const;

  // Off the hot path: a span with explicit times on a named track (GPU kernels measured with
  // device events, spans imported from another process). Accepted whether or not recording is on;
  // start() discards earlier ones. Parents come from containment on each track; an end before
  // the begin is taken as the begin (a zero-length span).
  void add_external_span(TrackKind kind, std::string_view track_name, std::string_view device,
                         NameId name, TimeNs begin_ns, TimeNs end_ns, SpanCategory category,
                         Pass pass = Pass::kNone);

  // Capacity, in records, of the buffers threads get from the next start() on (at least 2).
  void set_buffer_records(std::size_t records);
  std::size_t buffer_records() const;

  // "tsc" or "clock_gettime": which raw clock the hot path reads (decided at the first start();
  // JOULEPROF_RECORDER_CLOCK=tsc|clock_gettime overrides).
  std::string_view clock_source() const;
};

namespace detail {
// Bit 0: recording on. The bits above: the recording session, incremented by every start().
extern std::atomic<std::uint64_t> recorder_state;
void record_begin(std::uint64_t state, NameId name, SpanCategory category, Pass pass) noexcept;
void record_end(std::uint64_t state) noexcept;
void record_mark(std::uint64_t state, NameId name) noexcept;
}  // namespace detail

inline void begin(NameId name, SpanCategory category = SpanCategory::kRegion,
                  Pass pass = Pass::kNone) noexcept {
  const std::uint64_t state = detail::recorder_state.load(std::memory_order_relaxed);
  if (state & 1U) detail::record_begin(state, name, category, pass);
}
inline void end() noexcept {
  const std::uint64_t state = detail::recorder_state.load(std::memory_order_relaxed);
  if (state & 1U) detail::record_end(state);
}
inline void mark(NameId name) noexcept {
  const std::uint64_t state = detail::recorder_state.load(std::memory_order_relaxed);
  if (state & 1U) detail::record_mark(state, name);
}
// Training epochs: marks named "epoch_begin" and "epoch_end" (and, under `jouleprof run
// --epochs`, lines in its epoch file: epoch_file.hpp). Epoch 1 starts at the first epoch_begin();
// without one, at the first step, else at the start of the run (start-up included, which the
// run's warnings then say). Without epoch_begin() an epoch starts where the previous one ended.
void epoch_begin() noexcept;
void epoch_end() noexcept;

// Off the hot path (allocates; takes this thread's own lock, which only collect() contends):
// attaches key=value to the innermost span open on this thread — tensor shapes, bytes moved,
// element counts. Several calls add to the same set. Ignored when recording is off or no span is
// open at that point.
void annotate(std::string_view key, std::string_view value);
void annotate(std::string_view key, std::int64_t value);
void annotate(const Attributes& attributes);

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

#define JOULEPROF_SCOPE_PASS(name, category, pass)                  \
  static const ::jouleprof::NameId JP_CONCAT_(jp_name_, __LINE__) = \
      ::jouleprof::intern_name(name);                               \
  ::jouleprof::Scope JP_CONCAT_(jp_scope_, __LINE__)(JP_CONCAT_(jp_name_, __LINE__), category, pass)
#define JOULEPROF_SCOPE_CAT(name, category) \
  JOULEPROF_SCOPE_PASS(name, category, ::jouleprof::Pass::kNone)
#define JOULEPROF_SCOPE(name) JOULEPROF_SCOPE_CAT(name, ::jouleprof::SpanCategory::kRegion)
