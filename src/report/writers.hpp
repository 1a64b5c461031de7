// The writers behind the report registry (registry.cpp); each lives in its own file.
#pragma once

#include <string>

#include "jouleprof/profile.hpp"
#include "jouleprof/report.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof::report {

Result<std::string> write_text(const Profile& profile, const ReportOptions& options);
Result<std::string> write_json(const Profile& profile, const ReportOptions& options);
Result<std::string> write_csv(const Profile& profile, const ReportOptions& options);
Result<std::string> write_trace(const Profile& profile, const ReportOptions& options);
// A flame graph of `profile`; with options.baseline, a differential one (widths from `profile`,
// colours by the change against the baseline).
Result<std::string> write_flamegraph(const Profile& profile, const ReportOptions& options);
Result<std::string> write_html(const Profile& profile, const ReportOptions& options);

}  // namespace jouleprof::report
