#include "capi/json_options.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/json_brief.hpp"

namespace jouleprof::capi {

Result<nlohmann::json> parse_options_json(const char* options_json, std::string_view call,
                                          std::initializer_list<std::string_view> known_keys) {
  if (options_json == nullptr || *options_json == '\0') return nlohmann::json::object();
  nlohmann::json options = nlohmann::json::parse(options_json, nullptr, /*allow_exceptions=*/false);
  if (options.is_discarded() || !options.is_object()) {
    return invalid_input(call, "options_json", options_json, "is not a JSON object");
  }
  std::string known;
  for (std::string_view k : known_keys) known += (known.empty() ? "" : ", ") + std::string(k);
  for (const auto& item : options.items()) {
    if (std::find(known_keys.begin(), known_keys.end(), item.key()) == known_keys.end()) {
      return invalid_input(call, "options_json", item.key(),
                           fmt::format("is not a known option (known: {})", known));
    }
  }
  return options;
}

Result<bool> option_bool(const nlohmann::json& options, std::string_view call, const char* key,
                         bool fallback) {
  const auto it = options.find(key);
  if (it == options.end()) return fallback;
  if (!it->is_boolean()) return invalid_input(call, key, it->dump(), "must be true or false");
  return it->get<bool>();
}

Result<std::string> option_string(const nlohmann::json& options, std::string_view call,
                                  const char* key, std::string fallback) {
  const auto it = options.find(key);
  if (it == options.end()) return fallback;
  if (!it->is_string()) return invalid_input(call, key, it->dump(), "must be a string");
  return it->get<std::string>();
}

Result<std::string> option_text(const nlohmann::json& value, std::string_view call,
                                std::string_view key) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer()) return std::to_string(value.get<long long>());
  if (value.is_number()) return fmt::format("{}", value.get<double>());
  return invalid_input(call, key, json_brief(value), "must be a number or a string");
}

Result<SourceOptions> source_options(const char* sources, const nlohmann::json& options,
                                     std::string_view call) {
  SourceOptions out;
  if (sources != nullptr) out.selected = split_source_list(sources);
  JP_TRY(out.sysfs_root, option_string(options, call, "sysfs_root", "/"));
  if (const auto it = options.find("settings"); it != options.end()) {
    if (!it->is_object()) return invalid_input(call, "settings", it->dump(), "must be an object");
    for (const auto& [key, value] : it->items()) {
      JP_TRY(out.settings[key], option_text(value, call, "settings." + key));
    }
  }
  return out;
}

}  // namespace jouleprof::capi
