// HistoryDb over its backend: a PostgreSQL URL opens the server, anything else a SQLite file.
#include <filesystem>

#include "store/history_backend.hpp"

namespace jouleprof {

HistoryDb::HistoryDb(std::unique_ptr<detail::HistoryBackend> backend, std::string path)
    : backend_(std::move(backend)), path_(std::move(path)) {}
HistoryDb::~HistoryDb() = default;
HistoryDb::HistoryDb(HistoryDb&& other) noexcept = default;
HistoryDb& HistoryDb::operator=(HistoryDb&& other) noexcept = default;

Result<HistoryDb> HistoryDb::open_existing(const std::string& location) {
  // A server's history is created by whoever connects first; only a file can be missing.
  if (is_postgresql_url(location)) return open(location);
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(location, ec);
  if (!std::filesystem::exists(status)) {
    return Error(ErrorCode::kNotFound,
                 location + ": no run history there (nothing has been recorded in this database)");
  }
  if (std::filesystem::is_directory(status)) {
    return Error(ErrorCode::kInvalidInput, location + ": is a directory, not a history database");
  }
  return open(location);
}

Result<HistoryDb> HistoryDb::open(const std::string& location) {
  std::string shown = redact_history_location(location);
  if (is_postgresql_url(location)) {
    JP_TRY(auto backend, detail::open_postgresql_history(location, shown));
    return HistoryDb(std::move(backend), std::move(shown));
  }
  JP_TRY(auto backend, detail::open_sqlite_history(location));
  return HistoryDb(std::move(backend), std::move(shown));
}

Result<int> HistoryDb::schema_version() const { return backend_->schema_version(); }

Result<std::int64_t> HistoryDb::record(const Profile& profile, const std::string& profile_path,
                                       const RunTags& tags) {
  return backend_->record(detail::stored_run_of(profile, profile_path, tags));
}

Result<std::vector<RunRecord>> HistoryDb::list(std::size_t limit,
                                               const HistoryFilter& filter) const {
  return backend_->list(limit, filter);
}

Result<RunRecord> HistoryDb::run(std::int64_t id) const { return backend_->run(id); }

Result<std::vector<NodeEnergy>> HistoryDb::nodes(std::int64_t id) const {
  return backend_->nodes(id);
}

}  // namespace jouleprof
