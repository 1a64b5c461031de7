// Stable copies of the short strings an importer keeps from a streamed text (names, track keys,
// flow ids): the text they came from is gone by the next chunk. Copies live in chunks that never
// move, so views of them stay valid as long as the arena.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace jouleprof::timeline {

class StringArena {
 public:
  // A copy of `text`.
  std::string_view copy(std::string_view text) {
    if (text.empty()) return {};
    if (text.size() > capacity_ - used_) {
      capacity_ = std::max(kChunk, text.size());
      chunks_.push_back(std::make_unique<char[]>(capacity_));
      used_ = 0;
    }
    char* at = chunks_.back().get() + used_;
    std::memcpy(at, text.data(), text.size());
    used_ += text.size();
    return {at, text.size()};
  }

  // A copy of `text`, the same one for equal texts (for values that repeat).
  std::string_view keep(std::string_view text) {
    if (auto it = kept_.find(text); it != kept_.end()) return *it;
    const std::string_view kept = copy(text);
    kept_.insert(kept);
    return kept;
  }

 private:
  static constexpr std::size_t kChunk = std::size_t{64} << 10;
  std::vector<std::unique_ptr<char[]>> chunks_;
  std::size_t used_ = 0;
  std::size_t capacity_ = 0;
  std::unordered_set<std::string_view> kept_;
};

}  // namespace jouleprof::timeline
