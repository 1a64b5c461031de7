#include "jouleprof/timeline.hpp"

#include <algorithm>
#include <array>
#include <tuple>
#include <vector>

namespace jouleprof {

std::string_view to_string(SpanCategory c) {
  static constexpr std::array<std::string_view, 9> kNames{
      "region", "model", "layer", "op", "kernel", "step", "epoch", "call", "memory"};
  const auto i = static_cast<std::size_t>(c);
  return i < kNames.size() ? kNames[i] : "unknown";
}

std::string_view to_string(Pass p) {
  static constexpr std::array<std::string_view, 5> kNames{"none", "forward", "backward",
                                                          "optimizer", "communication"};
  const auto i = static_cast<std::size_t>(p);
  return i < kNames.size() ? kNames[i] : "unknown";
}

std::string_view to_string(TrackKind k) {
  static constexpr std::array<std::string_view, 3> kNames{"cpu-thread", "gpu-stream", "process"};
  const auto i = static_cast<std::size_t>(k);
  return i < kNames.size() ? kNames[i] : "unknown";
}

std::uint32_t Timeline::intern(std::string_view name) {
  std::string key(name);
  if (auto it = name_ids_.find(key); it != name_ids_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(names_.size());
  names_.push_back(key);
  name_ids_.emplace(std::move(key), id);
  return id;
}

std::uint32_t Timeline::add_track(Track track) {
  tracks_.push_back(std::move(track));
  return static_cast<std::uint32_t>(tracks_.size() - 1);
}

std::string Timeline::path_of(std::uint32_t span) const {
  std::vector<std::uint32_t> chain;
  for (std::uint32_t s = span; s != kNoIndex; s = spans_[s].parent) chain.push_back(s);
  std::string path;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if (!path.empty()) path += '/';
    path += names_[spans_[*it].name];
  }
  return path;
}

std::optional<std::uint32_t> Timeline::find_parent_cycle() const {
  // Each span is walked up once: 0 unseen, 1 on the chain being walked, 2 known to end at a root.
  std::vector<std::uint8_t> state(spans_.size(), 0);
  std::vector<std::uint32_t> chain;
  for (std::uint32_t start = 0; start < spans_.size(); ++start) {
    chain.clear();
    std::uint32_t s = start;
    while (s < spans_.size() && state[s] == 0) {
      state[s] = 1;
      chain.push_back(s);
      s = spans_[s].parent;
    }
    if (s < spans_.size() && state[s] == 1) return s;
    for (std::uint32_t c : chain) state[c] = 2;
  }
  return std::nullopt;
}

std::pair<TimeNs, TimeNs> Timeline::extent() const {
  if (spans_.empty()) return {0, 0};
  TimeNs lo = spans_.front().begin_ns;
  TimeNs hi = spans_.front().end_ns;
  for (const Span& s : spans_) {
    lo = std::min(lo, s.begin_ns);
    hi = std::max(hi, s.end_ns);
  }
  return {lo, hi};
}

bool Timeline::shift(TimeNs offset_ns) {
  TimeNs lo = 0;
  TimeNs hi = 0;
  if (!spans_.empty()) std::tie(lo, hi) = extent();
  for (const Mark& m : marks_) {
    lo = std::min(lo, m.t_ns);
    hi = std::max(hi, m.t_ns);
  }
  TimeNs moved = 0;
  if (__builtin_add_overflow(lo, offset_ns, &moved) ||
      __builtin_add_overflow(hi, offset_ns, &moved))
    return false;
  for (Span& s : spans_) {
    s.begin_ns += offset_ns;
    s.end_ns += offset_ns;
  }
  for (Mark& m : marks_) m.t_ns += offset_ns;
  return true;
}

}  // namespace jouleprof
