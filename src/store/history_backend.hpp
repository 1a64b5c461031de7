// The one interface behind HistoryDb: a SQLite file or a PostgreSQL server, each answering the
// same calls over the same schema (history_schema.hpp). HistoryDb picks one by its location.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "jouleprof/history.hpp"
#include "store/stored_run.hpp"

namespace jouleprof::detail {

class HistoryBackend {
 public:
  virtual ~HistoryBackend() = default;
  virtual Result<int> schema_version() const = 0;
  // Inserts the run unless one with its run_key is there; either way returns the run's id.
  virtual Result<std::int64_t> record(const StoredRun& run) = 0;
  virtual Result<std::vector<RunRecord>> list(std::size_t limit,
                                              const HistoryFilter& filter) const = 0;
  virtual Result<RunRecord> run(std::int64_t id) const = 0;
  virtual Result<std::vector<NodeEnergy>> nodes(std::int64_t id) const = 0;
};

// `path`: a SQLite file, created with its directory when missing.
Result<std::unique_ptr<HistoryBackend>> open_sqlite_history(const std::string& path);
// `url`: a libpq connection URI; errors name `shown`, the URL with its password redacted.
Result<std::unique_ptr<HistoryBackend>> open_postgresql_history(const std::string& url,
                                                                const std::string& shown);

}  // namespace jouleprof::detail
