// Importing traces written by other tools onto jouleprof's monotonic axis.
//
//   jouleprof::TraceImportOptions options;
//   options.anchor = jouleprof::ClockAnchor{mono_ns, real_ns};  // from the recording host
//   JP_TRY(auto imported, jouleprof::import_trace("bert.json.gz", options));
//   // imported.timeline: tracks, spans, marks; imported.offset_ns: the clock offset applied
//
// Formats, detected from the content (plain or gzip-compressed, whatever the file name):
//   - Chrome trace JSON from the PyTorch profiler (Kineto): CPU ops, python functions and module
//     scopes, user annotations, CUDA runtime calls, GPU kernels / memcpy / memset on stream
//     tracks, linked to their launching call through `correlation` args or `ac2g` flows;
//   - Chrome trace JSON from TensorFlow's timeline: process metadata naming the devices, complete
//     events whose `args.name` is the op's hierarchical name;
//   - the bare event array of torch's legacy profiler (builds without Kineto, e.g. Debian's torch
//     1.13): operators and user scopes by name, times since the profiler's start;
//   - any other Chrome trace (X, B/E and instant events);
//   - jouleprof's own span dump (span_dump.hpp).
// In torch.profiler traces each backward node goes under the module whose forward op created it
// (a kLayer span of that module's path with the pass kBackward; TraceImport::backward counts what
// was linked). docs/timeline.md lists how each format's fields map onto spans and how its clock
// is mapped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/timeline.hpp"
#include "jouleprof/trace_format.hpp"

namespace jouleprof {

// What a trace's timestamps count.
enum class TraceClock : std::uint8_t {
  kAuto = 0,      // Kineto and TensorFlow: realtime; span dumps: monotonic; other Chrome traces:
                  // realtime when the times look like Unix epoch times (after 2001), else monotonic
  kRealtime = 1,  // CLOCK_REALTIME (Unix epoch)
  kMonotonic = 2,  // CLOCK_MONOTONIC of the recording host
  kRelative = 3,   // time since the profiler started (torch's legacy profiler): no absolute clock
};

struct TraceImportOptions {
  // The recording host's clock pair, for traces on the realtime clock. Without one, this host's
  // pair is captured at import: right for traces recorded here since the last boot.
  std::optional<ClockAnchor> anchor;
  // Overrides everything: monotonic_ns = trace_ns + offset_ns, where trace_ns is the trace's own
  // time in nanoseconds (for Kineto: baseTimeNanoseconds + ts_us × 1000).
  std::optional<TimeNs> offset_ns;
  TraceClock clock = TraceClock::kAuto;
};

// Backward nodes of a torch.profiler trace: the outermost spans of the backward pass on host
// tracks (the engine's evaluate_function wrappers), and how many were linked to the forward op
// that created them and, through it, to a module.
struct BackwardLinkStats {
  std::uint64_t nodes = 0;
  std::uint64_t linked_nodes = 0;
  std::uint64_t module_nodes = 0;
  TimeNs backward_ns = 0;
  TimeNs linked_ns = 0;
  TimeNs module_ns = 0;

  // Share of backward time not charged to a module (0 when the trace has no backward pass).
  double unlinked_share() const {
    return backward_ns > 0 ? 1.0 - static_cast<double>(module_ns) / static_cast<double>(backward_ns)
                           : 0.0;
  }
};

struct TraceImport {
  Timeline timeline;
  TraceFormat format = TraceFormat::kChrome;
  TraceClock clock = TraceClock::kMonotonic;  // what the trace's times counted
  TimeNs offset_ns = 0;                       // added to every trace time (ns)
  std::string clock_mapping;                  // how offset_ns was obtained, in words
  // False when the trace's times have no known relation to CLOCK_MONOTONIC (kRelative without a
  // clock_sync scope or an explicit offset): its spans cannot be placed against any samples.
  bool clock_established = true;
  BackwardLinkStats backward;
  // The models jouleprof's Python module hooks were put on (their "jouleprof::module_scopes
  // <name>" scopes) of which the trace holds no forward: the hooks never fired, so the code that
  // ran used a different module object than the one they were put on.
  std::vector<std::string> scoped_models_not_run;
  std::uint64_t events = 0;          // trace events read
  std::uint64_t skipped_events = 0;  // metadata, flows, counters, profiler overhead
  std::uint64_t gpu_spans = 0;
  std::uint64_t gpu_spans_linked = 0;  // GPU spans whose launching CPU call was found
  std::uint64_t dropped = 0;           // span dumps: records the recorder had to drop
  std::vector<std::string> warnings;
};

// Reads and converts `path`. Errors name the file, the event (traceEvents[i]) and the field.
Result<TraceImport> import_trace(const std::string& path, const TraceImportOptions& options = {});
// The same for text in memory; `origin` names it in error messages.
Result<TraceImport> import_trace_text(std::string text, std::string_view origin,
                                      const TraceImportOptions& options = {});

}  // namespace jouleprof
