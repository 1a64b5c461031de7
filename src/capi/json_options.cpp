#include "capi/json_options.hpp"

#include "core/json_file.hpp"

namespace jouleprof::capi {

using nlohmann::json;

Result<json> parse_options_json(const char* options_json, const JsonFields& fields,
                                std::initializer_list<std::string_view> known_keys) {
  if (options_json == nullptr || *options_json == '\0') return json::object();
  JP_TRY(json options, parse_json(options_json, fields.origin()));
  JP_RETURN_IF_ERROR(fields.object(options, "(document)"));
  JP_RETURN_IF_ERROR(fields.known_keys(options, "", known_keys));
  return options;
}

Result<SourceOptions> source_options(const char* sources, const json& options,
                                     const JsonFields& fields) {
  SourceOptions out;
  if (sources != nullptr) out.selected = split_source_list(sources);
  JP_TRY(out.sysfs_root, fields.get_or<std::string>(options, "sysfs_root", "", "/"));
  if (const json* settings = JsonFields::find(options, "settings")) {
    JP_TRY(const json* checked, fields.object(*settings, "settings"));
    for (const auto& [key, value] : checked->items()) {
      JP_TRY(out.settings[key], fields.text(value, "settings." + key));
    }
  }
  return out;
}

}  // namespace jouleprof::capi
