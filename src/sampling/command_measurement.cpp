#include "jouleprof/command_measurement.hpp"

#include <fmt/format.h>
#include <string.h>
#include <time.h>

namespace jouleprof {
namespace {

// How often the child is checked for exit: bounds how late the run window closes after it ends.
constexpr TimeNs kChildPollNs = 2 * kNsPerMs;

void sleep_ns(TimeNs ns) {
  timespec ts{static_cast<time_t>(ns / kNsPerS), static_cast<long>(ns % kNsPerS)};
  nanosleep(&ts, nullptr);  // a signal ends it early, which is what the callers want
}

}  // namespace

Result<CommandMeasurement> measure_command(Monitor& monitor,
                                           const CommandMeasurementOptions& options) {
  if (options.argv.empty()) return invalid_input("command line", "command", "", "no command given");
  SignalForwarder forwarder;
  JP_RETURN_IF_ERROR(monitor.start());
  CommandMeasurement result;

  TimeNs next_tick = monotonic_now_ns() + options.tick_ns;
  const auto tick = [&] {
    if (!options.on_tick || monotonic_now_ns() < next_tick) return;
    options.on_tick(monitor.live());
    next_tick += options.tick_ns;
  };

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

  if (forwarder.received() != 0) {
    result.profile = monitor.stop();
    result.profile.meta.command = options.argv;
    result.profile.meta.partial = true;
    result.exit_code = 128 + forwarder.received();
    result.profile.meta.exit_code = result.exit_code;
    result.profile.warnings.push_back(fmt::format(
        "interrupted by signal {} ({}) during the idle baseline: the command was not run",
        forwarder.received(), strsignal(forwarder.received())));
    return result;
  }

  monitor.set_run_begin(monotonic_now_ns());
  Result<ChildProcess> spawned = ChildProcess::spawn(options.argv);
  if (!spawned) {
    (void)monitor.stop();
    return spawned.error();
  }
  ChildProcess child = std::move(spawned).value();
  forwarder.forward_to(child.pid());
  std::optional<ChildExit> exit;
  while (!(exit = child.poll())) {
    sleep_ns(kChildPollNs);
    tick();
  }

  result.profile = monitor.stop();
  result.child = exit;
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

}  // namespace jouleprof
