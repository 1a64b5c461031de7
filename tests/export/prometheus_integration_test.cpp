// A real Prometheus (Debian's `prometheus`) scrapes the exporter on loopback every second; the
// test asks Prometheus' HTTP API for the energy counter until it has seen it increase. Energy comes
// from the simulated source (50 W) through discovery and the poller, as `jouleprof serve
// --simulate 50` does. Everything listens on 127.0.0.1 on free ports; Prometheus runs with a
// temporary config and data directory and is stopped (SIGTERM, then SIGKILL) at the end.
// Bounded: at most kDeadline. Skipped when Prometheus is not installed (JOULEPROF_PROMETHEUS
// names another binary).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <utility>

#include "jouleprof/exporter.hpp"
#include "jouleprof/observed_processes.hpp"
#include "jouleprof/sources.hpp"
#include "test_support.hpp"

extern char** environ;

namespace jouleprof {
namespace {

constexpr auto kDeadline = std::chrono::seconds(90);

std::string prometheus_binary() {
  if (const char* env = std::getenv("JOULEPROF_PROMETHEUS")) return env;
  return "/usr/bin/prometheus";
}

// A port that was free a moment ago (the kernel's choice for port 0 on loopback).
int free_loopback_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return -1;
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

class PrometheusProcess {
 public:
  PrometheusProcess(const std::filesystem::path& dir, int port, int exporter_port) {
    const std::string config =
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        "scrape_configs:\n  - job_name: jouleprof\n    static_configs:\n"
        "      - targets: ['127.0.0.1:" +
        std::to_string(exporter_port) + "']\n";
    std::ofstream(dir / "prometheus.yml") << config;
    std::vector<std::string> args{
        prometheus_binary(), "--config.file=" + (dir / "prometheus.yml").string(),
        "--storage.tsdb.path=" + (dir / "data").string(),
        "--web.listen-address=127.0.0.1:" + std::to_string(port), "--log.level=warn"};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string log = (dir / "prometheus.log").string();
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~PrometheusProcess() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  PrometheusProcess(const PrometheusProcess&) = delete;
  PrometheusProcess& operator=(const PrometheusProcess&) = delete;
  bool running() const { return pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0; }

 private:
  pid_t pid_ = -1;
};

// The first sample's value of an instant query, or nullopt.
std::optional<double> query(httplib::Client& client, const std::string& promql) {
  auto r = client.Get("/api/v1/query", httplib::Params{{"query", promql}}, httplib::Headers{});
  if (!r || r->status != 200) return std::nullopt;
  const auto doc = nlohmann::json::parse(r->body, nullptr, false);
  if (doc.is_discarded() || doc.value("status", "") != "success") return std::nullopt;
  const auto& result = doc["data"]["result"];
  if (!result.is_array() || result.empty()) return std::nullopt;
  return std::stod(result[0]["value"][1].get<std::string>());
}

// The exporter of `sources` (as `jouleprof serve` runs it), scraped every second by a real
// Prometheus on loopback.
class ScrapedExporter {
 public:
  explicit ScrapedExporter(SourceDiscovery found)
      : poller_(std::move(found), EnergyPollerOptions{}),
        exporter_([this] { return poller_.snapshot(); }) {
    poller_.start();
    exporter_port_ = exporter_.start("127.0.0.1", 0);
    if (exporter_port_.ok()) {
      prometheus_port_ = free_loopback_port();
      prometheus_.emplace(dir_.path(), prometheus_port_, *exporter_port_);
      client_.emplace("127.0.0.1", prometheus_port_);
      client_->set_connection_timeout(2);
      client_->set_read_timeout(5);
    }
  }
  ~ScrapedExporter() {
    prometheus_.reset();
    exporter_.stop();
    poller_.stop();
  }
  ScrapedExporter(const ScrapedExporter&) = delete;
  ScrapedExporter& operator=(const ScrapedExporter&) = delete;

  // Empty when everything runs; else why not.
  std::string trouble() const {
    if (!exporter_port_.ok()) return exporter_port_.error().message();
    if (prometheus_port_ <= 0) return "no free port for Prometheus";
    if (!prometheus_->running()) return testing::read_file(dir_.path() / "prometheus.log");
    return "";
  }
  std::optional<double> query(const std::string& promql) {
    return ::jouleprof::query(*client_, promql);
  }
  std::string log() const { return testing::read_file(dir_.path() / "prometheus.log"); }
  const HttpExporter& exporter() const { return exporter_; }

 private:
  EnergyPoller poller_;
  HttpExporter exporter_;
  Result<int> exporter_port_ = Error(ErrorCode::kUnavailable, "not started");
  testing::TempDir dir_;
  int prometheus_port_ = -1;
  std::optional<PrometheusProcess> prometheus_;
  std::optional<httplib::Client> client_;
};

// Two readings of a counter from Prometheus, the second above the first; nullopt past the
// deadline.
std::optional<std::pair<double, double>> see_increase(
    ScrapedExporter& scraped, const std::string& promql,
    std::chrono::steady_clock::time_point deadline) {
  std::optional<double> first;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!scraped.trouble().empty()) return std::nullopt;
    const std::optional<double> value = scraped.query(promql);
    if (value && first && *value > *first) return std::make_pair(*first, *value);
    if (value && !first) first = value;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return std::nullopt;
}

TEST(PrometheusIntegration, ScrapesTheExporterAndSeesTheCounterIncrease) {
  if (!std::filesystem::exists(prometheus_binary())) GTEST_SKIP() << "prometheus not installed";
  SourceOptions sources;
  sources.selected = {"simulated"};
  sources.settings["simulate.watts"] = "50";
  auto found = discover_sources(sources);
  ASSERT_TRUE(found.ok()) << found.error().message();
  ASSERT_FALSE(found->available.empty());
  ScrapedExporter scraped(std::move(found).value());
  ASSERT_EQ(scraped.trouble(), "");

  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  const auto seen = see_increase(scraped, "jouleprof_energy_joules_total", deadline);
  ASSERT_TRUE(seen.has_value()) << "Prometheus never saw the counter increase\n" << scraped.log();
  EXPECT_EQ(scraped.query("jouleprof_source_up{source=\"simulated\"}"), 1.0);
  // The rate Prometheus computes matches the simulated 50 W, once the series is older than the
  // rate window (rate() over a window the series only partly covers underestimates). Each sample
  // is stamped when Prometheus began the scrape but holds the exporter's last poll, so a loaded
  // machine that delays polls or responses shifts values against their stamps: over a 10 s
  // window, the ±5 W bound allows the first and the last sample's delays to differ by ~0.9 s.
  std::this_thread::sleep_for(std::chrono::seconds(12));
  std::optional<double> rate;
  while (std::chrono::steady_clock::now() < deadline && !rate) {
    rate = scraped.query("rate(jouleprof_energy_joules_total[10s])");
    if (!rate) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  ASSERT_TRUE(rate.has_value());
  std::cout << "Prometheus saw jouleprof_energy_joules_total " << seen->first << " J -> "
            << seen->second << " J; rate over 10 s " << *rate << " W (simulated 50 W)\n";
  EXPECT_NEAR(*rate, 50.0, 5.0);
  EXPECT_GE(scraped.exporter().scrapes(), 2u);
}

// `serve --pid`: this test's own process, kept busy by a spinning thread, observed under the CPU
// estimate (the real /proc). Prometheus sees the process' attributed counter grow beside the
// machine's, never above it, and a share between 0 and 1.
TEST(PrometheusIntegration, ExportsTheObservedProcessesShareBesideTheMachines) {
  if (!std::filesystem::exists(prometheus_binary())) GTEST_SKIP() << "prometheus not installed";
  SourceOptions sources;
  sources.selected = {"cpu-estimate"};
  sources.observed = ObservedProcesses::process_tree(getpid());
  auto found = discover_sources(sources);
  ASSERT_TRUE(found.ok()) << found.error().message();
  ASSERT_FALSE(found->available.empty());
  std::atomic<bool> spin{true};
  std::thread busy([&] {
    volatile double x = 1.0;
    while (spin.load(std::memory_order_relaxed)) x = x * 1.0000001 + 1e-9;
  });
  ScrapedExporter scraped(std::move(found).value());
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  const auto seen =
      scraped.trouble().empty()
          ? see_increase(scraped,
                         "jouleprof_process_energy_joules_total{provenance=\"attributed\","
                         "rule=\"cpu-time\"}",
                         deadline)
          : std::nullopt;
  const std::optional<double> machine =
      scraped.query("jouleprof_energy_joules_total{channel=\"cpu-estimate:package\"}");
  const std::optional<double> share = scraped.query("jouleprof_process_share_ratio");
  const std::optional<double> ours_busy =
      scraped.query("jouleprof_busy_seconds_total{domain=\"cpu-time\"}");
  spin = false;
  busy.join();
  ASSERT_EQ(scraped.trouble(), "");
  ASSERT_TRUE(seen.has_value()) << "Prometheus never saw the process counter increase\n"
                                << scraped.log();
  ASSERT_TRUE(machine && share && ours_busy);
  std::cout << "Prometheus saw jouleprof_process_energy_joules_total " << seen->first << " J -> "
            << seen->second << " J of the machine's " << *machine << " J; share " << *share
            << "; our CPU time " << *ours_busy << " s\n";
  EXPECT_GT(*ours_busy, 0.0);
  EXPECT_LE(seen->second, *machine);  // queried later: the machine's has only grown since
  EXPECT_GE(*share, 0.0);
  EXPECT_LE(*share, 1.0);
}

}  // namespace
}  // namespace jouleprof
