// The process-wide table of interned span names behind intern_name(): ids are stable for the
// life of the process (start() does not clear them), so a static NameId stays valid.
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "jouleprof/recorder.hpp"

namespace jouleprof::timeline {

class NameTable {
 public:
  // Never destroyed: spans may be written by an exit hook after static destructors ran.
  static NameTable& instance();

  NameId intern(std::string_view name);
  // Copies of every name interned so far, indexed by NameId.
  std::vector<std::string> snapshot() const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, NameId> ids_;
};

}  // namespace jouleprof::timeline
