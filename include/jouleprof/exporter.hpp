// The Prometheus exporter: live energy counters, power gauges and source health for monitoring
// systems, in the Prometheus text format 0.0.4 or OpenMetrics 1.0 (chosen from the Accept header).
//
//   JP_TRY(SourceDiscovery found, discover_sources(options));
//   EnergyPoller poller(std::move(found), EnergyPollerOptions{});
//   poller.start();
//   HttpExporter http([&] { return poller.snapshot(); });
//   JP_TRY(int port, http.start("127.0.0.1", 9464));
//   … until a signal …
//   http.stop(); poller.stop();
//
// Metrics (labels device, domain, provenance, channel; `top_level` says whether a channel may be
// summed — nested channels such as RAPL core ⊂ package must not be):
//   jouleprof_energy_joules_total   counter  energy since the exporter started
//   jouleprof_power_watts           gauge    power over the last poll interval (or the reading)
//   jouleprof_temperature_celsius   gauge    temperature channels
//   jouleprof_utilisation_ratio     gauge    utilisation channels, 0..1
//   jouleprof_source_up{source}     gauge    1 when the source is available and its last read
//   worked jouleprof_source_info{source,reason,fix}  info: why a source is down ("" when up)
// With observed processes (SourceOptions::observed: `serve --pid/--cgroup`), beside the machine's:
//   jouleprof_busy_seconds_total          counter  busy-time channels: the observed processes',
//                                                  every process's and the idle time per device
//   jouleprof_process_energy_joules_total counter  the observed processes' share of each energy
//                                                  channel (provenance "attributed", label rule;
//                                                  docs/sharing.md; the static part by CPU time)
//   jouleprof_process_share_ratio         gauge    that share over the last poll interval
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/channel.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/sources.hpp"

namespace jouleprof {

struct ExportedChannel {
  Channel channel;
  double energy_j = 0.0;          // energy channels: cumulative since the exporter started
  std::optional<double> power_w;  // energy channels: the latest power
  std::optional<double> value;    // temperature / utilisation: the latest reading; busy time:
                                  // seconds since the exporter started
};

// The observed processes' share of one energy channel (a device with per-process activity).
struct ExportedProcessShare {
  std::size_t channel = 0;      // index into ExporterSnapshot::channels
  double energy_j = 0.0;        // attributed, since the exporter started
  std::optional<double> share;  // over the last poll interval
  std::string rule;             // "cpu-time", "gpu-utilisation", …
};

struct SourceHealth {
  std::string source;
  bool up = false;
  std::string reason;  // why it is down; empty when up
  std::string fix;     // what the user can do
};

struct ExporterSnapshot {
  std::vector<ExportedChannel> channels;
  std::vector<SourceHealth> sources;
  std::vector<ExportedProcessShare> process_shares;
  std::string observed;  // who the process figures are of; empty: no processes observed
};

enum class ExpositionFormat : std::uint8_t { kPrometheusText = 0, kOpenMetrics = 1 };

// OpenMetrics when the Accept header lists application/openmetrics-text (with a non-zero q),
// else the Prometheus text format.
ExpositionFormat negotiate_exposition_format(std::string_view accept_header);
std::string_view exposition_content_type(ExpositionFormat format);
std::string render_exposition(const ExporterSnapshot& snapshot, ExpositionFormat format);

struct EnergyPollerOptions {
  TimeNs interval_ns =
      0;  // 0: the shortest default period of the sources, at least kMinExporterPollNs
};
// Polling faster than this gains nothing for a scrape every few seconds and costs CPU.
inline constexpr TimeNs kMinExporterPollNs = 10 * kNsPerMs;

// Polls the sources on its own thread and keeps, per channel, only the running total and the
// latest power: memory stays constant however long the exporter runs (the Sampler, which keeps
// every sample for attribution, is the wrong tool for a daemon). Counter channels add the
// non-negative differences of their readings (a counter that goes backwards — a driver reload —
// adds nothing for that interval and is reported in the source's health); power channels are
// integrated with the trapezoid rule.
class EnergyPoller {
 public:
  EnergyPoller(SourceDiscovery sources, EnergyPollerOptions options);
  ~EnergyPoller();
  EnergyPoller(const EnergyPoller&) = delete;
  EnergyPoller& operator=(const EnergyPoller&) = delete;

  void start();  // takes the first reading (the baseline) before returning
  void stop();
  // Reads every source once now (what the thread does each period; tests call it directly).
  void poll_once();
  ExporterSnapshot snapshot() const;
  TimeNs interval_ns() const;

 private:
  struct State;  // the sources, per-channel totals and the polling thread
  std::unique_ptr<State> state_;
};

// How the exporter treats its clients: each open connection has a worker of its own, so that idle
// or slow clients cannot keep a scrape waiting, and one that sends nothing for idle_timeout_ns is
// closed.
struct HttpExporterLimits {
  TimeNs idle_timeout_ns = 5 * kNsPerS;
  std::size_t max_connections = 256;  // served at once; more wait for a free worker
};

// Serves GET /metrics (the exposition of whatever `snapshot` returns at that moment) and a short
// text page at GET /. Built only with cpp-httplib (JOULEPROF_WITH_HTTP); otherwise start() says so.
class HttpExporter {
 public:
  explicit HttpExporter(std::function<ExporterSnapshot()> snapshot, HttpExporterLimits limits = {});
  ~HttpExporter();
  HttpExporter(const HttpExporter&) = delete;
  HttpExporter& operator=(const HttpExporter&) = delete;

  // Binds to `address`:`port` (port 0: a free port) and serves on a background thread; returns
  // the bound port. The error says what is wrong: not an address, not this host's, port in use.
  Result<int> start(const std::string& address, int port);
  void stop();
  std::uint64_t scrapes() const;  // GET /metrics answered so far

 private:
  struct Server;  // the HTTP server, its listening thread and the scrape count
  std::function<ExporterSnapshot()> snapshot_;
  HttpExporterLimits limits_;
  std::unique_ptr<Server> server_;
};

}  // namespace jouleprof
