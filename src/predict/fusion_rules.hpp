// Per-device producer→consumer fusion rules in nn-Meter's format:
//   {"BF_conv_bn": {"obey": true}, "BF_conv_add": {"obey": false}, …}
// "BF_<a>_<b>" says whether the device runs op a followed by op b as one kernel. Other keys in
// a rule's object (nn-Meter stores the latencies it measured) are ignored. A pair without a rule
// is not fused. jouleprof ships share/jouleprof/fusion-rules/default.json (nn-Meter's rules for
// a mobile CPU); `jouleprof detect-rules` measures them for the machine it runs on.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "jouleprof/result.hpp"

namespace jouleprof::predict {

class FusionRules {
 public:
  FusionRules() = default;
  explicit FusionRules(std::map<std::string, bool> obey) : obey_(std::move(obey)) {}

  bool fusible(std::string_view producer_op, std::string_view consumer_op) const;
  const std::map<std::string, bool>& rules() const { return obey_; }
  const std::string& origin() const { return origin_; }  // the file they came from

  static Result<FusionRules> from_file(const std::filesystem::path& path);

 private:
  std::map<std::string, bool> obey_;
  std::string origin_;
};

// The shipped data directory: $JOULEPROF_DATA_DIR if set, else the installed
// <prefix>/share/jouleprof, else the source tree's share/jouleprof (for uninstalled builds).
std::filesystem::path data_directory();

// data_directory()/fusion-rules/default.json.
std::filesystem::path default_fusion_rules_path();

}  // namespace jouleprof::predict
