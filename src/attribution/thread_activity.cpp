#include "attribution/thread_activity.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

#include "core/parse.hpp"

namespace jouleprof::attribution {
namespace {

constexpr std::string_view kThreadTrackPrefix = "thread ";
constexpr std::string_view kThreadChannelMarker = ":thread:";

std::optional<long long> number_after(std::string_view text, std::string_view prefix) {
  if (text.size() <= prefix.size()) return std::nullopt;
  return to_integer<long long>(text.substr(prefix.size()));
}

}  // namespace

std::vector<std::vector<WeightStep>> thread_weight_steps(const Timeline& timeline,
                                                         const std::vector<const Series*>& series,
                                                         std::size_t* matched) {
  std::map<long long, const Series*> by_tid;
  for (const Series* s : series) {
    const Channel& c = s->channel();
    if (c.kind != ChannelKind::kBusyTime || c.domain != "thread") continue;
    const std::size_t at = c.id.rfind(kThreadChannelMarker);
    if (at == std::string::npos) continue;
    if (auto tid = number_after(std::string_view(c.id).substr(at), kThreadChannelMarker))
      by_tid[*tid] = s;
  }
  std::vector<std::vector<WeightStep>> steps(timeline.tracks().size());
  std::size_t found = 0;
  for (std::size_t t = 0; t < timeline.tracks().size(); ++t) {
    const Track& track = timeline.tracks()[t];
    if (track.kind != TrackKind::kCpuThread ||
        track.name.substr(0, kThreadTrackPrefix.size()) != kThreadTrackPrefix)
      continue;
    const std::optional<long long> tid = number_after(track.name, kThreadTrackPrefix);
    const auto it = tid ? by_tid.find(*tid) : by_tid.end();
    if (it == by_tid.end() || it->second->size() < 2) continue;
    const Series& s = *it->second;
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
      const TimeNs dt = s[i + 1].t_ns - s[i].t_ns;
      if (dt <= 0) continue;
      const double utilisation = (s[i + 1].value - s[i].value) / ns_to_s(dt);
      steps[t].push_back({s[i].t_ns, std::max(kMinThreadWeight, utilisation)});
    }
    steps[t].push_back({s.back().t_ns, 1.0});
    ++found;
  }
  if (matched != nullptr) *matched = found;
  return steps;
}

std::vector<Segment> split_by_weight_steps(const std::vector<Segment>& segments,
                                           const Timeline& timeline,
                                           const std::vector<std::vector<WeightStep>>& steps) {
  std::vector<Segment> out;
  out.reserve(segments.size());
  for (const Segment& seg : segments) {
    const std::uint32_t track = timeline.spans()[seg.span].track;
    if (track >= steps.size() || steps[track].empty()) {
      out.push_back(seg);
      continue;
    }
    const std::vector<WeightStep>& st = steps[track];
    // The step in force at the segment's begin (before the first step: weight 1).
    auto next = std::upper_bound(st.begin(), st.end(), seg.begin_ns,
                                 [](TimeNs t, const WeightStep& s) { return t < s.begin_ns; });
    TimeNs at = seg.begin_ns;
    while (at < seg.end_ns) {
      const double weight = next == st.begin() ? 1.0 : std::prev(next)->weight;
      const TimeNs piece_end = next == st.end() ? seg.end_ns : std::min(seg.end_ns, next->begin_ns);
      Segment piece = seg;
      piece.begin_ns = at;
      piece.end_ns = piece_end;
      piece.weight = seg.weight * weight;
      if (piece_end > at) out.push_back(piece);
      at = piece_end;
      if (next != st.end()) ++next;
    }
  }
  return out;
}

}  // namespace jouleprof::attribution
