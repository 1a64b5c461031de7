// Debian installs the server under /usr/lib/postgresql/<major>/bin, outside PATH: the newest
// major found there is used, else initdb and pg_ctl from PATH.
#include "store/postgres_server.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string_view>

#include "core/parse.hpp"

namespace jouleprof::testing {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kUser = "jouleprof";
constexpr const char* kUnprivileged = "nobody";

std::string server_bin(std::string_view tool) {
  fs::path newest;
  std::error_code ec;
  for (fs::directory_iterator it("/usr/lib/postgresql", ec), end; !ec && it != end;
       it.increment(ec)) {
    const fs::path candidate = it->path() / "bin" / tool;
    if (fs::exists(candidate) &&
        (newest.empty() ||
         to_int64(it->path().filename().string()).value_or(0) >
             to_int64(newest.parent_path().parent_path().filename().string()).value_or(0))) {
      newest = candidate;
    }
  }
  return newest.empty() ? std::string(tool) : newest.string();
}

// A TCP port nobody listens on now (the kernel's choice for port 0).
Result<int> free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return Error(ErrorCode::kIo, "socket() failed looking for a free port");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  close(fd);
  if (!ok) return Error(ErrorCode::kIo, "cannot bind 127.0.0.1:0 looking for a free port");
  return static_cast<int>(ntohs(addr.sin_port));
}

// `command` through the shell, as the unprivileged user when this process is root; its output
// goes to `log`. Errors quote the log's end.
Status run_as_server_user(const std::string& command, const fs::path& log) {
  const std::string as_user =
      geteuid() == 0 ? fmt::format("cd / && runuser -u {} -- {}", kUnprivileged, command) : command;
  const int rc = std::system(fmt::format("{} >>{} 2>&1", as_user, log.string()).c_str());
  if (rc == 0) return Status::Ok();
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  std::string tail = text.str();
  if (tail.size() > 600) tail = "…" + tail.substr(tail.size() - 600);
  return Error(
      ErrorCode::kUnavailable,
      fmt::format("the test PostgreSQL server: `{}` failed (status {}): {}", as_user, rc, tail));
}

fs::path url_file(const std::string& dir) { return fs::path(dir) / "url"; }
fs::path home_file(const std::string& dir) { return fs::path(dir) / "home"; }

// Where the server itself lives (its data, socket and log): `dir`, or as root a directory of its
// own under /tmp handed to the unprivileged user, named in dir/home. `dir` sits in the build tree,
// which that user may not be able to reach (a clone under a mode-700 temporary directory), and a
// socket's path must stay short.
Result<fs::path> make_server_home(const std::string& dir) {
  if (geteuid() != 0) return fs::path(dir);
  char pattern[] = "/tmp/jouleprof-pg-server-XXXXXX";
  if (mkdtemp(pattern) == nullptr)
    return Error(ErrorCode::kIo, "mkdtemp failed for the test PostgreSQL server's home");
  const passwd* user = getpwnam(kUnprivileged);
  if (chown(pattern, user->pw_uid, user->pw_gid) != 0 || chmod(pattern, 0700) != 0) {
    return Error(ErrorCode::kIo, std::string(pattern) + ": cannot hand it to " + kUnprivileged);
  }
  std::ofstream(home_file(dir)) << pattern;
  return fs::path(pattern);
}

fs::path server_home(const std::string& dir) {
  std::ifstream in(home_file(dir));
  std::string home;
  return std::getline(in, home) && !home.empty() ? fs::path(home) : fs::path(dir);
}

// One server for this process when no CTest fixture provides one; stopped at exit.
struct OwnServer {
  std::string dir;
  Result<std::string> url = Error(ErrorCode::kInternal, "not started");
  OwnServer() {
    char pattern[] = "/tmp/jouleprof-pg-XXXXXX";
    if (mkdtemp(pattern) == nullptr) {
      url = Error(ErrorCode::kIo, "mkdtemp failed for the test PostgreSQL server");
      return;
    }
    dir = pattern;
    url = start_postgres_server(dir);
  }
  ~OwnServer() {
    if (url.ok()) (void)stop_postgres_server(dir);
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

}  // namespace

Result<std::string> start_postgres_server(const std::string& dir) {
  if (geteuid() == 0 && getpwnam(kUnprivileged) == nullptr) {
    return Error(ErrorCode::kUnavailable,
                 fmt::format("the test PostgreSQL server runs as '{}' (postgres refuses root), "
                             "and this machine has no such user",
                             kUnprivileged));
  }
  const fs::path log = fs::path(dir) / "server.log";
  JP_TRY(const fs::path home, make_server_home(dir));
  JP_TRY(const int port, free_port());
  const fs::path data = home / "data";
  JP_RETURN_IF_ERROR(run_as_server_user(fmt::format("{} -D {} -U {} --auth=trust -E UTF8 --no-sync",
                                                    server_bin("initdb"), data.string(), kUser),
                                        log));
  // fsync off: a test server's data needs no crash safety, and the tests write many runs.
  JP_RETURN_IF_ERROR(run_as_server_user(
      fmt::format("{} -D {} -l {} -w -t 30 -o \"-c listen_addresses=127.0.0.1 -c "
                  "unix_socket_directories={} -p {} -c fsync=off -c max_connections=60\" start",
                  server_bin("pg_ctl"), data.string(), (home / "postgres.log").string(),
                  home.string(), port),
      log));
  const std::string url =
      fmt::format("postgresql://{}@/postgres?host={}&port={}", kUser, home.string(), port);
  std::ofstream(url_file(dir)) << url;
  return url;
}

Status stop_postgres_server(const std::string& dir) {
  const fs::path home = server_home(dir);
  const Status stopped = run_as_server_user(
      fmt::format("{} -D {} -m fast -w stop", server_bin("pg_ctl"), (home / "data").string()),
      fs::path(dir) / "server.log");
  if (stopped && home != fs::path(dir)) {
    std::error_code ec;
    fs::remove_all(home, ec);
  }
  return stopped;
}

Result<std::string> postgres_server_url() {
  if (const char* fixture = std::getenv("JOULEPROF_TEST_POSTGRES");
      fixture != nullptr && *fixture != '\0') {
    std::ifstream in(url_file(fixture));
    std::string url;
    if (!std::getline(in, url) || url.empty()) {
      return Error(ErrorCode::kUnavailable,
                   fmt::format("JOULEPROF_TEST_POSTGRES={}: no server there (the fixture test "
                               "store.postgres_start failed or did not run; see {}/server.log)",
                               fixture, fixture));
    }
    return url;
  }
  static OwnServer server;
  return server.url;
}

Result<std::string> fresh_postgres_database() {
  JP_TRY(const std::string url, postgres_server_url());
  static std::atomic<int> counter{0};
  const std::string name = fmt::format("history_{}_{}", getpid(), counter++);
  JP_RETURN_IF_ERROR(run_postgres_sql(url, "CREATE DATABASE " + name));
  const std::size_t path = url.find("/postgres?");
  return url.substr(0, path) + "/" + name + url.substr(path + std::string_view("/postgres").size());
}

std::string tcp_form_of(const std::string& socket_url) {
  // postgresql://jouleprof@/NAME?host=DIR&port=PORT
  const std::size_t name_begin = socket_url.find("@/") + 2;
  const std::size_t query = socket_url.find('?');
  const std::size_t port = socket_url.find("&port=") + 6;
  return fmt::format("postgresql://{}@127.0.0.1:{}/{}", kUser, socket_url.substr(port),
                     socket_url.substr(name_begin, query - name_begin));
}

Status run_postgres_sql(const std::string& url, const std::string& sql) {
  const std::unique_ptr<PGconn, decltype(&PQfinish)> conn(PQconnectdb(url.c_str()), &PQfinish);
  if (PQstatus(conn.get()) != CONNECTION_OK)
    return Error(ErrorCode::kUnavailable, url + ": " + PQerrorMessage(conn.get()));
  const std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn.get(), sql.c_str()),
                                                             &PQclear);
  const ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
    return Error(ErrorCode::kIo, sql + ": " + PQerrorMessage(conn.get()));
  return Status::Ok();
}

}  // namespace jouleprof::testing
