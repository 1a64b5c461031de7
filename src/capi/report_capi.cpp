// The reports section of the C API: a profile written as one of the report formats, its tree as
// the text view the command line prints, its samples as samples.csv.
#include <fmt/format.h>

#include <exception>
#include <limits>
#include <string>

#include "capi/json_options.hpp"
#include "capi/last_error.hpp"
#include "jouleprof/jouleprof.h"
#include "jouleprof/profile.hpp"
#include "jouleprof/report.hpp"
#include "jouleprof/samples_csv.hpp"

namespace {

namespace capi = jouleprof::capi;
using jouleprof::Status;

constexpr std::string_view kFormatTreeCall = "jp_format_tree";

// What jp_format_tree returns: valid until the next call on this thread.
thread_local std::string t_tree_text;

Status report_file(const char* profile_path, const char* format, const char* output_path) {
  JP_TRY(const jouleprof::Profile profile, jouleprof::read_profile_json(profile_path));
  return jouleprof::write_report(format, profile, jouleprof::ReportOptions{}, output_path);
}

jouleprof::Result<std::size_t> count_option(const nlohmann::json& options, const char* key,
                                            std::size_t fallback) {
  const auto it = options.find(key);
  if (it == options.end()) return fallback;
  if (!it->is_number_integer()) {
    return jouleprof::invalid_input(kFormatTreeCall, key, it->dump(),
                                    "must be an integer (negative: no limit)");
  }
  if (it->get<long long>() < 0) return std::numeric_limits<std::size_t>::max();
  return it->get<std::size_t>();
}

Status format_tree(const char* profile_path, const char* options_json) {
  JP_TRY(const nlohmann::json options,
         capi::parse_options_json(
             options_json, kFormatTreeCall,
             {"max_depth", "max_rows", "max_children", "min_share", "top", "width", "full"}));
  jouleprof::ReportOptions report_options;
  jouleprof::TextViewOptions& view = report_options.text;
  // What a table of the tree shows: the run's channels and attribution are the profile's report.
  view.channels = false;
  view.attribution = false;
  if (const auto it = options.find("max_depth"); it != options.end()) {
    if (!it->is_number_integer()) {
      return jouleprof::invalid_input(kFormatTreeCall, "max_depth", it->dump(),
                                      "must be an integer (-1: every level)");
    }
    view.max_depth = it->get<int>();
  }
  JP_TRY(view.max_rows, count_option(options, "max_rows", view.max_rows));
  JP_TRY(view.max_children, count_option(options, "max_children", view.max_children));
  JP_TRY(view.top_operators, count_option(options, "top", view.top_operators));
  JP_TRY(view.width, count_option(options, "width", view.width));
  JP_TRY(view.full, capi::option_bool(options, kFormatTreeCall, "full", false));
  if (const auto it = options.find("min_share"); it != options.end()) {
    if (!it->is_number() || it->get<double>() < 0.0 || it->get<double>() > 1.0) {
      return jouleprof::invalid_input(kFormatTreeCall, "min_share", it->dump(),
                                      "must be a number from 0 to 1");
    }
    view.min_share = it->get<double>();
  }
  JP_TRY(const jouleprof::Profile profile, jouleprof::read_profile_json(profile_path));
  if (!profile.tree) {
    return jouleprof::invalid_input(profile_path, "tree", "null",
                                    "the profile was not attributed: it has no breakdown tree");
  }
  JP_TRY(t_tree_text, jouleprof::render_report("text", profile, report_options));
  return Status::Ok();
}

Status samples_file(const char* profile_path, const char* samples_path) {
  JP_TRY(const jouleprof::Profile profile, jouleprof::read_profile_json(profile_path));
  return jouleprof::write_samples_csv(profile.series, samples_path);
}

template <typename Call>
jp_status guarded(Call call) {
  try {
    const Status done = call();
    return done ? JP_OK : capi::fail(done.error());
  } catch (...) {
    return capi::fail_from_exception(std::current_exception());
  }
}

}  // namespace

extern "C" {

jp_status jp_report(const char* profile_path, const char* format, const char* output_path) {
  if (profile_path == nullptr || format == nullptr || output_path == nullptr) {
    return capi::fail(jouleprof::ErrorCode::kInvalidInput,
                      "jp_report: profile_path, format and output_path must not be NULL");
  }
  return guarded([&] { return report_file(profile_path, format, output_path); });
}

jp_status jp_format_tree(const char* profile_path, const char* options_json,
                         const char** out_text) {
  if (profile_path == nullptr || out_text == nullptr) {
    return capi::fail(jouleprof::ErrorCode::kInvalidInput,
                      "jp_format_tree: profile_path and out_text must not be NULL");
  }
  *out_text = "";
  const jp_status status = guarded([&] { return format_tree(profile_path, options_json); });
  if (status == JP_OK) *out_text = t_tree_text.c_str();
  return status;
}

jp_status jp_write_samples(const char* profile_path, const char* samples_path) {
  if (profile_path == nullptr || samples_path == nullptr) {
    return capi::fail(jouleprof::ErrorCode::kInvalidInput,
                      "jp_write_samples: profile_path and samples_path must not be NULL");
  }
  return guarded([&] { return samples_file(profile_path, samples_path); });
}

}  // extern "C"
