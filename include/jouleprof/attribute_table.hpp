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

namespace attribute_table_detail {
// A forward iterator over positions of a table: the entries of one set (Value: a key and a
// value), or the sets of the table (Value: AttributeSet).
template <typename Value>
class PositionIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = Value;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = Value;

  PositionIterator() = default;
  PositionIterator(const AttributeTable* table, std::size_t position)
      : table_(table), position_(position) {}
  Value operator*() const;  // defined below the table
  PositionIterator& operator++() {
    ++position_;
    return *this;
  }
  PositionIterator operator++(int) {
    PositionIterator before = *this;
    ++position_;
    return before;
  }
  bool operator==(const PositionIterator& other) const { return position_ == other.position_; }

 private:
  const AttributeTable* table_ = nullptr;
  std::size_t position_ = 0;
};
}  // namespace attribute_table_detail

// One set as stored: its (key, value) pairs in the order given, as views that stay valid until
// the table changes.
class AttributeSet {
 public:
  using Entry = std::pair<std::string_view, std::string_view>;
  using iterator = attribute_table_detail::PositionIterator<Entry>;

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
  using iterator = attribute_table_detail::PositionIterator<AttributeSet>;

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
  friend class attribute_table_detail::PositionIterator<AttributeSet::Entry>;
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
  // Set s: entries [set_first_entry_[s], set_first_entry_[s + 1]).
  std::vector<std::size_t> set_first_entry_{0};
  std::vector<std::uint32_t> entry_key_;
  // Entry e's value: values_[value_end_[e - 1], value_end_[e]) (from 0 for the first).
  std::vector<std::size_t> value_end_;
  std::string values_;
};

template <>
inline AttributeSet::Entry
attribute_table_detail::PositionIterator<AttributeSet::Entry>::operator*() const {
  return table_->entry(position_);
}

template <>
inline AttributeSet attribute_table_detail::PositionIterator<AttributeSet>::operator*() const {
  return (*table_)[position_];
}

}  // namespace jouleprof
