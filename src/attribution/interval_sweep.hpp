// The sweep at the heart of attribution. Spans are first cut into self segments (a span's time
// not covered by its children on the same track), then one pass over the merged, sorted segment
// boundaries keeps running prefixes over the elementary intervals between consecutive boundaries:
//   S(t) = Σ dt_k / W_k   (time per unit of active weight; W_k = Σ weights of active segments)
//   R(t) = Σ E_k / W_k    (energy per unit of active weight, E_k read off an EnergyCurve)
//   I(t) = Σ dt_k over intervals with no active segment (idle time)
// so a segment of weight w receives w·(R(end) − R(begin)) joules and w·(S(end) − S(begin)) of
// shared time, without visiting the intervals it spans: O(n log n) for the sort, O(n) after.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "attribution/energy_curve.hpp"
#include "jouleprof/clock.hpp"
#include "jouleprof/timeline.hpp"

namespace jouleprof::attribution {

inline constexpr std::uint32_t kNoClass = 0xFFFFFFFFu;

struct Segment {
  TimeNs begin_ns = 0;
  TimeNs end_ns = 0;
  std::uint32_t span = 0;
  std::uint32_t klass = kNoClass;  // power class for regress/calibrated; kNoClass = none
  double weight = 1.0;             // the track's activity weight
};

struct SegmentInputs {
  std::vector<bool> track_consumes;          // per track: consumes this channel
  std::vector<double> track_weight;          // per track activity weight
  std::vector<std::uint32_t> class_of_name;  // per timeline name id
  TimeNs clip_begin_ns = 0;
  TimeNs clip_end_ns = 0;
};

// Self segments of the consuming spans, clipped to [clip_begin_ns, clip_end_ns).
std::vector<Segment> build_segments(const Timeline& timeline, const SegmentInputs& inputs);

struct SweepResult {
  std::vector<double> energy_j;       // per segment (only when a curve was given)
  std::vector<double> shared_time_s;  // per segment: w·ΔS
  // Segments over more than one window keep S at their begin and end, by segment index (a
  // segment inside one window has one piece, its shared time: per-segment arrays of both prefixes
  // would cost more to fill than the sweep itself on millions of short segments).
  struct Crossing {
    std::uint32_t segment;
    double begin_shared_s;
    double end_shared_s;
  };
  std::vector<Crossing> crossings;          // only with edges
  std::vector<std::uint32_t> begin_window;  // per segment: window (between edges) of its begin
  std::vector<std::uint32_t> end_window;    // per segment: window of its end
  std::vector<double> edge_shared_s;        // S at each window edge
  std::vector<double> edge_idle_s;          // I at each window edge
  double busy_s = 0.0;
};

// `curve` may be null (no per-interval energy is needed); `edges` (sorted) are window edges at
// which S and I are recorded, and the window of each segment end is noted. Segments are
// non-empty (begin < end), as build_segments makes them.
SweepResult sweep_segments(const std::vector<Segment>& segments, const EnergyCurve* curve,
                           const std::vector<TimeNs>& edges);

// A segment's shared time inside window j of the edges (its pieces, from the sweep's prefixes).
// Inline: the windowed methods call it once per piece, millions of times.
inline double shared_time_in_window(const SweepResult& sweep, const Segment& segment,
                                    std::size_t index, std::uint32_t window) {
  const std::uint32_t first = sweep.begin_window[index];
  const std::uint32_t last = sweep.end_window[index];
  if (window < first || window > last) return 0.0;
  if (first == last) return sweep.shared_time_s[index];  // w·(S(end) − S(begin)) as well
  const auto crossing =
      std::lower_bound(sweep.crossings.begin(), sweep.crossings.end(), index,
                       [](const SweepResult::Crossing& c, std::size_t i) { return c.segment < i; });
  const double from = window == first ? crossing->begin_shared_s : sweep.edge_shared_s[window];
  const double to = window == last ? crossing->end_shared_s : sweep.edge_shared_s[window + 1];
  return segment.weight * (to - from);
}

}  // namespace jouleprof::attribution
