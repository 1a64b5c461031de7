#include "jouleprof/attribute_table.hpp"

#include <algorithm>

namespace jouleprof {

std::optional<std::string_view> AttributeSet::find(std::string_view key) const {
  for (const auto& [k, v] : *this) {
    if (k == key) return v;
  }
  return std::nullopt;
}

Attributes AttributeSet::to_attributes() const {
  Attributes out;
  out.reserve(size());
  for (const auto& [k, v] : *this) out.emplace_back(std::string(k), std::string(v));
  return out;
}

bool AttributeSet::operator==(const AttributeSet& other) const {
  return std::equal(begin(), end(), other.begin(), other.end());
}

bool AttributeSet::operator==(const Attributes& attributes) const {
  return std::equal(
      begin(), end(), attributes.begin(), attributes.end(),
      [](const Entry& a, const auto& b) { return a.first == b.first && a.second == b.second; });
}

std::uint32_t AttributeTable::key_id(std::string_view key) {
  std::string owned(key);
  if (const auto it = key_ids_.find(owned); it != key_ids_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(keys_.size());
  keys_.push_back(owned);
  key_ids_.emplace(std::move(owned), id);
  return id;
}

void AttributeTable::add_entry(std::string_view key, std::string_view value) {
  entry_key_.push_back(key_id(key));
  values_.append(value);
  value_end_.push_back(values_.size());
}

std::uint32_t AttributeTable::close_set() {
  set_first_entry_.push_back(entry_key_.size());
  return static_cast<std::uint32_t>(size() - 1);
}

std::uint32_t AttributeTable::add(const Attributes& attributes) {
  for (const auto& [k, v] : attributes) add_entry(k, v);
  return close_set();
}

std::uint32_t AttributeTable::add(const AttributeSet& set) {
  // Views into this table would move as it grows: copy them first.
  if (set.table_ == this) return add(set.to_attributes());
  for (const auto& [k, v] : set) add_entry(k, v);
  return close_set();
}

std::uint32_t AttributeTable::add(std::span<const AttributeSet::Entry> entries) {
  for (const auto& [k, v] : entries) add_entry(k, v);
  return close_set();
}

bool AttributeTable::operator==(const AttributeTable& other) const {
  return std::equal(begin(), end(), other.begin(), other.end());
}

}  // namespace jouleprof
