// A growable array in fixed blocks, for the importer's per-event records: a trace's event count is
// unknown until its end, and a std::vector grown by doubling holds up to twice what it needs (three
// times while it moves to a larger block). Here memory follows the count, and elements never move.
#pragma once

#include <cstddef>
#include <vector>

namespace jouleprof::timeline {

template <typename T>
class ChunkedVector {
 public:
  void push_back(const T& value) {
    if (size_ % kBlock == 0) {
      blocks_.emplace_back();
      blocks_.back().reserve(kBlock);
    }
    blocks_.back().push_back(value);
    ++size_;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return blocks_[i / kBlock][i % kBlock]; }
  const T& operator[](std::size_t i) const { return blocks_[i / kBlock][i % kBlock]; }

 private:
  static constexpr std::size_t kBlock = std::size_t{1} << 14;
  std::vector<std::vector<T>> blocks_;
  std::size_t size_ = 0;
};

}  // namespace jouleprof::timeline
