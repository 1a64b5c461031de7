// The `json` report: the profile itself, indented for people (docs/schema.md).
#include "core/profile_json_text.hpp"
#include "report/writers.hpp"

namespace jouleprof::report {

Result<std::string> write_json(const Profile& profile, const ReportOptions& /*options*/) {
  // render_report has put the profile through the output gate.
  return ungated_profile_json(profile, 2, ProfileArrays::kExpanded) + "\n";
}

}  // namespace jouleprof::report
