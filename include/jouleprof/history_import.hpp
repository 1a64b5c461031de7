// Adding profiles written earlier to the run history: what `jouleprof history import DIR` does
// after a run whose history could not be reached (a server down, a network gone) or to fill a
// team's history from runs kept elsewhere. Recording is idempotent (run_key_of), so importing a
// directory twice, or one whose runs are partly recorded, adds each run once.
//
//   JP_TRY(jouleprof::HistoryImport done, jouleprof::import_profiles(db, "jouleprof-runs"));
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof {

struct HistoryImport {
  struct Recorded {
    std::string path;  // the profile file
    std::int64_t id = 0;
  };
  struct Skipped {
    std::string path;
    std::string reason;  // why it is not a profile jouleprof can read
  };
  std::vector<Recorded> recorded;  // in path order; a run recorded before keeps its id
  std::vector<Skipped> skipped;
};

// Every *.json file under `dir` (recursively) that reads as a profile is recorded in the history
// at `db_location`; other JSON files (a run's spans.json) are listed as skipped with the reason.
// Errors: `dir` missing or not a directory, the history not opening, a write failing.
Result<HistoryImport> import_profiles(const std::string& db_location, const std::string& dir);

}  // namespace jouleprof
