// The reports section of the C API: a profile written as one of the report formats, its tree as
// the text view the command line prints, its samples as samples.csv.
#include <fmt/format.h>

#include <exception>
#include <limits>
#include <optional>
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

constexpr jouleprof::JsonFields kFormatTreeOptions("jp_format_tree options_json");

// What jp_format_tree returns: valid until the next call on this thread.
thread_local std::string t_tree_text;

Status report_file(const char* profile_path, const char* format, const char* output_path) {
  JP_TRY(const jouleprof::Profile profile, jouleprof::read_profile_json(profile_path));
  return jouleprof::write_report(format, profile, jouleprof::ReportOptions{}, output_path);
}

// A limit on what the table shows; a negative one is no limit.
jouleprof::Result<std::size_t> count_option(const nlohmann::json& options, std::string_view key,
                                            std::size_t fallback) {
  JP_TRY(const std::optional<std::int64_t> count,
         kFormatTreeOptions.optional<std::int64_t>(options, key, ""));
  if (!count) return fallback;
  if (*count < 0) return std::numeric_limits<std::size_t>::max();
  return static_cast<std::size_t>(*count);
}

Status format_tree(const char* profile_path, const char* options_json) {
  JP_TRY(const nlohmann::json options,
         capi::parse_options_json(
             options_json, kFormatTreeOptions,
             {"max_depth", "max_rows", "max_children", "min_share", "top", "width", "full"}));
  jouleprof::ReportOptions report_options;
  jouleprof::TextViewOptions& view = report_options.text;
  // What a table of the tree shows: the run's channels and attribution are the profile's report.
  view.channels = false;
  view.attribution = false;
  JP_TRY(view.max_depth, kFormatTreeOptions.get_or<int>(options, "max_depth", "", view.max_depth));
  JP_TRY(view.max_rows, count_option(options, "max_rows", view.max_rows));
  JP_TRY(view.max_children, count_option(options, "max_children", view.max_children));
  JP_TRY(view.top_operators, count_option(options, "top", view.top_operators));
  JP_TRY(view.width, count_option(options, "width", view.width));
  JP_TRY(view.full, kFormatTreeOptions.get_or<bool>(options, "full", "", false));
  JP_TRY(const std::optional<double> min_share,
         kFormatTreeOptions.optional<double>(
             options, "min_share", "", [](double share) { return share >= 0.0 && share <= 1.0; },
             "is not a number from 0 to 1"));
  if (min_share) view.min_share = *min_share;
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
