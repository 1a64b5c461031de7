// The `json` report: the profile itself, indented for people (docs/schema.md).
#include "report/writers.hpp"

namespace jouleprof::report {

Result<std::string> write_json(const Profile& profile, const ReportOptions& /*options*/) {
  return profile_to_json_string(profile, 2) + "\n";
}

}  // namespace jouleprof::report
