#include <fmt/format.h>
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <iostream>
#include <limits>
#include <optional>
#include <thread>

#include "command.hpp"
#include "core/caught_signals.hpp"
#include "jouleprof/exporter.hpp"
#include "number_checks.hpp"
#include "source_flags.hpp"

namespace jouleprof::cli {
namespace {

std::atomic<bool> g_stop{false};
void request_stop(int, siginfo_t*, void*) { g_stop.store(true); }

}  // namespace

CommandRunner add_serve_command(CLI::App& parent) {
  auto* cmd = parent.add_subcommand(
      "serve", "Prometheus exporter: energy counters, power gauges and source health at /metrics");
  struct Options {
    int port = 9464;
    std::string bind = "127.0.0.1";
    double interval_ms = 0.0;
    double duration_s = 0.0;
    std::optional<int> pid;
    std::string cgroup;
    SourceFlags sources;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("--port", o->port, "TCP port to listen on (0: any free port, printed on start)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--bind", o->bind,
                  "Address to listen on (0.0.0.0: every interface, for scraping from other hosts)")
      ->capture_default_str();
  cmd->add_option("--interval", o->interval_ms,
                  "Poll the sources every MS milliseconds, at least 10 (default: the fastest "
                  "source's period, at least 10; at most 100 years)")
      ->check(kExporterIntervalMilliseconds);
  cmd->add_option("--duration", o->duration_s,
                  "Stop after SECONDS (default: run until SIGINT/SIGTERM; at most 100 years)")
      ->check(kDurationSecondsOrZero);
  cmd->add_option("--pid", o->pid,
                  "Also export the attributed share of every counter of process PID and its "
                  "descendants (jouleprof_process_energy_joules_total, docs/sharing.md)")
      ->type_name("PID")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  cmd->add_option("--cgroup", o->cgroup,
                  "Also export the attributed share of every counter of a cgroup-v2 group (its "
                  "directory under /sys/fs/cgroup or its path as /proc/PID/cgroup shows it)")
      ->type_name("PATH")
      ->excludes("--pid");
  o->sources.add_to(*cmd);
  return [o] {
    auto options = o->sources.to_options();
    if (!options) return report_error(options.error());
    if (o->pid) {
      if (kill(*o->pid, 0) != 0 && errno == ESRCH) {
        return report_error(
            Error(ErrorCode::kNotFound, fmt::format("--pid {}: no such process", *o->pid)));
      }
      options->observed = ObservedProcesses::process_tree(*o->pid);
    }
    if (!o->cgroup.empty()) options->observed = ObservedProcesses::cgroup(o->cgroup);
    auto found = discover_sources(*options);
    if (!found) return report_error(found.error());
    for (const UnavailableSource& u : found->unavailable) {
      std::cerr << "jouleprof: source " << u.name << " unavailable: " << u.availability.reason
                << (u.availability.fix.empty() ? "" : " (" + u.availability.fix + ")") << '\n';
    }
    for (const std::string& note : found->notes) std::cerr << "jouleprof: " << note << '\n';
    if (found->available.empty()) {
      std::cerr << "jouleprof: no energy source available; serving source health only\n";
    }
    EnergyPollerOptions poll;
    poll.interval_ns = static_cast<TimeNs>(o->interval_ms * static_cast<double>(kNsPerMs));
    EnergyPoller poller(std::move(found).value(), poll);
    poller.start();
    HttpExporter http([&poller] { return poller.snapshot(); });
    auto port = http.start(o->bind, o->port);
    if (!port) return report_error(port.error());
    std::cerr << fmt::format(
        "jouleprof: serving http://{}:{}/metrics (polling every {:.0f} ms)\n", o->bind, *port,
        static_cast<double>(poller.interval_ns()) / static_cast<double>(kNsPerMs));
    const CaughtSignals stop_signals({SIGINT, SIGTERM}, request_stop, SA_RESTART);
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(o->duration_s);
    while (!g_stop.load() &&
           (o->duration_s <= 0.0 || std::chrono::steady_clock::now() < deadline)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    http.stop();
    poller.stop();
    std::cerr << fmt::format("jouleprof: exporter stopped after {} scrapes\n", http.scrapes());
    return kExitOk;
  };
}

}  // namespace jouleprof::cli
