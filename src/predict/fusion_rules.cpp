#include "predict/fusion_rules.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/json_fields.hpp"
#include "core/json_file.hpp"

namespace jouleprof::predict {

bool FusionRules::fusible(std::string_view producer_op, std::string_view consumer_op) const {
  auto it = obey_.find(fmt::format("BF_{}_{}", producer_op, consumer_op));
  return it != obey_.end() && it->second;
}

Result<FusionRules> FusionRules::from_file(const std::filesystem::path& path) {
  JP_TRY(const nlohmann::json doc, read_json_file(path.string(), "fusion rules file"));
  const std::string file = path.string();
  const JsonFields f(file);
  JP_TRY(const nlohmann::json* rule_set, f.object(doc, "(document)"));
  std::map<std::string, bool> obey;
  for (const auto& [name, rule] : rule_set->items()) {
    if (name.rfind("BF_", 0) != 0) {
      return f.error(name, "is not a rule name of the form BF_<producer>_<consumer>");
    }
    JP_TRY(const bool flag, f.get<bool>(rule, "obey", name));
    obey.emplace(name, flag);
  }
  FusionRules rules(std::move(obey));
  rules.origin_ = path.string();
  return rules;
}

std::filesystem::path data_directory() {
  if (const char* env = std::getenv("JOULEPROF_DATA_DIR"); env && *env) return env;
  const std::filesystem::path installed = JOULEPROF_INSTALL_DATADIR;
  if (std::filesystem::exists(installed / "fusion-rules")) return installed;
  return JOULEPROF_SOURCE_DATADIR;
}

std::filesystem::path default_fusion_rules_path() {
  return data_directory() / "fusion-rules" / "default.json";
}

}  // namespace jouleprof::predict
