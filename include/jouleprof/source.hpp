// Source: one energy backend (RAPL powercap, perf, MSR, NVML, hwmon, a recorded trace, the
// simulator, the CPU estimate). A source discovers its channels once and then reads them when
// asked; it never sleeps and owns no threads (the Sampler does the timing).
//
// A source that cannot work here is still a valid object: no channels, and an Availability that
// says why and what the user can do. Callers never branch on null.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/channel.hpp"
#include "jouleprof/clock.hpp"
#include "jouleprof/observed_processes.hpp"

namespace jouleprof {

struct Reading {
  TimeNs t_ns = 0;     // CLOCK_MONOTONIC when the value was read
  double value = 0.0;  // channel units: J (cumulative, wrap undone), W, °C or fraction
  bool ok = false;     // false: this channel could not be read this time (see read_error)
};

struct Availability {
  bool available = false;
  std::string reason;  // why not, in words a user understands ("permission denied on …")
  std::string fix;     // what the user can do about it; empty when nothing can be done
};

class Source {
 public:
  virtual ~Source() = default;

  virtual std::string_view name() const = 0;
  virtual Availability availability() const = 0;
  // May grow while the source is read (the process source adds a channel per thread it sees);
  // channels are never removed or reordered.
  virtual const std::vector<Channel>& channels() const = 0;

  // Reads the first out.size() channels now into out[i] (out.size() <= channels().size(); a
  // channel added during this read is read from the next call on).
  virtual void read(std::span<Reading> out) = 0;

  // Why the last read of channel i failed; empty when it succeeded.
  virtual std::string read_error(std::size_t channel) const = 0;

  // How often this source should be polled unless the user says otherwise.
  virtual TimeNs default_period_ns() const = 0;
};

// Options every backend may consult when it discovers its channels.
struct SourceOptions {
  std::string sysfs_root = "/";  // prefix for /sys, /proc and /dev paths (tests use a fake tree)
  std::vector<std::string> selected;  // --source NAME[,NAME…]; empty = every measured source found
  std::map<std::string, std::string> settings;  // backend-specific, e.g. "simulate.watts" = "50"
  // Set: the processes whose activity is read besides the machine's (the process source joins
  // the run, GPU sources add per-process activity channels); null: the machine only.
  std::shared_ptr<ObservedProcesses> observed;
  // GPUs are named gpu<first_gpu_index + the vendor library's index>, so that the GPUs of several
  // vendors on one machine share one numbering; discovery sets it from the GPU backends opened
  // before (registry order), leaving 0 on a machine with one vendor's GPUs.
  std::size_t first_gpu_index = 0;
};

}  // namespace jouleprof
