#include "timeline/collectives.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace jouleprof::timeline {

bool is_collective(std::string_view name) {
  // torch.distributed's profiling titles (c10d ops; the process groups' "<backend>:<op>") and
  // torch's comms op; "nccl" also covers NCCL's kernels (ncclKernel_…, ncclDevKernel_…).
  static constexpr std::array<std::string_view, 6> kPrefixes{
      "c10d::", "gloo:", "nccl", "mpi:", "ucc:", "record_param_comms"};
  return std::any_of(kPrefixes.begin(), kPrefixes.end(),
                     [&](std::string_view prefix) { return name.starts_with(prefix); });
}

namespace {

// The step spans ordered by begin, to find the one running at a time.
class StepsByTime {
 public:
  explicit StepsByTime(const std::vector<Span>& spans) : spans_(&spans) {
    for (std::uint32_t s = 0; s < spans.size(); ++s) {
      if (spans[s].category == SpanCategory::kStep) steps_.push_back(s);
    }
    std::stable_sort(steps_.begin(), steps_.end(), [&](std::uint32_t a, std::uint32_t b) {
      return spans[a].begin_ns < spans[b].begin_ns;
    });
  }

  // The latest-beginning step that holds `t_ns`, if any.
  std::uint32_t running_at(TimeNs t_ns) const {
    const std::vector<Span>& spans = *spans_;
    auto it = std::upper_bound(steps_.begin(), steps_.end(), t_ns,
                               [&](TimeNs t, std::uint32_t s) { return t < spans[s].begin_ns; });
    while (it != steps_.begin()) {
      --it;
      if (spans[*it].end_ns > t_ns) return *it;
    }
    return kNoIndex;
  }

 private:
  const std::vector<Span>* spans_;
  std::vector<std::uint32_t> steps_;
};

}  // namespace

CollectiveMarks mark_collectives(Timeline& timeline) {
  std::vector<Span>& spans = timeline.spans();
  CollectiveMarks marks;
  std::vector<bool> inside(spans.size(), false);
  std::vector<std::uint32_t> outermost;
  for (std::uint32_t s = 0; s < spans.size(); ++s) {
    const std::uint32_t parent = spans[s].parent;
    const bool same_track_parent = parent < spans.size() && spans[parent].track == spans[s].track;
    if (same_track_parent && inside[parent]) {
      inside[s] = true;
    } else if (is_collective(timeline.name(spans[s].name))) {
      inside[s] = true;
      if (parent == kNoIndex) outermost.push_back(s);
    }
    if (inside[s]) {
      spans[s].pass = Pass::kCommunication;
      ++marks.spans;
    }
  }
  if (outermost.empty()) return marks;
  const StepsByTime steps(spans);
  for (const std::uint32_t s : outermost) {
    const std::uint32_t step = steps.running_at(spans[s].begin_ns);
    // On its own track containment already chose its parent: none.
    if (step == kNoIndex || spans[step].track == spans[s].track) continue;
    spans[s].parent = step;
    ++marks.into_steps;
  }
  return marks;
}

}  // namespace jouleprof::timeline
