#include "attribution/interval_sweep.hpp"

#include <algorithm>
#include <limits>

namespace jouleprof::attribution {

namespace {

struct Boundary {
  TimeNs t_ns;
  std::uint32_t segment;
};

void sort_boundaries(std::vector<Boundary>& boundaries) {
  const auto by_time = [](const Boundary& a, const Boundary& b) { return a.t_ns < b.t_ns; };
  if (!std::is_sorted(boundaries.begin(), boundaries.end(), by_time)) {
    std::sort(boundaries.begin(), boundaries.end(), by_time);
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
  std::vector<std::uint32_t> child_begin(n + 1, 0);
  bool any_children = false;
  for (const Span& s : spans) {
    if (s.parent != kNoIndex && s.parent < n && consumes(s) && spans[s.parent].track == s.track) {
      ++child_begin[s.parent + 1];
      any_children = true;
    }
  }
  std::vector<std::uint32_t> children;
  if (any_children) {
    for (std::uint32_t i = 0; i < n; ++i) child_begin[i + 1] += child_begin[i];
    children.resize(child_begin[n]);
    std::vector<std::uint32_t> fill(child_begin.begin(), child_begin.end() - 1);
    for (std::uint32_t i = 0; i < n; ++i) {
      const Span& s = spans[i];
      if (s.parent != kNoIndex && s.parent < n && consumes(s) && spans[s.parent].track == s.track) {
        children[fill[s.parent]++] = i;
      }
    }
  }

  std::vector<Segment> segments;
  segments.reserve(spans.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    const Span& s = spans[i];
    if (!consumes(s)) continue;
    const TimeNs b = std::max(s.begin_ns, lo);
    const TimeNs e = std::min(s.end_ns, hi);
    if (e <= b) continue;
    const std::uint32_t klass = inputs.class_of_name[s.name];
    const double w = inputs.track_weight[s.track];
    if (!any_children || child_begin[i] == child_begin[i + 1]) {
      segments.push_back(Segment{b, e, i, klass, w});
      continue;
    }
    auto first = children.begin() + child_begin[i];
    auto last = children.begin() + child_begin[i + 1];
    std::sort(first, last, [&](std::uint32_t x, std::uint32_t y) {
      return spans[x].begin_ns < spans[y].begin_ns;
    });
    TimeNs cursor = b;
    for (auto it = first; it != last; ++it) {
      const Span& c = spans[*it];
      const TimeNs gap_end = std::min(c.begin_ns, e);
      if (gap_end > cursor) segments.push_back(Segment{cursor, gap_end, i, klass, w});
      cursor = std::max(cursor, c.end_ns);
    }
    if (e > cursor) segments.push_back(Segment{cursor, e, i, klass, w});
  }
  return segments;
}

SweepResult sweep_segments(const std::vector<Segment>& segments, const EnergyCurve* curve,
                           const std::vector<TimeNs>& edges) {
  const std::size_t n = segments.size();
  SweepResult out;
  out.shared_time_s.resize(n);
  out.begin_shared_s.resize(n);
  out.end_shared_s.resize(n);
  if (curve != nullptr) out.energy_j.resize(n);
  if (!edges.empty()) {
    out.begin_window.resize(n);
    out.end_window.resize(n);
    out.edge_shared_s.reserve(edges.size());
    out.edge_idle_s.reserve(edges.size());
  }

  std::vector<Boundary> begins(n);
  std::vector<Boundary> ends(n);
  for (std::size_t i = 0; i < n; ++i) {
    begins[i] = Boundary{segments[i].begin_ns, static_cast<std::uint32_t>(i)};
    ends[i] = Boundary{segments[i].end_ns, static_cast<std::uint32_t>(i)};
  }
  sort_boundaries(begins);
  sort_boundaries(ends);

  std::vector<double> begin_energy_prefix(curve != nullptr ? n : 0);
  constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();
  std::size_t ib = 0;
  std::size_t ie = 0;
  std::size_t iw = 0;
  double shared = 0.0;   // S
  double energy = 0.0;   // R
  double idle = 0.0;     // I
  double busy = 0.0;
  double active_weight = 0.0;
  std::size_t active = 0;
  TimeNs last_t = std::min({n > 0 ? begins[0].t_ns : kNever, edges.empty() ? kNever : edges[0]});
  if (last_t == kNever) return out;
  static const EnergyCurve kNoCurve;
  EnergyCurve::Cursor cursor(curve != nullptr ? *curve : kNoCurve);
  double last_g = curve != nullptr ? cursor.at(last_t) : 0.0;

  while (ib < n || ie < n || iw < edges.size()) {
    const TimeNs tb = ib < n ? begins[ib].t_ns : kNever;
    const TimeNs te = ie < n ? ends[ie].t_ns : kNever;
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
      const std::uint32_t s = ends[ie++].segment;
      const double w = segments[s].weight;
      out.end_shared_s[s] = shared;
      out.shared_time_s[s] = w * (shared - out.begin_shared_s[s]);
      if (curve != nullptr) out.energy_j[s] = w * (energy - begin_energy_prefix[s]);
      if (!edges.empty()) out.end_window[s] = static_cast<std::uint32_t>(iw == 0 ? 0 : iw - 1);
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
    const std::uint32_t s = begins[ib++].segment;
    out.begin_shared_s[s] = shared;
    if (curve != nullptr) begin_energy_prefix[s] = energy;
    if (!edges.empty()) out.begin_window[s] = static_cast<std::uint32_t>(iw == 0 ? 0 : iw - 1);
    active_weight += segments[s].weight;
    ++active;
  }
  out.busy_s = busy;
  return out;
}

double shared_time_in_window(const SweepResult& sweep, const Segment& segment, std::size_t index,
                             std::uint32_t window) {
  const std::uint32_t first = sweep.begin_window[index];
  const std::uint32_t last = sweep.end_window[index];
  if (window < first || window > last) return 0.0;
  const double from = window == first ? sweep.begin_shared_s[index] : sweep.edge_shared_s[window];
  const double to = window == last ? sweep.end_shared_s[index] : sweep.edge_shared_s[window + 1];
  return segment.weight * (to - from);
}

}  // namespace jouleprof::attribution
