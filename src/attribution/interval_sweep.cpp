#include "attribution/interval_sweep.hpp"

#include <algorithm>
#include <limits>

namespace jouleprof::attribution {

namespace {

struct Boundary {
  TimeNs t_ns;
  std::uint32_t segment;
};

// Segments come in a few sorted runs (one per track when build_segments walked well-nested
// tracks): merging the runs costs O(n log runs) against O(n log n) for a sort.
void sort_boundaries(std::vector<Boundary>& boundaries) {
  const auto by_time = [](const Boundary& a, const Boundary& b) { return a.t_ns < b.t_ns; };
  std::vector<std::size_t> run_begin{0};
  for (std::size_t i = 1; i < boundaries.size(); ++i) {
    if (boundaries[i].t_ns < boundaries[i - 1].t_ns) run_begin.push_back(i);
  }
  constexpr std::size_t kMaxRunsToMerge = 64;
  if (run_begin.size() > kMaxRunsToMerge) {
    std::sort(boundaries.begin(), boundaries.end(), by_time);
    return;
  }
  run_begin.push_back(boundaries.size());
  while (run_begin.size() > 2) {
    std::vector<std::size_t> merged{0};
    for (std::size_t r = 0; r + 2 < run_begin.size(); r += 2) {
      const auto at = [&](std::size_t k) {
        return boundaries.begin() + static_cast<std::ptrdiff_t>(run_begin[k]);
      };
      std::inplace_merge(at(r), at(r + 1), at(r + 2), by_time);
      merged.push_back(run_begin[r + 2]);
    }
    if (run_begin.size() % 2 == 0) merged.push_back(run_begin.back());
    run_begin = std::move(merged);
  }
}

}  // namespace

std::vector<Segment> build_segments(const Timeline& timeline, const SegmentInputs& inputs) {
  const std::vector<Span>& spans = timeline.spans();
  const auto n = static_cast<std::uint32_t>(spans.size());
  const TimeNs lo = inputs.clip_begin_ns;
  const TimeNs hi = inputs.clip_end_ns;
  const auto consumes = [&](const Span& s) {
    return s.track < inputs.track_consumes.size() && inputs.track_consumes[s.track];
  };

  // Children on the same track, in CSR form: they carve their time out of the parent's self time.
  // Spans that are no such child are roots. Two passes over the spans (the largest array read
  // here) find both.
  const auto is_child = [&](const Span& s) {
    return s.parent != kNoIndex && s.parent < n && spans[s.parent].track == s.track;
  };
  std::vector<std::uint32_t> child_begin(n + 1, 0);
  bool any_children = false;
  std::size_t consuming = 0;
  for (const Span& s : spans) {
    if (!consumes(s)) continue;
    ++consuming;
    if (is_child(s)) {
      ++child_begin[s.parent + 1];
      any_children = true;
    }
  }
  std::vector<std::uint32_t> children;
  std::vector<std::uint32_t> fill;
  if (any_children) {
    for (std::uint32_t i = 0; i < n; ++i) child_begin[i + 1] += child_begin[i];
    children.resize(child_begin[n]);
    fill.assign(child_begin.begin(), child_begin.end() - 1);
  }
  std::vector<std::uint32_t> roots;
  bool children_in_time_order = true;  // checked here, where the previous sibling is still cached
  for (std::uint32_t i = 0; i < n; ++i) {
    const Span& s = spans[i];
    if (!consumes(s)) continue;
    if (is_child(s)) {
      std::uint32_t& at = fill[s.parent];
      if (at > child_begin[s.parent] && spans[children[at - 1]].begin_ns > s.begin_ns)
        children_in_time_order = false;
      children[at++] = i;
    } else {
      roots.push_back(i);
    }
  }

  // Depth first from the roots of each track, children in time order: on a well-nested track the
  // self segments are disjoint and come out sorted, so the sweep needs no sort (a sort of the
  // boundaries cost most of the time on nested timelines). Overlapping siblings or children
  // outside their parent still give the right segments, only unsorted (the sweep then sorts).
  std::vector<Segment> segments;
  segments.reserve(spans.size() + children.size());
  const auto by_begin = [&](std::uint32_t x, std::uint32_t y) {
    return spans[x].begin_ns < spans[y].begin_ns;
  };
  for (std::uint32_t i = 0; i < n && !children_in_time_order; ++i) {
    auto first = children.begin() + child_begin[i];
    auto last = children.begin() + child_begin[i + 1];
    if (!std::is_sorted(first, last, by_begin)) std::sort(first, last, by_begin);
  }
  const auto by_track_then_begin = [&](std::uint32_t x, std::uint32_t y) {
    return spans[x].track != spans[y].track ? spans[x].track < spans[y].track
                                            : spans[x].begin_ns < spans[y].begin_ns;
  };
  if (!std::is_sorted(roots.begin(), roots.end(), by_track_then_begin)) {
    std::stable_sort(roots.begin(), roots.end(), by_track_then_begin);
  }

  struct Frame {
    std::uint32_t span;
    std::uint32_t next_child;
    TimeNs cursor;
    TimeNs end;
  };
  std::vector<Frame> stack;
  std::vector<bool> visited(n, false);
  std::size_t opened = 0;
  const auto open = [&](std::uint32_t i) {
    visited[i] = true;
    ++opened;
    const Span& s = spans[i];
    stack.push_back(Frame{i, child_begin[i], std::max(s.begin_ns, lo), std::min(s.end_ns, hi)});
  };
  const auto emit = [&](std::uint32_t i, TimeNs b, TimeNs e) {
    const Span& s = spans[i];
    segments.push_back(
        Segment{b, e, i, inputs.class_of_name[s.name], inputs.track_weight[s.track]});
  };
  // A span without children is one segment: no frame is pushed for it (most spans are leaves).
  const auto leaf = [&](std::uint32_t i) {
    visited[i] = true;
    ++opened;
    const Span& s = spans[i];
    const TimeNs b = std::max(s.begin_ns, lo);
    const TimeNs e = std::min(s.end_ns, hi);
    if (e > b) emit(i, b, e);
  };
  const auto walk = [&](std::uint32_t root) {
    open(root);
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (any_children && f.next_child < child_begin[f.span + 1]) {
        const std::uint32_t c = children[f.next_child++];
        const TimeNs gap_end = std::min(spans[c].begin_ns, f.end);
        if (gap_end > f.cursor) emit(f.span, f.cursor, gap_end);
        f.cursor = std::max(f.cursor, spans[c].end_ns);
        if (visited[c]) continue;  // a parent cycle in a malformed timeline must not loop
        if (child_begin[c] == child_begin[c + 1]) {
          leaf(c);
        } else {
          open(c);
        }
        continue;
      }
      if (f.end > f.cursor) emit(f.span, f.cursor, f.end);
      stack.pop_back();
    }
  };
  for (std::uint32_t r : roots) {
    if (child_begin[r] == child_begin[r + 1]) {
      leaf(r);
    } else {
      walk(r);
    }
  }
  // Spans on a parent cycle have no root: each gets its own self segments all the same.
  for (std::uint32_t i = 0; i < n && opened < consuming; ++i) {
    if (consumes(spans[i]) && !visited[i]) walk(i);
  }
  return segments;
}

SweepResult sweep_segments(const std::vector<Segment>& segments, const EnergyCurve* curve,
                           const std::vector<TimeNs>& edges) {
  const std::size_t n = segments.size();
  SweepResult out;
  // Until a segment ends, its slots of shared_time_s and energy_j hold the prefixes S and R at
  // its begin (fewer arrays of millions of entries to fault in and fill).
  out.shared_time_s.resize(n);
  if (curve != nullptr) out.energy_j.resize(n);
  if (!edges.empty()) {
    out.begin_window.resize(n);
    out.end_window.resize(n);
    out.edge_shared_s.reserve(edges.size());
    out.edge_idle_s.reserve(edges.size());
  }

  // Segments already in time order (the usual case, see build_segments) are their own boundary
  // lists. The sweep checks that order as it goes and, when it finds it broken, starts over with
  // sorted boundary arrays (checking first would cost a pass over all segments).
  bool begins_sorted = true;
  bool ends_sorted = true;
  std::vector<Boundary> begins;
  std::vector<Boundary> ends;
  const auto begin_at = [&](std::size_t k) {
    return begins_sorted ? Boundary{segments[k].begin_ns, static_cast<std::uint32_t>(k)}
                         : begins[k];
  };
  const auto end_at = [&](std::size_t k) {
    return ends_sorted ? Boundary{segments[k].end_ns, static_cast<std::uint32_t>(k)} : ends[k];
  };

  // False when the segments turned out not to be in time order.
  const auto sweep_in_order = [&]() -> bool {
    out.edge_shared_s.clear();
    out.edge_idle_s.clear();
    out.crossings.clear();
    constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();
    std::size_t ib = 0;
    std::size_t ie = 0;
    std::size_t iw = 0;
    double shared = 0.0;  // S
    double energy = 0.0;  // R
    double idle = 0.0;    // I
    double busy = 0.0;
    double active_weight = 0.0;
    std::size_t active = 0;
    TimeNs last_t =
        std::min({n > 0 ? begin_at(0).t_ns : kNever, edges.empty() ? kNever : edges[0]});
    if (last_t == kNever) return true;
    static const EnergyCurve kNoCurve;
    EnergyCurve::Cursor cursor(curve != nullptr ? *curve : kNoCurve);
    double last_g = curve != nullptr ? cursor.at(last_t) : 0.0;

    while (ib < n || ie < n || iw < edges.size()) {
      if (begins_sorted && ib > 0 && ib < n && segments[ib].begin_ns < segments[ib - 1].begin_ns)
        return false;
      if (ends_sorted && ie > 0 && ie < n && segments[ie].end_ns < segments[ie - 1].end_ns)
        return false;
      const TimeNs tb = ib < n ? begin_at(ib).t_ns : kNever;
      const TimeNs te = ie < n ? end_at(ie).t_ns : kNever;
      const TimeNs tw = iw < edges.size() ? edges[iw] : kNever;
      const TimeNs t = std::min({tb, te, tw});
      if (t > last_t) {
        const double dt_s = ns_to_s(t - last_t);
        double g = 0.0;
        if (curve != nullptr) g = cursor.at(t);
        if (active > 0) {
          shared += dt_s / active_weight;
          busy += dt_s;
          if (curve != nullptr) energy += (g - last_g) / active_weight;
        } else {
          idle += dt_s;
        }
        last_g = g;
        last_t = t;
      }
      // Half-open intervals: segments ending at t close before windows and new segments open.
      if (te == t) {
        const std::uint32_t s = end_at(ie++).segment;
        const double w = segments[s].weight;
        if (!edges.empty()) {
          out.end_window[s] = static_cast<std::uint32_t>(iw == 0 ? 0 : iw - 1);
          if (out.end_window[s] != out.begin_window[s]) {
            out.crossings.push_back(SweepResult::Crossing{s, out.shared_time_s[s], shared});
          }
        }
        out.shared_time_s[s] = w * (shared - out.shared_time_s[s]);
        if (curve != nullptr) out.energy_j[s] = w * (energy - out.energy_j[s]);
        if (--active == 0) {
          active_weight = 0.0;  // no drift accumulates across idle stretches
        } else {
          active_weight -= w;
        }
        continue;
      }
      if (tw == t) {
        out.edge_shared_s.push_back(shared);
        out.edge_idle_s.push_back(idle);
        ++iw;
        continue;
      }
      const std::uint32_t s = begin_at(ib++).segment;
      out.shared_time_s[s] = shared;
      if (curve != nullptr) out.energy_j[s] = energy;
      if (!edges.empty()) out.begin_window[s] = static_cast<std::uint32_t>(iw == 0 ? 0 : iw - 1);
      active_weight += segments[s].weight;
      ++active;
    }
    out.busy_s = busy;
    return true;
  };
  if (sweep_in_order()) return out;
  for (std::size_t i = 1; i < n; ++i) {
    begins_sorted = begins_sorted && segments[i].begin_ns >= segments[i - 1].begin_ns;
    ends_sorted = ends_sorted && segments[i].end_ns >= segments[i - 1].end_ns;
  }
  if (!begins_sorted) {
    begins.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      begins[i] = Boundary{segments[i].begin_ns, static_cast<std::uint32_t>(i)};
    sort_boundaries(begins);
  }
  if (!ends_sorted) {
    ends.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      ends[i] = Boundary{segments[i].end_ns, static_cast<std::uint32_t>(i)};
    sort_boundaries(ends);
  }
  sweep_in_order();
  // Ends out of order leave the crossings out of segment order.
  std::sort(out.crossings.begin(), out.crossings.end(),
            [](const SweepResult::Crossing& x, const SweepResult::Crossing& y) {
              return x.segment < y.segment;
            });
  return out;
}

}  // namespace jouleprof::attribution
