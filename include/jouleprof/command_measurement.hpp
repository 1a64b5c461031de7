// Measuring the energy of a whole command: what `jouleprof run` does, for library users too.
//
//   JP_TRY(auto monitor, Monitor::open(monitor_options));
//   CommandMeasurementOptions options;
//   options.argv = {"python3", "train.py"};
//   options.idle_ns = 5 * kNsPerS;                        // baseline before the command
//   JP_TRY(CommandMeasurement m, measure_command(*monitor, options));
//   // m.profile: series, per-channel gross/net energy; m.exit_code: the command's, shell-style
//
// Sequence: start sampling → idle baseline (optional, interruptible) → start the command →
// poll it, calling on_tick for status lines, forwarding every terminating signal jouleprof can
// catch (forwarded_signals()) → stop sampling. A run cut
// short (a signal to jouleprof, the command killed by a signal) still returns what was measured,
// with profile.meta.partial set and a warning saying why.
//
// When the monitor observes a process tree whose root is not set (Monitor::observed()), the
// command becomes its root: the profile then carries the command's own share of every counter
// (docs/sharing.md). The last reading is taken after the command has ended and before it is
// reaped, so that its final CPU time is counted.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "jouleprof/child_process.hpp"
#include "jouleprof/clock.hpp"
#include "jouleprof/monitor.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof {

struct CommandMeasurementOptions {
  std::vector<std::string> argv;
  // Variables the command gets on top of jouleprof's environment (ChildProcess::spawn).
  ChildProcess::Environment environment;
  TimeNs idle_ns = 0;               // idle baseline before the command; 0 = none
  TimeNs tick_ns = 250 * kNsPerMs;  // how often on_tick is called
  std::function<void(const LiveStatus&)> on_tick;
};

struct CommandMeasurement {
  Profile profile;
  // The command's exit code (128 + N when a signal N ended it), or 128 + N when jouleprof itself
  // received signal N (and passed it on), whatever the command then did; the command's own code
  // is profile.meta.exit_code.
  int exit_code = 0;
  std::optional<ChildExit> child;  // absent when the run stopped before the command started
};

// Errors only when the command cannot be started (its name and the reason); the measurement up
// to that point is discarded in that case.
Result<CommandMeasurement> measure_command(Monitor& monitor,
                                           const CommandMeasurementOptions& options);

// Measuring processes that already run: what `jouleprof run --pid PID` and `--cgroup PATH` do.
// The monitor must observe them (Monitor::observed(), a process tree with its root set, or a
// cgroup). Sampling lasts until the root process ends (a process tree) or until SIGINT/SIGTERM
// (a cgroup, or a process tree that keeps running); signals are not passed on. `argv` of the
// options is ignored; profile.meta.command names what was observed.
Result<CommandMeasurement> measure_observed(Monitor& monitor,
                                            const CommandMeasurementOptions& options);

}  // namespace jouleprof
