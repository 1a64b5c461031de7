// The CTest fixture around the PostgreSQL tests: `start DIR` starts one server for the whole test
// run (store.postgres_start), `stop DIR` stops it (store.postgres_stop). A server that cannot
// start fails the start test with the reason, and CTest then fails the tests that require it.
#include <filesystem>
#include <iostream>
#include <string_view>

#include "store/postgres_server.hpp"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (argc != 3 || (std::string_view(argv[1]) != "start" && std::string_view(argv[1]) != "stop")) {
    std::cerr << "usage: " << argv[0] << " start|stop DIR\n";
    return 2;
  }
  const std::string dir = argv[2];
  std::error_code ec;
  if (std::string_view(argv[1]) == "stop") {
    const jouleprof::Status stopped = jouleprof::testing::stop_postgres_server(dir);
    fs::remove_all(dir, ec);
    if (!stopped) std::cerr << stopped.error().message() << '\n';
    return stopped ? 0 : 1;
  }
  // A server left by an interrupted test run: stopped, and its directory made anew.
  if (fs::exists(dir)) (void)jouleprof::testing::stop_postgres_server(dir);
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  const jouleprof::Result<std::string> url = jouleprof::testing::start_postgres_server(dir);
  if (!url) {
    std::cerr << url.error().message() << '\n';
    return 1;
  }
  std::cout << "PostgreSQL for the tests at " << *url << '\n';
  return 0;
}
