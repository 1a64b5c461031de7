#include "jouleprof/command_measurement.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include <cerrno>
#include <fstream>
#include <string>
#include <string_view>

namespace jouleprof {
namespace {

// How often the child is checked for exit: bounds how late the run window closes after it ends.
constexpr TimeNs kChildPollNs = 2 * kNsPerMs;

void sleep_ns(TimeNs ns) {
  timespec ts{static_cast<time_t>(ns / kNsPerS), static_cast<long>(ns % kNsPerS)};
  nanosleep(&ts, nullptr);  // a signal ends it early, which is what the callers want
}

// Calls on_tick at most every tick_ns.
class Ticker {
 public:
  Ticker(Monitor& monitor, const CommandMeasurementOptions& options)
      : monitor_(monitor), options_(options), next_ns_(monotonic_now_ns() + options.tick_ns) {}
  void operator()() {
    if (!options_.on_tick || monotonic_now_ns() < next_ns_) return;
    options_.on_tick(monitor_.live());
    next_ns_ += options_.tick_ns;
  }

 private:
  Monitor& monitor_;
  const CommandMeasurementOptions& options_;
  TimeNs next_ns_;
};

// Starts sampling and takes the idle baseline; false when a signal came first (the result then
// holds the partial profile; `what` names what was not run). Without a baseline, a signal stops
// the run here only when `what` has not begun (a command not spawned yet).
Result<bool> start_with_baseline(Monitor& monitor, const CommandMeasurementOptions& options,
                                 const SignalForwarder& forwarder, Ticker& tick,
                                 CommandMeasurement& result, std::string_view what,
                                 bool signal_without_baseline_stops) {
  JP_RETURN_IF_ERROR(monitor.start());
  if (options.idle_ns > 0) {
    const TimeNs idle_begin = monotonic_now_ns();
    const TimeNs idle_end = idle_begin + options.idle_ns;
    monitor.set_run_begin(idle_begin);  // the status line counts the baseline too
    while (forwarder.received() == 0 && monotonic_now_ns() < idle_end) {
      sleep_ns(
          std::min<TimeNs>(options.tick_ns, std::max<TimeNs>(0, idle_end - monotonic_now_ns())));
      tick();
    }
    monitor.set_idle_window(idle_begin, std::min(idle_end, monotonic_now_ns()));
  }
  if (forwarder.received() == 0 || (options.idle_ns == 0 && !signal_without_baseline_stops))
    return true;
  result.profile = monitor.stop();
  result.profile.meta.partial = true;
  result.exit_code = 128 + forwarder.received();
  result.profile.meta.exit_code = result.exit_code;
  result.profile.warnings.push_back(fmt::format(
      "interrupted by signal {} ({}) {}: {} was not run", forwarder.received(),
      strsignal(forwarder.received()),
      options.idle_ns > 0 ? "during the idle baseline" : "before the measurement began", what));
  return false;
}

// Whether a process that is not our child still runs (a zombie has ended).
bool process_runs(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() || text[close + 2] != 'Z';
}

}  // namespace

Result<CommandMeasurement> measure_command(Monitor& monitor,
                                           const CommandMeasurementOptions& options) {
  if (options.argv.empty()) return invalid_input("command line", "command", "", "no command given");
  SignalForwarder forwarder;
  CommandMeasurement result;
  Ticker tick(monitor, options);
  JP_TRY(const bool go_on,
         start_with_baseline(monitor, options, forwarder, tick, result, "the command", true));
  if (!go_on) {
    result.profile.meta.command = options.argv;
    return result;
  }

  monitor.set_run_begin(monotonic_now_ns());
  Result<ChildProcess> spawned = ChildProcess::spawn(options.argv, options.environment);
  if (!spawned) {
    (void)monitor.stop();
    return spawned.error();
  }
  ChildProcess child = std::move(spawned).value();
  const std::shared_ptr<ObservedProcesses>& observed = monitor.observed();
  if (observed && observed->kind() == ObservedProcesses::Kind::kProcessTree &&
      observed->root() == 0) {
    observed->set_root(child.pid());
  }
  forwarder.forward_to(child.pid());
  while (!child.has_ended()) {
    sleep_ns(kChildPollNs);
    tick();
  }

  // Stopped before the child is reaped: the last reading sees its final CPU time.
  result.profile = monitor.stop();
  Result<ChildExit> exit = child.wait();
  if (!exit) return exit.error();
  result.child = *exit;
  result.exit_code = exit->shell_code();
  RunMetadata& meta = result.profile.meta;
  meta.command = options.argv;
  meta.exit_code = result.exit_code;  // the command's own
  if (forwarder.received() != 0) {
    // Cut short by a signal: ends as a shell reports a process the signal ended, whatever the
    // command made of it (it may have trapped it and exited 0).
    result.exit_code = 128 + forwarder.received();
    meta.partial = true;
    result.profile.warnings.push_back(
        fmt::format("jouleprof received signal {} ({}) and passed it on; the command then {}",
                    forwarder.received(), strsignal(forwarder.received()), exit->describe()));
  } else if (!exit->exited) {
    meta.partial = true;
    result.profile.warnings.push_back(fmt::format("the command was {}", exit->describe()));
  }
  return result;
}

Result<CommandMeasurement> measure_observed(Monitor& monitor,
                                            const CommandMeasurementOptions& options) {
  const std::shared_ptr<ObservedProcesses>& observed = monitor.observed();
  if (!observed) {
    return invalid_input("measurement", "observed processes", "none",
                         "the monitor observes no processes");
  }
  const bool tree = observed->kind() == ObservedProcesses::Kind::kProcessTree;
  const pid_t root = observed->root();
  if (tree && (root <= 0 || !process_runs(root))) {
    return Error(ErrorCode::kNotFound,
                 fmt::format("pid {}: no such process (it may have ended already)", root));
  }
  SignalForwarder forwarder;  // records SIGINT/SIGTERM; nothing is forwarded
  CommandMeasurement result;
  Ticker tick(monitor, options);
  // Without a baseline there is nothing to interrupt: a signal just ends the observation.
  JP_TRY(const bool go_on,
         start_with_baseline(monitor, options, forwarder, tick, result, "the observation", false));
  const std::vector<std::string> what =
      tree ? std::vector<std::string>{"--pid", std::to_string(root)}
           : std::vector<std::string>{"--cgroup", observed->cgroup_path()};
  if (!go_on) {
    result.profile.meta.command = what;
    return result;
  }
  monitor.set_run_begin(monotonic_now_ns());
  while (forwarder.received() == 0 && (!tree || process_runs(root))) {
    sleep_ns(options.tick_ns);
    tick();
  }
  result.profile = monitor.stop();
  result.profile.meta.command = what;
  // Ending the observation with Ctrl-C is the normal way for a cgroup: the exit code stays 0.
  if (forwarder.received() != 0) {
    if (tree) {
      result.profile.warnings.push_back(
          fmt::format("stopped by signal {} ({}) while {} still ran", forwarder.received(),
                      strsignal(forwarder.received()), observed->describe()));
    }
  }
  return result;
}

}  // namespace jouleprof
