// A real PostgreSQL server for the history's tests: Debian's `postgresql` binaries run `initdb`
// and `pg_ctl` in a temporary directory, as `nobody` when the tests run as root (the server
// refuses root), listening on a free port of 127.0.0.1 and on a Unix socket in that directory.
// Trust authentication for the superuser `jouleprof`: the server is reachable only from this
// machine and lives as long as the tests.
//
// Under CTest one server serves every test (the fixture tests store.postgres_start / _stop, which
// run this file's main with start / stop and pass the directory in JOULEPROF_TEST_POSTGRES); a test
// binary run by hand starts its own for the process. Either way a server that cannot start is an
// error with the reason, and the tests that need it fail.
#pragma once

#include <string>

#include "jouleprof/result.hpp"

namespace jouleprof::testing {

// Starts a server for `dir` (which must exist and be empty; it gets the URL and the setup log):
// its data, socket and log are under `dir`, or, as root, in a directory of their own under /tmp
// that the unprivileged user owns. Returns the socket-directory URL
// (postgresql://jouleprof@/postgres?host=SOCKETDIR&port=PORT).
Result<std::string> start_postgres_server(const std::string& dir);
// Stops the server of `dir` (fast shutdown) and removes its home under /tmp, if it has one.
Status stop_postgres_server(const std::string& dir);

// The URL of the tests' server: the CTest fixture's, else one started for this process (stopped
// and removed when it exits).
Result<std::string> postgres_server_url();
// A new, empty database on that server; returns its URL (same form, its own database name).
Result<std::string> fresh_postgres_database();
// The same database through TCP: postgresql://jouleprof@127.0.0.1:PORT/NAME.
std::string tcp_form_of(const std::string& socket_url);
// Runs SQL (no result rows wanted) on the database of `url`.
Status run_postgres_sql(const std::string& url, const std::string& sql);

}  // namespace jouleprof::testing
