// Attaching a recorded trace to a measured profile, the one way the CLI's `attribute`, the C
// API's jp_attribute and `run --spans` do it:
//
//   JP_TRY(Profile profile, read_profile_json("run/profile.json"));
//   JP_TRY(AttachedTrace attached, attach_trace(profile, "trace.json"));
//   JP_RETURN_IF_ERROR(attribute_profile(profile, {}));
//
// The trace becomes the profile's timeline; how its clock was put on the monotonic axis is
// recorded in the profile's options under one key set (trace.path, trace.format,
// trace.clock_mapping, trace.offset_ns, and for a backward pass trace.backward_*), and the spans
// are checked to lie inside the samples' window.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "jouleprof/clock.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/trace_import.hpp"

namespace jouleprof {

struct AttachTraceOptions {
  // monotonic_ns = trace_ns + offset_ns, overriding the trace's own clock mapping.
  std::optional<TimeNs> offset_ns;
  // The recording's clock pair for a trace on the realtime clock; default: the profile's run
  // anchor when it has one, else this host's.
  std::optional<ClockAnchor> anchor;
  // Names the samples in messages; default: "the profile's samples".
  std::string samples_origin;
};

// What the import found, for a caller that shows it.
struct AttachedTrace {
  TraceFormat format = TraceFormat::kChrome;
  std::string clock_mapping;
  BackwardLinkStats backward;
  std::uint64_t dropped = 0;  // span dumps: records the recorder had to drop
};

// Reads `path` (every format import_trace reads, span dumps included) into profile.timeline.
// Errors: the trace cannot be read, the profile has no energy readings, or the trace's clock has
// no mapping or under half of its span time lies inside the samples (the message names both
// windows in UTC and says how to fix it; such an error's subject is ErrorSubject::kTraceClock).
Result<AttachedTrace> attach_trace(Profile& profile, const std::string& path,
                                   const AttachTraceOptions& options = {});

}  // namespace jouleprof
