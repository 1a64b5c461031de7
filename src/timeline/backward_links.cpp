#include "timeline/backward_links.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

namespace jouleprof::timeline {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// The forward ops that saw one sequence number, the last begun per track (the node's creator).
struct Creators {
  std::vector<std::pair<std::uint32_t, std::size_t>> by_track;  // (track, span)

  void record(std::uint32_t track, std::size_t span) {
    for (auto& [t, s] : by_track) {
      if (t == track) {
        s = span;  // spans arrive in begin order: a later one replaces
        return;
      }
    }
    by_track.emplace_back(track, span);
  }
  std::size_t on(std::uint32_t track) const {
    for (const auto& [t, s] : by_track) {
      if (t == track) return s;
    }
    return kNone;
  }
};

class Linker {
 public:
  Linker(const std::vector<AutogradSpan>& spans, const Timeline& names)
      : spans_(spans),
        names_(names),
        layer_of_(spans.size(), kNone),
        path_of_layer_(spans.size()) {}

  BackwardLinks run() {
    std::vector<std::size_t> roots;
    for (const std::vector<std::size_t>& track : spans_by_track()) sweep(track, roots);
    const std::map<std::int64_t, std::uint32_t> forward_track = forward_threads(roots);
    BackwardLinks out;
    // Roots are in track order, each track in begin order: AccumulateGrad follows its producer.
    std::uint32_t previous_track = ~0U;
    std::size_t previous_module = kNone;  // the module of the root before, on the same track
    bool previous_linked = false;
    for (const std::size_t r : roots) {
      const AutogradSpan& root = spans_[r];
      if (root.track != previous_track) {
        previous_track = root.track;
        previous_module = kNone;
        previous_linked = false;
      }
      bool linked = false;
      std::size_t module = kNone;
      const std::int64_t sequence = sequence_of_root(r);
      if (sequence >= 0) {
        const auto thread = forward_track.find(fwd_thread_of_root(r));
        const auto creators = creators_.find(sequence);
        if (thread != forward_track.end() && creators != creators_.end()) {
          const std::size_t creator = creators->second.on(thread->second);
          linked = creator != kNone;
          if (linked) module = layer_of_[creator];
        }
      } else if (root.accumulate_grad) {
        linked = previous_linked;
        module = previous_module;
      }
      const TimeNs duration = root.end_ns - root.begin_ns;
      ++out.nodes;
      out.backward_ns += duration;
      if (linked) {
        ++out.linked_nodes;
        out.linked_ns += duration;
      }
      if (module != kNone) {
        ++out.module_nodes;
        out.module_ns += duration;
        out.module_spans.push_back(BackwardModuleSpan{r, module_path(module)});
      }
      previous_linked = linked;
      previous_module = module;
    }
    return out;
  }

 private:
  std::vector<std::vector<std::size_t>> spans_by_track() const {
    std::uint32_t tracks = 0;
    for (const AutogradSpan& s : spans_) tracks = std::max(tracks, s.track + 1);
    std::vector<std::vector<std::size_t>> by_track(tracks);
    for (std::size_t i = 0; i < spans_.size(); ++i) by_track[spans_[i].track].push_back(i);
    // The order containment uses (timeline/containment.hpp): begin, the longer first, input order.
    for (std::vector<std::size_t>& track : by_track) {
      std::stable_sort(track.begin(), track.end(), [&](std::size_t a, std::size_t b) {
        if (spans_[a].begin_ns != spans_[b].begin_ns)
          return spans_[a].begin_ns < spans_[b].begin_ns;
        return spans_[a].end_ns > spans_[b].end_ns;
      });
    }
    return by_track;
  }

  // One track in begin order: enclosing modules, the creators of each number, the roots.
  void sweep(const std::vector<std::size_t>& track, std::vector<std::size_t>& roots) {
    struct Open {
      std::size_t span;
      std::size_t layer;  // innermost module enclosing it (itself for a module)
      std::size_t root;   // the outermost backward span enclosing it (itself), or kNone
    };
    std::vector<Open> open;
    for (const std::size_t i : track) {
      const AutogradSpan& s = spans_[i];
      while (!open.empty() && spans_[open.back().span].end_ns < s.end_ns) open.pop_back();
      std::size_t layer = open.empty() ? kNone : open.back().layer;
      std::size_t root = open.empty() ? kNone : open.back().root;
      if (s.layer) {
        parent_layer_[i] = layer;
        layer = i;
      }
      layer_of_[i] = layer;
      if (root == kNone && s.backward) {
        root = i;
        roots.push_back(i);
      } else if (root != kNone && s.sequence >= 0 && spans_[root].sequence < 0) {
        // A wrapper without a number of its own takes its node's: the first numbered inside.
        numbered_.try_emplace(root, i);
      }
      if (root == kNone && s.sequence >= 0) creators_[s.sequence].record(s.track, i);
      open.push_back(Open{i, layer, root});
    }
  }

  // The span that carries a root's number and forward thread: the root, or its node inside.
  const AutogradSpan& numbered(std::size_t root) const {
    const auto it = numbered_.find(root);
    return spans_[it == numbered_.end() ? root : it->second];
  }
  std::int64_t sequence_of_root(std::size_t root) const { return numbered(root).sequence; }
  std::int64_t fwd_thread_of_root(std::size_t root) const { return numbered(root).fwd_thread; }

  // Which trace track each forward thread id is: the track whose forward ops created the most of
  // the nodes that name it.
  std::map<std::int64_t, std::uint32_t> forward_threads(const std::vector<std::size_t>& roots) {
    std::map<std::pair<std::int64_t, std::uint32_t>, std::uint64_t> votes;
    for (const std::size_t r : roots) {
      const auto creators = creators_.find(sequence_of_root(r));
      if (creators == creators_.end()) continue;
      for (const auto& [track, span] : creators->second.by_track)
        ++votes[{fwd_thread_of_root(r), track}];
    }
    std::map<std::int64_t, std::pair<std::uint32_t, std::uint64_t>> best;
    for (const auto& [key, count] : votes) {
      auto [it, inserted] = best.try_emplace(key.first, key.second, count);
      if (!inserted && count > it->second.second) it->second = {key.second, count};
    }
    std::map<std::int64_t, std::uint32_t> out;
    for (const auto& [thread, choice] : best) out.emplace(thread, choice.first);
    return out;
  }

  const std::string& module_path(std::size_t layer) {
    std::string& path = path_of_layer_[layer];
    if (path.empty()) {
      const std::string& name = names_.name(spans_[layer].name);
      const auto parent = parent_layer_.find(layer);
      path = parent == parent_layer_.end() || parent->second == kNone
                 ? name
                 : module_path(parent->second) + "/" + name;
    }
    return path;
  }

  const std::vector<AutogradSpan>& spans_;
  const Timeline& names_;
  std::vector<std::size_t> layer_of_;
  std::unordered_map<std::size_t, std::size_t> parent_layer_;
  std::vector<std::string> path_of_layer_;
  std::unordered_map<std::int64_t, Creators> creators_;
  std::unordered_map<std::size_t, std::size_t> numbered_;  // root -> the span holding its number
};

}  // namespace

BackwardLinks link_backward(const std::vector<AutogradSpan>& spans, const Timeline& names) {
  return Linker(spans, names).run();
}

}  // namespace jouleprof::timeline
