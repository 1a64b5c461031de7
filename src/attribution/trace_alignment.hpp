// The checks that keep a trace on the wrong clock from passing as a tree of zeros: before
// attributing samples to an imported trace, its spans must lie in the samples' window; after,
// some span must have received energy.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/series.hpp"
#include "jouleprof/timeline.hpp"
#include "jouleprof/trace_import.hpp"

namespace jouleprof::attribution {

struct TimeWindow {
  TimeNs begin_ns = 0;
  TimeNs end_ns = 0;
};

// From the first to the last reading of the channels that carry energy; nullopt when none has
// a reading.
std::optional<TimeWindow> samples_window(const std::vector<Series>& series);

// samples_window, or invalid input naming `samples_origin` when no channel that carries energy
// has a reading: checked before anything is matched against the samples' clock.
Result<TimeWindow> require_energy_readings(const std::vector<Series>& series,
                                           std::string_view samples_origin);

// Share of the spans' summed time that lies inside `window` (1 when there are no spans).
double span_time_share_inside(const Timeline& timeline, TimeWindow window);

// What the caller knows about how the trace's clock was mapped (TraceImport's fields).
struct TraceClockFacts {
  std::string_view trace_origin;    // file name, for the message
  std::string_view samples_origin;  // likewise
  bool clock_established = true;
  std::string_view clock_mapping;
  ClockAnchor anchor;  // to show monotonic times as wall-clock times (captured here if zero)
};

// Invalid input when the trace's clock has no mapping, or when under half of its span time lies
// inside `samples`: the message names both windows in wall-clock time (UTC) and how to fix it.
Status check_trace_alignment(const Timeline& timeline, TimeWindow samples,
                             const TraceClockFacts& facts);

// Invalid input when no span received energy (every joule is [unattributed], or none was
// measured): a tree of zeros is never a result. The message says which devices the tracks and
// the channels are on.
Status check_energy_reached_spans(const Profile& profile);

// Takes an imported trace as the profile's timeline: records how it was read (options trace.*:
// path, format, clock mapping and offset, the backward pass's time and the shares linked to the
// forward ops and to modules), passes its warnings on, warns when backward time could not be
// charged to a module and why, and checks its clock against the samples (check_trace_alignment).
Status adopt_trace(Profile& profile, TraceImport imported, std::string_view trace_origin,
                   std::string_view samples_origin);

}  // namespace jouleprof::attribution
