// A backend this build lacks (JOULEPROF_WITH_SQLITE / JOULEPROF_WITH_POSTGRESQL off, or its -dev
// package missing) answers opening with the reason and the fix, never a silent no-op.
#include "store/history_backend.hpp"

namespace jouleprof::detail {

#ifndef JOULEPROF_HAVE_SQLITE
Result<std::unique_ptr<HistoryBackend>> open_sqlite_history(const std::string& path) {
  return Error(ErrorCode::kUnavailable,
               path +
                   ": run history needs SQLite: rebuild jouleprof with libsqlite3-dev installed "
                   "and -DJOULEPROF_WITH_SQLITE=ON");
}
#endif

#ifndef JOULEPROF_HAVE_POSTGRESQL
Result<std::unique_ptr<HistoryBackend>> open_postgresql_history(const std::string&,
                                                                const std::string& shown) {
  return Error(ErrorCode::kUnavailable,
               shown +
                   ": a PostgreSQL history needs libpq: rebuild jouleprof with libpq-dev installed "
                   "and -DJOULEPROF_WITH_POSTGRESQL=ON");
}
#endif

}  // namespace jouleprof::detail
