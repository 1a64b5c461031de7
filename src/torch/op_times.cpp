// Self time per operator class (and per argument signature) of a recorded step: the calibration
// replays first the classes that carry the step's time, hence its energy.
#include <vector>

#include "jouleprof/torch.hpp"

namespace jouleprof::torch_adapter {

OpTimes op_self_times(const Timeline& timeline) {
  const std::vector<Span>& spans = timeline.spans();
  std::vector<TimeNs> self_ns(spans.size(), 0);
  for (std::size_t i = 0; i < spans.size(); ++i) {
    if (spans[i].category != SpanCategory::kOp) continue;
    self_ns[i] += spans[i].duration_ns();
    const std::uint32_t parent = spans[i].parent;
    if (parent != kNoIndex && spans[parent].category == SpanCategory::kOp) {
      self_ns[parent] -= spans[i].duration_ns();
    }
  }
  OpTimes times;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    if (spans[i].category != SpanCategory::kOp) continue;
    const std::string& op_class = timeline.name(spans[i].name);
    std::string signature;
    if (spans[i].attributes != kNoIndex) {
      for (const auto& [key, value] : timeline.attributes()[spans[i].attributes]) {
        if (key == "shapes") signature = std::string(value);
      }
    }
    times.by_class[op_class] += self_ns[i];
    times.by_signature[{op_class, signature}] += self_ns[i];
    times.total_ns += self_ns[i];
  }
  return times;
}

}  // namespace jouleprof::torch_adapter
