// Built without SQLite (JOULEPROF_WITH_SQLITE=OFF or libsqlite3-dev missing): the history
// answers every call with the reason and the fix, never a silent no-op.
#include "jouleprof/history.hpp"

namespace jouleprof {
namespace {

Error unavailable(const std::string& path) {
  return Error(ErrorCode::kUnavailable,
               path +
                   ": run history needs SQLite: rebuild jouleprof with libsqlite3-dev installed "
                   "and -DJOULEPROF_WITH_SQLITE=ON");
}

}  // namespace

Result<HistoryDb> HistoryDb::open(const std::string& path) { return unavailable(path); }
Result<HistoryDb> HistoryDb::open_existing(const std::string& path) { return unavailable(path); }
HistoryDb::~HistoryDb() = default;
HistoryDb::HistoryDb(HistoryDb&& other) noexcept : db_(other.db_), path_(std::move(other.path_)) {}
HistoryDb& HistoryDb::operator=(HistoryDb&& other) noexcept {
  path_ = std::move(other.path_);
  return *this;
}
Result<int> HistoryDb::schema_version() const { return unavailable(path_); }
Result<std::int64_t> HistoryDb::record(const Profile&, const std::string&) {
  return unavailable(path_);
}
Result<std::vector<RunRecord>> HistoryDb::list(std::size_t, const HistoryFilter&) const {
  return unavailable(path_);
}
Result<RunRecord> HistoryDb::run(std::int64_t) const { return unavailable(path_); }
Result<std::vector<NodeEnergy>> HistoryDb::nodes(std::int64_t) const { return unavailable(path_); }

}  // namespace jouleprof
