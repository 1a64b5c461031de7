#include "predict/fusion_rules.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/json_brief.hpp"
#include "core/text_file.hpp"

namespace jouleprof::predict {

bool FusionRules::fusible(std::string_view producer_op, std::string_view consumer_op) const {
  auto it = obey_.find(fmt::format("BF_{}_{}", producer_op, consumer_op));
  return it != obey_.end() && it->second;
}

Result<FusionRules> FusionRules::from_file(const std::filesystem::path& path) {
  JP_TRY(const std::string text, read_text_file(path.string(), "fusion rules file"));
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return invalid_input(path.string(), "JSON", "", e.what());
  }
  if (!doc.is_object())
    return invalid_input(path.string(), "top level", "", "expected an object of rules");
  std::map<std::string, bool> obey;
  for (const auto& [name, rule] : doc.items()) {
    if (name.rfind("BF_", 0) != 0) {
      return invalid_input(path.string(), name, "",
                           "rule names have the form BF_<producer>_<consumer>");
    }
    auto flag = rule.is_object() ? rule.find("obey") : rule.end();
    if (!rule.is_object() || flag == rule.end() || !flag->is_boolean()) {
      return invalid_input(path.string(), name + ".obey", json_brief(rule),
                           "expected {\"obey\": true|false}");
    }
    obey.emplace(name, flag->get<bool>());
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
