// Attribution: charges the energy measured on channels to the spans of a timeline and rolls it up
// into the profile tree.
//
//   AttributionOptions options;                       // method "auto" per channel
//   options.idle_power_w["nvml:0:energy"] = 120.0;    // optional: static/dynamic split
//   JP_TRY(AttributionResult result, attribute(series, timeline, options));
//   // result.tree sums to the measured total ([unattributed] holds energy outside every span);
//   // result.records says, per channel, which method was used and why.
//
// A track consumes the channels whose Channel::device equals its Track::device. Tree totals add
// only top-level channels (nested ones, e.g. RAPL core ⊂ package, appear per channel only).
// The formulas are in docs/attribution.md.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/attribution_method.hpp"
#include "jouleprof/calibration.hpp"
#include "jouleprof/clock.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/series.hpp"
#include "jouleprof/timeline.hpp"

namespace jouleprof {

struct AttributionOptions {
  // Method per channel id; channels not listed use default_method.
  AttributionMethod default_method = AttributionMethod::kAuto;
  std::map<std::string, AttributionMethod> method_by_channel;

  // Measured idle (baseline) power per channel id: enables the static/dynamic split.
  std::map<std::string, double> idle_power_w;

  // Calibration weights per channel id (calibrated method; auto picks calibrated for a coarse
  // channel that has one).
  std::map<std::string, Calibration> calibration_by_channel;

  // Declared activity weight per track name (e.g. its share of CPU time): concurrent spans share
  // an interval's energy in proportion to their tracks' weights. Unlisted tracks weigh 1.
  std::map<std::string, double> activity_weight_by_track;

  // Tracks named "thread <tid>" whose thread has a CPU-time series among the series (a busy-time
  // channel of domain "thread", which `run --spans` records) weigh, in each interval between its
  // readings, by the thread's CPU utilisation there (at least 0.01), times their declared weight:
  // a span on a busy thread gets more of an interval than one on a waiting thread.
  bool weigh_threads_by_cpu_time = true;

  // Class of a span for regress/calibrated (default: the span's own name).
  std::function<std::string(std::string_view span_name)> class_of;

  // Attribution window on the monotonic axis; default: the timeline's extent.
  std::optional<TimeNs> window_begin_ns;
  std::optional<TimeNs> window_end_ns;

  // auto: a channel is "fine" when its update period ≤ fine_counter_ratio × the typical span on
  // its consuming tracks (the time-weighted median self-segment duration: half the busy time
  // lies in longer segments); fine channels are interpolated.
  double fine_counter_ratio = 0.5;

  // interpolate on an energy counter: each update interval keeps its measured energy but splits
  // it by busy time × per-class power weights fitted on the counter's own update intervals (the
  // regress model and limits below); classes the fit does not identify weigh the interval's mean
  // power, as plain interpolation does. Intervals inside one span are unchanged, so with spans
  // long against the update period the result tends to plain interpolation.
  // false = plain interpolation.
  bool refine_interpolation = true;

  // regress: a class is identified when its standard error is at most max_relative_se of its
  // fitted power and the column-scaled design's condition number is at most max_condition.
  double regress_max_relative_se = 0.10;
  double regress_max_condition = 1e4;
  std::size_t regress_min_windows = 0;  // 0 = at least 3 × (classes + 1)
  // regress declines altogether (the tree is then interpolated) when fewer than this share of
  // the classes is identified; otherwise unidentified classes are split at the mean identified
  // power and their figures are withheld.
  double regress_min_identified_share = 0.5;

  // Insert a pass node ("[forward]", "[backward]", "[optimizer]") where a span's pass differs
  // from its parent's.
  bool split_passes = true;
};

// What one channel's attribution did.
struct ChannelAttribution {
  std::string channel_id;
  bool top_level = true;  // adds into the tree's energy (a nested channel, RAPL core, does not)
  AttributionMethod method = AttributionMethod::kInterpolate;
  double measured_energy_j = 0.0;          // the channel's energy over the window
  double attributed_energy_j = 0.0;        // charged to spans
  std::vector<double> span_energy_j;       // per timeline span (self energy), 0 if not consuming
  std::vector<double> span_shared_time_s;  // per span: its time share of the consumed intervals
  // Per span: the 95 % half-width of its self energy from the split of the counter windows it
  // shares (docs/uncertainty.md, "split"); and that of the energy no span received.
  std::vector<double> span_split_j;
  double unattributed_split_j = 0.0;
  // The channel's own terms over the window (gain, unit, edges, read delay, gaps).
  std::vector<UncertaintyPart> counter_uncertainty;
  std::map<std::string, double> class_power_w;  // regress (identified classes) / calibrated
};

struct AttributionResult {
  ProfileNode tree;
  std::vector<AttributionRecord> records;
  std::vector<ChannelSummary> channels;
  std::vector<ChannelAttribution> per_channel;
  std::vector<std::string> warnings;
  TimeNs window_begin_ns = 0;
  TimeNs window_end_ns = 0;
  bool split_passes = true;  // the tree has pass nodes (AttributionOptions::split_passes)
};

Result<AttributionResult> attribute(const std::vector<Series>& series, const Timeline& timeline,
                                    const AttributionOptions& options);
// The same over series held elsewhere (Series is move-only).
Result<AttributionResult> attribute(const std::vector<const Series*>& series,
                                    const Timeline& timeline, const AttributionOptions& options);

// Attributes profile.series over profile.timeline and adds the tree, records and warnings to the
// profile. It never replaces what was measured: channels already summarised (by the Monitor) keep
// their summaries, and a measured idle power there feeds the static/dynamic split; channels
// without one get a summary over the attribution window (summarize_channel). Without an explicit
// window, a profile with a run window (meta.begin_ns < meta.end_ns) is attributed over it, so
// that its tree sums to its channels' energy; one made from files over its timeline's extent.
Status attribute_profile(Profile& profile, const AttributionOptions& options);

// Node name of energy outside every span.
inline constexpr std::string_view kUnattributedNode = "[unattributed]";

// --- Views over a tree -------------------------------------------------------------------------

// Operation accounting: numeric indices after '_', '.', '-' or '[' collapse to '*'
// ("layer_3" -> "layer_*") and siblings that then share a name are merged. A merged node's
// interval is the sum of its parts' ends (the bound: their terms are correlated).
ProfileNode collapse_indices(const ProfileNode& tree);
std::string collapse_index_name(std::string_view name);

// Operation accounting over the whole tree: self energy, self time and calls of every node
// summed by its collapsed name (collapse_index_name), largest energy first; bracketed nodes
// ([unattributed], pass nodes) are left out. At most `n` entries.
struct OperatorTotal {
  std::string name;
  double energy_j = 0.0;
  TimeNs time_ns = 0;
  std::uint64_t calls = 0;
};
std::vector<OperatorTotal> top_operators(const ProfileNode& tree, std::size_t n);

// One tree per repetition: the subtree of every span of `category` (steps by default), in the
// order of the spans in the timeline, built from the per-span energies of `result` (top-level
// channels) as its tree was.
std::vector<ProfileNode> trees_per_repetition(const AttributionResult& result,
                                              const Timeline& timeline,
                                              SpanCategory category = SpanCategory::kStep);

// Mean tree over repetitions (runs or steps, matched by node path); each node carries
// energy_stats (jouleprof::summarize: mean, median, stdev, Student-t 95 % CI over the
// repetitions; a node absent from a repetition counts as 0 J there). Its interval is the
// repetitions' mean interval with that Student-t interval, in root sum of squares
// (docs/uncertainty.md, "Repetition").
ProfileNode combine_repetitions(const std::vector<ProfileNode>& repetitions);

// Pearson correlation of per-node energy between two trees (nodes matched by path; the roots and
// nodes missing from one side count as 0 J there); nullopt when either side has no variance.
std::optional<double> run_agreement(const ProfileNode& a, const ProfileNode& b);

}  // namespace jouleprof
