#include "timeline/name_table.hpp"

namespace jouleprof {
namespace timeline {

NameTable& NameTable::instance() {
  static NameTable* table = new NameTable;  // leaked on purpose, see the header
  return *table;
}

NameId NameTable::intern(std::string_view name) {
  std::string key(name);
  const std::lock_guard lock(mutex_);
  if (auto it = ids_.find(key); it != ids_.end()) return it->second;
  const auto id = static_cast<NameId>(names_.size());
  names_.push_back(key);
  ids_.emplace(std::move(key), id);
  return id;
}

std::vector<std::string> NameTable::snapshot() const {
  const std::lock_guard lock(mutex_);
  return names_;
}

}  // namespace timeline

NameId intern_name(std::string_view name) { return timeline::NameTable::instance().intern(name); }

}  // namespace jouleprof
