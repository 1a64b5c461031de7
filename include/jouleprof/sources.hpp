// Source discovery: the table of every energy backend jouleprof knows, and the choice of which
// ones a run uses.
//
//   SourceOptions options;                       // options.selected empty: the default set
//   JP_TRY(SourceDiscovery found, discover_sources(options));
//   for (auto& source : found.available) …       // ready to be polled by a Sampler
//   for (auto& u : found.unavailable) …          // u.name, u.availability.reason / .fix
//
// Default set: every *measured* backend that is available here. Backends that read the same
// hardware counters through different interfaces (RAPL through powercap, perf and MSRs) form one
// group, and only the first available member of a group is used, so that no counter is counted
// twice. A backend whose counters should move within milliseconds (RAPL) is probed first and
// left out when they do not move (virtual machines expose RAPL without feeding it), with the
// reason in `unavailable`; naming it with --source uses it regardless. When no measured backend
// is available, the CPU estimate stands in (and says so). The
// simulated backend is used only when asked for (`--source simulated`, `--simulate W`). With
// SourceOptions::observed set, the process source (CPU time of the observed processes and of
// every CPU) joins whatever was chosen, first.
// GPUs are numbered across vendors in the order their backends are opened (nvml, rocm-smi,
// level-zero; or the order of --source): gpu0… for the first vendor's, the next vendor's after.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/source.hpp"

namespace jouleprof {

// What kind of numbers a backend produces; decides whether it joins the default set.
enum class SourceClass : std::uint8_t {
  kMeasured = 0,   // hardware or driver counters: the default set
  kEstimated = 1,  // a model: the fallback when nothing is measured
  kSimulated = 2,  // only on request
};

struct SourceEntry {
  std::string_view name;   // what --source takes, e.g. "rapl-powercap"
  std::string_view group;  // backends reading the same counters; "" = none
  SourceClass source_class = SourceClass::kMeasured;
  std::string_view description;  // one line for --help and `jouleprof sensors`
  std::unique_ptr<Source> (*make)(const SourceOptions& options) = nullptr;
  // > 0: the default set takes this backend only if its counters move within this window.
  TimeNs liveness_probe_ns = 0;
  // hwmon chips (comma-separated) whose sensors this backend reads as well, through its vendor's
  // library: when this backend is used, hwmon leaves them out so that no device counts twice.
  std::string_view hwmon_chips = "";
  // The SourceOptions::settings keys this backend reads (docs/sources.md); null: none.
  std::span<const std::string_view> (*settings)() = nullptr;
};

// Every backend linked into this build, in order of preference within a group.
std::span<const SourceEntry> source_registry();

// The names --source accepts, comma-separated (for help texts and error messages).
std::string source_names();

struct UnavailableSource {
  std::string name;
  Availability availability;  // reason and fix
};

struct SourceDiscovery {
  std::vector<std::unique_ptr<Source>> available;
  std::vector<UnavailableSource> unavailable;
  // Decisions the user should know about: the estimate standing in, a group member left out.
  std::vector<std::string> notes;
  // SourceOptions::observed: the processes whose activity the sources read (null: none).
  std::shared_ptr<ObservedProcesses> observed;
};

// Builds the sources options.selected names (or the default set when it is empty). An unknown
// name is an error that lists the valid ones; a selected source that is unavailable is reported
// in `unavailable`, not as an error (the caller decides whether an empty `available` is fatal).
Result<SourceDiscovery> discover_sources(const SourceOptions& options);

// Splits "a,b, c" into names (empty parts dropped).
std::vector<std::string> split_source_list(std::string_view text);

}  // namespace jouleprof
