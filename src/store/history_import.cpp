// Profiles on disk into the history, in path order so ids follow the directory's layout.
#include "jouleprof/history_import.hpp"

#include <algorithm>
#include <filesystem>

#include "jouleprof/history.hpp"

namespace jouleprof {

Result<HistoryImport> import_profiles(const std::string& db_location, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Error(ErrorCode::kNotFound, dir + ": not a directory of profiles to import");
  }
  std::vector<fs::path> files;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".json") files.push_back(it->path());
  }
  if (ec) return Error(ErrorCode::kIo, dir + ": cannot list it: " + ec.message());
  std::sort(files.begin(), files.end());

  JP_TRY(HistoryDb db, HistoryDb::open(db_location));
  HistoryImport done;
  for (const fs::path& file : files) {
    const Result<Profile> profile = read_profile_json(file.string());
    if (!profile) {
      done.skipped.push_back({file.string(), profile.error().message()});
      continue;
    }
    JP_TRY(const std::int64_t id, db.record(*profile, file.string()));
    done.recorded.push_back({file.string(), id});
  }
  return done;
}

}  // namespace jouleprof
