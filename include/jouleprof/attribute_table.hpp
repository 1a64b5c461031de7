// The attribute sets of a timeline (a span's input shapes, a kernel's correlation id, the bytes of
// a copy), stored compactly: each key once, every value in one character array, a set a range of
// (key, value) entries. A trace of a million kernels has a set per kernel; as vectors of string
// pairs they took ~170 bytes each, here ~40.
#pragma once

#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace jouleprof {

// What callers hand in, and what a set converts back to.
using Attributes = std::vector<std::pair<std::string, std::string>>;

class AttributeTable;

// One set as stored: its (key, value) pairs in the order given, as views that stay valid until
// the table changes.
class AttributeSet {
 public:
  using Entry = std::pair<std::string_view, std::string_view>;

  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Entry;

    iterator() = default;
    Entry operator*() const;
    iterator& operator++() {
      ++entry_;
      return *this;
    }
    iterator operator++(int) {
      iterator before = *this;
      ++entry_;
      return before;
    }
    bool operator==(const iterator& other) const { return entry_ == other.entry_; }

   private:
    friend class AttributeSet;
    iterator(const AttributeTable* table, std::size_t entry) : table_(table), entry_(entry) {}
    const AttributeTable* table_ = nullptr;
    std::size_t entry_ = 0;
  };

  iterator begin() const { return iterator(table_, first_); }
  iterator end() const { return iterator(table_, last_); }
  std::size_t size() const { return last_ - first_; }
  bool empty() const { return first_ == last_; }
  // The value of `key` (the first, should a key repeat).
  std::optional<std::string_view> find(std::string_view key) const;
  Attributes to_attributes() const;

  bool operator==(const AttributeSet& other) const;
  bool operator==(const Attributes& attributes) const;

 private:
  friend class AttributeTable;
  AttributeSet(const AttributeTable* table, std::size_t first, std::size_t last)
      : table_(table), first_(first), last_(last) {}
  const AttributeTable* table_;
  std::size_t first_;
  std::size_t last_;
};

class AttributeTable {
 public:
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = AttributeSet;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = AttributeSet;

    iterator() = default;
    AttributeSet operator*() const { return (*table_)[set_]; }
    iterator& operator++() {
      ++set_;
      return *this;
    }
    bool operator==(const iterator& other) const { return set_ == other.set_; }

   private:
    friend class AttributeTable;
    iterator(const AttributeTable* table, std::size_t set) : table_(table), set_(set) {}
    const AttributeTable* table_ = nullptr;
    std::size_t set_ = 0;
  };

  // Each returns the new set's index.
  std::uint32_t add(const Attributes& attributes);
  std::uint32_t add(const AttributeSet& set);
  // A set from views, without building an Attributes first (the importers' kernels).
  std::uint32_t add(std::span<const AttributeSet::Entry> entries);

  std::size_t size() const { return set_first_entry_.size() - 1; }
  bool empty() const { return size() == 0; }
  AttributeSet operator[](std::size_t set) const {
    return AttributeSet(this, set_first_entry_[set], set_first_entry_[set + 1]);
  }
  iterator begin() const { return iterator(this, 0); }
  iterator end() const { return iterator(this, size()); }

  bool operator==(const AttributeTable& other) const;

 private:
  friend class AttributeSet;
  std::uint32_t key_id(std::string_view key);
  void add_entry(std::string_view key, std::string_view value);
  std::uint32_t close_set();
  AttributeSet::Entry entry(std::size_t e) const {
    const std::size_t value_begin = e == 0 ? 0 : value_end_[e - 1];
    return {keys_[entry_key_[e]],
            std::string_view(values_).substr(value_begin, value_end_[e] - value_begin)};
  }

  std::vector<std::string> keys_;
  std::unordered_map<std::string, std::uint32_t> key_ids_;
  std::vector<std::size_t> set_first_entry_{0};  // set s: entries [s], [s + 1])
  std::vector<std::uint32_t> entry_key_;
  std::vector<std::size_t>
      value_end_;  // entry e's value: values_[value_end_[e - 1], value_end_[e])
  std::string values_;
};

inline AttributeSet::Entry AttributeSet::iterator::operator*() const {
  return table_->entry(entry_);
}

}  // namespace jouleprof
