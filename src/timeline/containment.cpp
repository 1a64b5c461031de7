#include "timeline/containment.hpp"

#include <algorithm>
#include <numeric>

namespace jouleprof::timeline {

std::vector<std::uint32_t> append_by_containment(Timeline& timeline,
                                                 const std::vector<Span>& spans) {
  std::vector<std::uint32_t> order(spans.size());
  std::iota(order.begin(), order.end(), 0U);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (spans[a].begin_ns != spans[b].begin_ns) return spans[a].begin_ns < spans[b].begin_ns;
    return spans[a].end_ns > spans[b].end_ns;
  });
  std::vector<std::uint32_t> placed(spans.size(), kNoIndex);
  // Open candidates, outermost first. In begin order, a span that does not contain the current
  // one cannot contain any later one that the current span does not contain either, so it is
  // popped for good.
  std::vector<std::uint32_t> open;
  for (const std::uint32_t i : order) {
    Span span = spans[i];
    while (!open.empty() && timeline.spans()[open.back()].end_ns < span.end_ns) open.pop_back();
    span.parent = open.empty() ? kNoIndex : open.back();
    if (span.pass == Pass::kNone && span.parent != kNoIndex) {
      span.pass = timeline.spans()[span.parent].pass;
    }
    placed[i] = timeline.add_span(span);
    open.push_back(placed[i]);
  }
  return placed;
}

}  // namespace jouleprof::timeline
