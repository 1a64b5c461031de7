// RecordedOptions: what a profile records about how it was made (its meta.options, docs/schema.md)
// — the settings a run had, what the sampler cost, the trace and window an attribution used, how
// ranks were merged. One typed field per key jouleprof writes; a field left empty writes no key.
//
// In the file meta.options is an object of strings under the dotted keys named beside each field,
// numbers written as the comment says (integers in decimal). Keys this version does not know are
// kept as text in `unknown`, so that a profile read and written again still holds them; a known key
// whose value is not of its field's type makes the profile unreadable, like any other bad field.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/attribution_method.hpp"
#include "jouleprof/attribution_window.hpp"
#include "jouleprof/clock.hpp"
#include "jouleprof/epoch_start.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/static_share.hpp"
#include "jouleprof/trace_format.hpp"

namespace jouleprof {

struct RecordedOptions {
  struct Attribution {
    std::optional<AttributionMethod> default_method;  // attribution.default_method
    std::optional<AttributionWindow> window;          // attribution.window
    std::optional<TimeNs> window_begin_ns;            // attribution.window_begin_ns
    std::optional<TimeNs> window_end_ns;              // attribution.window_end_ns
  };
  struct AutoWindow {
    std::optional<double> max_cv;       // auto_window.max_cv, shortest exact decimal
    std::optional<TimeNs> window_ns;    // auto_window.window_ns
    std::optional<TimeNs> cooldown_ns;  // auto_window.cooldown_ns
  };
  struct CApi {
    std::optional<bool> record_spans;  // capi.record_spans: "true" or "false"
  };
  struct Cluster {
    std::optional<std::string> launcher;  // cluster.launcher
    std::optional<int> local_rank;        // cluster.local_rank
    std::optional<int> node_rank;         // cluster.node_rank
  };
  struct Epochs {
    std::optional<EpochStart> first_begin;  // epochs.first_begin, by its description
    std::optional<int> total;               // epochs.total: the count `run --epochs` was given
  };
  struct Gated {
    std::optional<std::string> preset;  // gated.preset
  };
  struct Idle {                      // the idle baseline's window
    std::optional<TimeNs> begin_ns;  // idle.begin_ns
    std::optional<TimeNs> end_ns;    // idle.end_ns
  };
  struct Merge {  // per rank, keyed by its label "r<rank>"; per host, by its name
    std::optional<std::uint64_t> ranks;           // merge.ranks
    std::map<std::string, std::string> origin;    // merge.origin.<label>: the file it came from
    std::map<std::string, TimeNs> offset_ns;      // merge.offset_ns.<label>: its clock shift
    std::map<std::string, double> rank_energy_j;  // merge.rank_energy_j.<label>, 9 digits
    std::map<std::string, double> host_energy_j;  // merge.host_energy_j.<host>, 9 digits
    // A rank's steps, their time and the part of it spent in collectives ([communication] under
    // its steps: transfer and waiting), 9 digits.
    std::map<std::string, std::uint64_t> steps;            // merge.steps.<label>
    std::map<std::string, double> step_time_s;             // merge.step_time_s.<label>
    std::map<std::string, double> communication_time_s;    // merge.communication_time_s.<label>
    std::map<std::string, double> communication_energy_j;  // merge.communication_energy_j.<label>
  };
  struct Process {
    std::optional<std::string> observed;      // process.observed: who the figures are of
    std::optional<StaticShare> static_share;  // process.static_share
  };
  struct Run {                              // `jouleprof run`'s flags
    std::optional<double> idle_s;           // run.idle_s, shortest exact decimal
    std::optional<double> interval_ms;      // run.interval_ms, shortest exact decimal
    std::optional<std::string> source;      // run.source: --source as given
    std::optional<std::string> sysfs_root;  // run.sysfs_root
  };
  struct Sampler {                                    // the sampler's own cost
    std::map<std::string, TimeNs> period_ns;          // sampler.period_ns.<source>
    std::optional<TimeNs> thread_cpu_ns;              // sampler.thread_cpu_ns
    std::optional<TimeNs> wall_ns;                    // sampler.wall_ns
    std::optional<std::uint64_t> polls;               // sampler.polls
    std::optional<double> cpu_percent_of_one_core;    // sampler.cpu_percent_of_one_core, 4 decimals
    std::optional<std::uint64_t> memory_limit_bytes;  // sampler.memory_limit_bytes
  };
  struct Sources {
    std::optional<std::vector<std::string>> names;  // sources: the sampled sources, comma-separated
    std::map<std::string, std::string> unavailable;  // sources.unavailable.<name>: why
  };
  struct Torch {
    std::optional<int> steps;                      // torch.steps
    std::optional<int> warmup;                     // torch.warmup
    std::optional<std::int64_t> samples_per_step;  // torch.samples_per_step
    std::optional<std::int64_t> parameters;        // torch.parameters
    std::optional<std::string> calibration;        // torch.calibration: where it came from
  };
  struct Trace {
    std::optional<std::string> path;              // trace.path
    std::optional<TraceFormat> format;            // trace.format
    std::optional<std::string> clock_mapping;     // trace.clock_mapping
    std::optional<TimeNs> offset_ns;              // trace.offset_ns
    std::optional<double> backward_s;             // trace.backward_s, 9 digits
    std::optional<double> backward_linked_share;  // trace.backward_linked_share, 6 digits
    std::optional<double> backward_module_share;  // trace.backward_module_share, 6 digits
  };

  Attribution attribution;
  AutoWindow auto_window;
  CApi capi;
  Cluster cluster;
  Epochs epochs;
  Gated gated;
  Idle idle;
  Merge merge;
  Process process;
  Run run;
  Sampler sampler;
  Sources sources;
  std::map<std::string, std::string> settings;  // setting.<key>: the source settings a run had
  Torch torch;
  Trace trace;
  std::map<std::string, std::string> unknown;  // keys this version does not know, as read
};

// The options as meta.options holds them: key → text.
std::map<std::string, std::string> recorded_option_entries(const RecordedOptions& options);
// The inverse, for the profile read from `origin`: an error names it, the key and the value when a
// known key's value is not of its field's type.
Result<RecordedOptions> recorded_options_from_entries(
    const std::map<std::string, std::string>& entries, std::string_view origin);

}  // namespace jouleprof
