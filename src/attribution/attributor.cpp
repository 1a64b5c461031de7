// attribute(): per energy channel, choose a method, charge the channel's energy to the self
// segments of the spans on its consuming tracks, then roll everything up into one tree.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "attribution/energy_curve.hpp"
#include "attribution/interval_sweep.hpp"
#include "attribution/method_choice.hpp"
#include "attribution/nnls_regression.hpp"
#include "attribution/normal_equations.hpp"
#include "attribution/profile_tree.hpp"
#include "attribution/refined_interpolation.hpp"
#include "attribution/step_energy.hpp"
#include "attribution/thread_activity.hpp"
#include "attribution/window_split.hpp"
#include "core/gap_overlap.hpp"
#include "core/quantity_text.hpp"
#include "jouleprof/attribution.hpp"
#include "jouleprof/channel_summary.hpp"
#include "jouleprof/device_names.hpp"
#include "jouleprof/process_share.hpp"
#include "sampling/counter_uncertainty.hpp"

namespace jouleprof {

namespace {

using attribution::ChannelFigures;
using attribution::EnergyCurve;
using attribution::kNoClass;
using attribution::Segment;
using attribution::SweepResult;

std::string_view last_level(std::string_view name) {
  const std::size_t slash = name.rfind('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

// Classes of every timeline name (regress/calibrated work per class).
struct ClassTable {
  std::vector<std::uint32_t> class_of_name;
  std::vector<std::string> names;
};

ClassTable make_class_table(const Timeline& timeline, const AttributionOptions& options) {
  ClassTable table;
  std::unordered_map<std::string, std::uint32_t> ids;
  table.class_of_name.reserve(timeline.names().size());
  for (const std::string& name : timeline.names()) {
    std::string klass = options.class_of ? options.class_of(name) : std::string(last_level(name));
    if (klass.empty()) {
      table.class_of_name.push_back(kNoClass);
      continue;
    }
    auto [it, inserted] = ids.emplace(klass, static_cast<std::uint32_t>(table.names.size()));
    if (inserted) table.names.push_back(std::move(klass));
    table.class_of_name.push_back(it->second);
  }
  return table;
}

// The typical span length: the time-weighted median of segment durations (half of the busy time
// lies in segments at least this long), so that many tiny gaps or launches do not hide the long
// kernels that hold most of the energy.
TimeNs typical_segment_ns(const std::vector<Segment>& segments) {
  if (segments.empty()) return 0;
  // A strided sample keeps the cost bounded on very long timelines.
  const std::size_t stride = std::max<std::size_t>(1, segments.size() / 65536);
  std::vector<TimeNs> durations;
  durations.reserve(segments.size() / stride + 1);
  double total = 0.0;
  for (std::size_t i = 0; i < segments.size(); i += stride) {
    durations.push_back(segments[i].end_ns - segments[i].begin_ns);
    total += static_cast<double>(durations.back());
  }
  std::sort(durations.begin(), durations.end());
  double cumulative = 0.0;
  for (TimeNs d : durations) {
    cumulative += static_cast<double>(d);
    if (cumulative >= 0.5 * total) return d;
  }
  return durations.back();
}

// Window edges for the windowed methods: the attribution bounds and every knot strictly inside.
std::vector<TimeNs> window_edges(const EnergyCurve& curve, TimeNs begin_ns, TimeNs end_ns) {
  std::vector<TimeNs> edges{begin_ns};
  for (TimeNs k : curve.knots_ns()) {
    if (k > begin_ns && k < end_ns) edges.push_back(k);
  }
  edges.push_back(end_ns);
  return edges;
}

struct ChannelWork {
  const Series* series = nullptr;
  EnergyCurve curve;
  TimeNs begin_ns = 0;
  TimeNs end_ns = 0;
  std::vector<Segment> segments;
  ChannelAttribution out;
  AttributionRecord record;
  double busy_s = 0.0;
  bool refined = false;    // interpolation weighted by fitted class powers below the update period
  PowerRange power_range;  // what the channel showed over the window (and its idle power)
};

void charge_segments(ChannelWork& w, const std::vector<double>& segment_energy_j,
                     const std::vector<double>& segment_shared_s) {
  for (std::size_t i = 0; i < w.segments.size(); ++i) {
    const std::uint32_t span = w.segments[i].span;
    w.out.span_energy_j[span] += segment_energy_j[i];
    w.out.span_shared_time_s[span] += segment_shared_s[i];
  }
}

void charge_split(ChannelWork& w, const std::vector<double>& segment_split_j, double idle_split_j) {
  for (std::size_t i = 0; i < w.segments.size(); ++i)
    w.out.span_split_j[w.segments[i].span] += segment_split_j[i];
  w.out.unattributed_split_j = idle_split_j;
}

void charge_split(ChannelWork& w, const attribution::WindowSplit& split) {
  charge_split(w, split.segment_split_j, split.idle_split_j);
}

// The powers the channel's work may have drawn: what its update intervals showed, down to its
// idle power, and at least as far above the window's mean power as the lowest lies below it. An
// interval's power is a mean over the spans in it, so a counter that updates slower than the
// spans shows a range much narrower than theirs; the symmetric bound keeps their band honest
// there (docs/uncertainty.md, "split").
PowerRange work_power_range(const ChannelWork& w, std::optional<double> idle_w) {
  PowerRange range = observed_power_range(*w.series, w.begin_ns, w.end_ns);
  if (idle_w) range.low_w = std::min(range.low_w, *idle_w);
  const double window_s = ns_to_s(w.end_ns - w.begin_ns);
  if (window_s > 0.0) {
    const double mean_w = w.out.measured_energy_j / window_s;
    range.high_w = std::max(range.high_w, 2.0 * mean_w - range.low_w);
  }
  return range;
}

attribution::WindowSplitInputs split_inputs(const ChannelWork& w, const SweepResult& sweep,
                                            const std::vector<TimeNs>& edges) {
  attribution::WindowSplitInputs in;
  in.segments = &w.segments;
  in.sweep = &sweep;
  in.window_s = attribution::interval_lengths_s(edges);
  in.window_energy_j = attribution::interval_energies_j(w.curve, edges);
  in.power_range = w.power_range;
  return in;
}

// The split uncertainty of a method that gives every piece of a counter window, idle stretches
// included, the window's mean power (plain interpolation, hold): nobody measured that power.
void charge_mean_power_split(ChannelWork& w, const SweepResult& sweep,
                             const std::vector<TimeNs>& edges) {
  charge_split(w, attribution::split_at_window_mean_power(split_inputs(w, sweep, edges)));
}

void run_curve_method(ChannelWork& w, IntegrationRule rule) {
  const EnergyCurve hold_curve = rule == IntegrationRule::kHold
                                     ? EnergyCurve::from_series(*w.series, IntegrationRule::kHold)
                                     : EnergyCurve{};
  const EnergyCurve& curve = rule == IntegrationRule::kHold ? hold_curve : w.curve;
  // One sweep, with the counter's updates as windows, gives the energies and the split's pieces.
  const std::vector<TimeNs> edges = window_edges(w.curve, w.begin_ns, w.end_ns);
  const SweepResult sweep = attribution::sweep_segments(w.segments, &curve, edges);
  charge_segments(w, sweep.energy_j, sweep.shared_time_s);
  w.busy_s = sweep.busy_s;
  charge_mean_power_split(w, sweep, edges);
}

// Interpolate; on an energy counter refined below its update period (refined_interpolation.hpp).
// Returns what the record's reason should add.
std::string run_interpolate(ChannelWork& w, std::size_t class_count,
                            const AttributionOptions& options,
                            const attribution::KnownWeights* known = nullptr) {
  std::string why_plain;
  if (!options.refine_interpolation) {
    why_plain = "refinement switched off";
  } else if (w.series->channel().kind != ChannelKind::kEnergyCounter) {
    why_plain = "power readings carry no interval energies to keep";
  } else {
    attribution::RefinementLimits limits;
    limits.max_relative_se = options.regress_max_relative_se;
    limits.max_condition = options.regress_max_condition;
    limits.min_windows = options.regress_min_windows;
    // Swept once with the counter's updates as windows: the refinement fits on the windows and,
    // when it declines, the sweep's energies are plain interpolation's.
    const std::vector<TimeNs> edges = window_edges(w.curve, w.begin_ns, w.end_ns);
    const SweepResult as_read = attribution::sweep_segments(w.segments, &w.curve, edges);
    attribution::Refinement r = attribution::refine_interpolation(
        w.segments, w.curve, edges, as_read, class_count, limits, w.power_range, known);
    RefinementDiagnostics& diag = w.record.diagnostics.refinement.emplace();
    diag.windows = r.windows;
    diag.classes = r.classes;
    diag.refined_classes = r.refined_classes;
    diag.calibrated_classes = r.known_classes;
    if (r.condition_number > 0.0) diag.condition_number = r.condition_number;
    if (r.applied) {
      diag.idle_power_w = r.idle_power_w;
      diag.read_delay_us = static_cast<double>(r.read_delay_ns) / 1e3;
      charge_segments(w, r.segment_energy_j, r.segment_shared_s);
      charge_split(w, r.segment_split_j, r.idle_split_j);
      w.busy_s = r.busy_s;
      w.refined = true;
      const std::string idle =
          r.idle_refined
              ? fmt::format(", idle stretches by the fitted idle power {:.1f} W", r.idle_power_w)
              : std::string(" and idle stretches");
      const std::string calibrated =
          r.known_classes > 0
              ? fmt::format(", {} by their calibrated power (more certain than the fit)",
                            r.known_classes)
              : std::string();
      return fmt::format(
          "; refined below the update period: {} of {} classes weighed by the power fitted on {} "
          "update intervals (bounds moved {:.1f} µs earlier: the read delay that fits best){}, "
          "the others{} by each interval's mean power",
          r.refined_classes, r.classes, r.windows, static_cast<double>(r.read_delay_ns) / 1e3,
          calibrated, idle);
    }
    charge_segments(w, as_read.energy_j, as_read.shared_time_s);
    charge_mean_power_split(w, as_read, edges);
    w.busy_s = as_read.busy_s;
    return "; not refined below the update period (" + r.why_not + ")";
  }
  w.record.diagnostics.refinement.emplace();  // nothing refined
  run_curve_method(w, IntegrationRule::kTrapezoid);
  return "; not refined below the update period (" + why_plain + ")";
}

void run_time_split(ChannelWork& w) {
  const std::vector<TimeNs> edges{w.begin_ns, w.end_ns};
  const SweepResult sweep = attribution::sweep_segments(w.segments, nullptr, edges);
  std::vector<double> energy(w.segments.size(), 0.0);
  if (sweep.busy_s > 0.0) {
    const double joules_per_busy_s = w.out.measured_energy_j / sweep.busy_s;
    for (std::size_t i = 0; i < energy.size(); ++i)
      energy[i] = sweep.shared_time_s[i] * joules_per_busy_s;
  }
  charge_segments(w, energy, sweep.shared_time_s);
  w.busy_s = sweep.busy_s;
  // The whole window's energy goes to busy time at one power: each span's power may lie anywhere
  // in the device's range (idle stretches get none, so weigh 0).
  charge_split(w, attribution::split_windows(split_inputs(w, sweep, edges), [](const Segment&) {
                 return attribution::PieceWeight{1.0, attribution::kAnywhereInRange};
               }));
}

// Window energies split ∝ shared busy time × class weight (idle stretches weigh `idle`).
void run_weighted_windows(ChannelWork& w, const SweepResult& sweep,
                          const std::vector<TimeNs>& edges,
                          const std::vector<attribution::PieceWeight>& class_weight,
                          attribution::PieceWeight no_class, attribution::PieceWeight idle) {
  attribution::WindowSplitInputs in = split_inputs(w, sweep, edges);
  in.idle = idle;
  const attribution::WindowSplit split = attribution::split_windows(
      in, [&](const Segment& s) { return s.klass == kNoClass ? no_class : class_weight[s.klass]; });
  charge_segments(w, split.segment_energy_j, sweep.shared_time_s);
  charge_split(w, split);
  w.busy_s = sweep.busy_s;
}

// The regression's linear system, as its normal equations: one row per whole counter window
// (the first and last may be cut by the attribution bounds, and their energy then carries
// interpolation); column 0 the window's length (its coefficient is the idle power), then one column
// per class with busy time. A 1 ms counter gives 3.6 million windows an hour: the design itself is
// never stored.
struct RegressionDesign {
  std::vector<std::uint32_t> class_of_column;  // the class of column k + 1
  attribution::NormalEquations equations;

  std::size_t rows() const { return equations.rows; }
  Eigen::Index columns() const { return static_cast<Eigen::Index>(class_of_column.size() + 1); }
};

RegressionDesign regression_design(const ChannelWork& w, const ClassTable& classes,
                                   const std::vector<TimeNs>& edges, const SweepResult& sweep) {
  RegressionDesign d;
  const std::size_t windows = edges.size() - 1;
  std::vector<std::uint32_t> column_of_class(classes.names.size(), attribution::kIdleColumn);
  for (const Segment& s : w.segments) {
    if (s.klass != kNoClass && column_of_class[s.klass] == attribution::kIdleColumn) {
      column_of_class[s.klass] = static_cast<std::uint32_t>(d.class_of_column.size()) + 1;
      d.class_of_column.push_back(s.klass);
    }
  }
  const std::vector<TimeNs>& knots = w.curve.knots_ns();
  const auto is_knot = [&](TimeNs t) { return std::binary_search(knots.begin(), knots.end(), t); };
  const std::size_t first_row = is_knot(edges.front()) ? 0 : 1;
  const std::size_t end_row =
      std::max(first_row, is_knot(edges.back()) || windows == 0 ? windows : windows - 1);
  d.equations = attribution::normal_equations(
      w.segments, sweep, attribution::interval_lengths_s(edges),
      attribution::interval_energies_j(w.curve, edges), first_row, end_row,
      static_cast<std::uint32_t>(d.columns()), [&](const Segment& s) {
        return s.klass == kNoClass ? attribution::kIdleColumn : column_of_class[s.klass];
      });
  return d;
}

// Records the fit, and keeps in w.out.class_power_w each class whose power is positive with a
// standard error within the limit; returns the classes left unidentified.
std::vector<std::string> identify_class_powers(ChannelWork& w, const attribution::NnlsFit& fit,
                                               const RegressionDesign& d, const ClassTable& classes,
                                               const AttributionOptions& options,
                                               RegressionFit& fitted) {
  fitted.rank = fit.rank;
  fitted.columns = static_cast<std::uint64_t>(d.columns());
  fitted.condition_number = std::isfinite(fit.condition_number) ? fit.condition_number : 1e300;
  fitted.residual_rms_j = fit.residual_rms;
  fitted.idle_power_w = fit.coefficients(0);
  if (std::isfinite(fit.standard_error(0))) {
    fitted.standard_error_w["[idle]"] = fit.standard_error(0);
  }
  std::vector<std::string> unidentified;
  for (std::size_t k = 0; k < d.class_of_column.size(); ++k) {
    const auto col = static_cast<Eigen::Index>(k + 1);
    const std::string& name = classes.names[d.class_of_column[k]];
    const double p = fit.coefficients(col);
    const double se = fit.standard_error(col);
    if (std::isfinite(se)) fitted.standard_error_w[name] = se;
    const bool identified =
        p > 0.0 && std::isfinite(se) && se <= options.regress_max_relative_se * p;
    if (identified) {
      w.out.class_power_w[name] = p + fit.coefficients(0);
    } else {
      unidentified.push_back(name);
    }
  }
  fitted.identified_classes = d.class_of_column.size() - unidentified.size();
  return unidentified;
}

// The least 95 % error of a class power regress fitted: the identification limit itself (a
// class counts as identified when its standard error is within ±10 %). The standard error holds
// only if the model does, and regress fits the counter's windows as read: a late read (which
// refinement estimates and undoes) biases it beyond its standard error (the known-answer
// evaluation covered 85 % of the classes on the 1 ms counter without the floor, 88 % with 5 %).
constexpr double kRegressWeightErrorFloor = 0.10;

// Each class's window weight: its identified power, known to 1.96 standard errors, or the mean
// identified power (returned in `fallback_w`), which says nothing of the class's own power, for
// the classes the fit left unidentified.
std::vector<attribution::PieceWeight> regression_class_weights(const ChannelWork& w,
                                                               const RegressionDesign& d,
                                                               const ClassTable& classes,
                                                               const RegressionFit& fitted,
                                                               double& fallback_w) {
  std::vector<attribution::PieceWeight> class_weight(classes.names.size(),
                                                     attribution::PieceWeight{0.0});
  double identified_sum_w = 0.0;
  std::size_t identified = 0;
  for (const std::uint32_t klass : d.class_of_column) {
    const std::string& name = classes.names[klass];
    const auto it = w.out.class_power_w.find(name);
    if (it == w.out.class_power_w.end()) continue;
    const double se_w = fitted.standard_error_w.at(name);  // identified: its error is finite
    class_weight[klass] = attribution::PieceWeight{
        it->second, std::max(kNormal95 * se_w / it->second, kRegressWeightErrorFloor)};
    identified_sum_w += it->second;
    ++identified;
  }
  fallback_w = identified_sum_w / static_cast<double>(identified);
  for (const std::uint32_t klass : d.class_of_column) {
    if (class_weight[klass].weight == 0.0)
      class_weight[klass] = attribution::PieceWeight{fallback_w, attribution::kAnywhereInRange};
  }
  return class_weight;
}

// Returns true when per-class powers were identified and used; otherwise the caller falls back.
bool run_regress(ChannelWork& w, const ClassTable& classes, const AttributionOptions& options,
                 std::string* why_not) {
  const std::vector<TimeNs> edges = window_edges(w.curve, w.begin_ns, w.end_ns);
  const SweepResult sweep = attribution::sweep_segments(w.segments, nullptr, edges);
  const RegressionDesign d = regression_design(w, classes, edges, sweep);

  RegressionDiagnostics& diag = w.record.diagnostics.regression.emplace();
  const std::size_t min_windows = options.regress_min_windows > 0
                                      ? options.regress_min_windows
                                      : 3 * static_cast<std::size_t>(d.columns());
  diag.windows = d.rows();
  diag.classes = d.class_of_column.size();
  diag.min_windows = min_windows;
  if (d.rows() < min_windows) {
    *why_not = fmt::format("{} whole counter windows for {} unknowns (need {})", d.rows(),
                           d.columns(), min_windows);
    return false;
  }
  const attribution::NnlsFit fit = attribution::fit_nnls_normal(d.equations.gram, d.equations.aty,
                                                                d.equations.yty, d.equations.rows);
  const std::vector<std::string> unidentified =
      identify_class_powers(w, fit, d, classes, options, diag.fit.emplace());
  const std::size_t classes_fitted = d.class_of_column.size();
  const std::size_t identified = classes_fitted - unidentified.size();
  const bool well_conditioned = fit.condition_number <= options.regress_max_condition &&
                                fit.rank == static_cast<int>(d.columns());
  const bool enough_identified =
      static_cast<double>(identified) >=
      options.regress_min_identified_share * static_cast<double>(classes_fitted);
  if (!well_conditioned || !enough_identified) {
    *why_not = fmt::format(
        "not identifiable: {}; {} of {} classes have a standard error within ±{:.0f} % (need "
        "{:.0f} %)",
        describe_conditioning(fit, d.columns(), options.regress_max_condition), identified,
        classes_fitted, 100.0 * options.regress_max_relative_se,
        100.0 * options.regress_min_identified_share);
    w.out.class_power_w.clear();  // per-class figures are withheld, not reported half-right
    return false;
  }
  diag.identifiable = true;
  double fallback_w = 0.0;
  const std::vector<attribution::PieceWeight> class_weight =
      regression_class_weights(w, d, classes, *diag.fit, fallback_w);
  if (!unidentified.empty()) {
    std::string list;
    for (std::size_t k = 0; k < unidentified.size() && k < 6; ++k)
      list += (k ? ", " : "") + unidentified[k];
    if (unidentified.size() > 6) list += ", …";
    w.record.notes.push_back(
        fmt::format("{} of {} classes not identified (standard error above ±{:.0f} %): figures "
                    "withheld, split at the mean identified power {:.1f} W: {}",
                    unidentified.size(), classes_fitted, 100.0 * options.regress_max_relative_se,
                    fallback_w, list));
  }
  const double idle_w = fit.coefficients(0);
  const attribution::PieceWeight idle{idle_w, idle_w > 0.0 && std::isfinite(fit.standard_error(0))
                                                  ? kNormal95 * fit.standard_error(0) / idle_w
                                                  : attribution::kAnywhereInRange};
  run_weighted_windows(w, sweep, edges, class_weight, idle, idle);
  return true;
}

// The calibration's weight of every class the channel's segments use (nullopt: no entry), and
// of idle stretches when the idle power is known.
attribution::KnownWeights calibrated_weights(const ChannelWork& w, const ClassTable& classes,
                                             const Calibration& calibration,
                                             std::optional<double> idle_w) {
  attribution::KnownWeights known;
  known.by_class.resize(classes.names.size());
  std::vector<bool> used(classes.names.size(), false);
  for (const Segment& s : w.segments) {
    if (s.klass != kNoClass) used[s.klass] = true;
  }
  for (std::size_t c = 0; c < classes.names.size(); ++c) {
    if (!used[c]) continue;
    if (const CalibrationClass* entry = calibration.match(classes.names[c]))
      known.by_class[c] = attribution::PieceWeight{entry->power_w, entry->relative_error()};
  }
  if (idle_w) known.idle = attribution::PieceWeight{*idle_w, kDefaultCalibrationError};
  return known;
}

Status run_calibrated(ChannelWork& w, const ClassTable& classes, const Calibration& calibration,
                      std::optional<double> idle_w) {
  const std::vector<TimeNs> edges = window_edges(w.curve, w.begin_ns, w.end_ns);
  const SweepResult sweep = attribution::sweep_segments(w.segments, nullptr, edges);
  std::vector<attribution::PieceWeight> class_weight(classes.names.size(),
                                                     attribution::PieceWeight{0.0});
  std::vector<bool> used(classes.names.size(), false);
  for (const Segment& s : w.segments) {
    if (s.klass != kNoClass) used[s.klass] = true;
  }
  const attribution::KnownWeights calibrated = calibrated_weights(w, classes, calibration, idle_w);
  std::vector<std::string> missing;
  double known_sum = 0.0;
  std::size_t known = 0;
  for (std::size_t c = 0; c < classes.names.size(); ++c) {
    if (!used[c]) continue;
    if (const std::optional<attribution::PieceWeight>& weight = calibrated.by_class[c]) {
      class_weight[c] = *weight;
      w.out.class_power_w[classes.names[c]] = weight->weight;
      known_sum += weight->weight;
      ++known;
    } else {
      missing.push_back(classes.names[c]);
    }
  }
  if (known == 0) {
    return invalid_input(calibration.origin, "classes", "",
                         fmt::format("no class of the {} spans on channel {} matches",
                                     w.segments.size(), w.out.channel_id));
  }
  // Classes without an entry weigh the mean calibrated power, which says nothing of their own.
  const double fallback_w = known_sum / static_cast<double>(known);
  for (std::size_t c = 0; c < classes.names.size(); ++c) {
    if (used[c] && calibration.match(classes.names[c]) == nullptr)
      class_weight[c] = attribution::PieceWeight{fallback_w, attribution::kAnywhereInRange};
  }
  if (!missing.empty()) {
    w.record.notes.push_back(
        fmt::format("{} classes have no calibration entry and weigh the mean calibrated power "
                    "{:.1f} W (e.g. {})",
                    missing.size(), fallback_w, missing.front()));
  }
  const double idle = idle_w.value_or(0.0);
  w.record.diagnostics.calibration = CalibrationDiagnostics{known, missing.size(), idle};
  const attribution::PieceWeight idle_weight{idle, kDefaultCalibrationError};
  run_weighted_windows(w, sweep, edges, class_weight, idle_weight, idle_weight);
  return Status::Ok();
}

Provenance provenance_of(AttributionMethod m) {
  return m == AttributionMethod::kInterpolate || m == AttributionMethod::kHold
             ? Provenance::kInterpolated
             : Provenance::kEstimated;
}

// The gaps of a channel inside [begin, end], for a warning: whatever the sampler or an importer
// left out there (a failed read, a counter reset, an impossible value) is missing from the figures.
std::optional<std::string> describe_gaps(const Series& s, TimeNs begin_ns, TimeNs end_ns) {
  std::size_t count = 0;
  TimeNs covered_ns = 0;
  const Gap* first = nullptr;
  for (const Gap& g : s.gaps()) {
    if (!gap_overlaps(g, begin_ns, end_ns)) continue;
    ++count;
    covered_ns += std::min(g.end_ns, end_ns) - std::max(g.begin_ns, begin_ns);
    if (first == nullptr) first = &g;
  }
  if (count == 0) return std::nullopt;
  return fmt::format(
      "channel {}: {} gap{} in its readings inside the window ({:.3f} s; first at {} ns: {}); "
      "energy lost in a gap is not attributed",
      s.channel().id, count, count == 1 ? "" : "s", ns_to_s(covered_ns), first->begin_ns,
      first->reason);
}

// What every channel's attribution shares: the span classes, the tracks' declared weights and
// the threads' CPU-time steps.
struct SharedInputs {
  ClassTable classes;
  std::vector<double> track_weight;
  std::size_t weighed_threads = 0;
  std::vector<std::vector<attribution::WeightStep>> thread_steps;
};

// Refuses a timeline or options attribution cannot work on; sets the result's window.
Status check_inputs(const std::vector<const Series*>& series, const Timeline& timeline,
                    const AttributionOptions& options, AttributionResult& result) {
  if (const std::optional<std::uint32_t> cycle = timeline.find_parent_cycle()) {
    return invalid_input("timeline", fmt::format("span {}", *cycle),
                         timeline.name(timeline.spans()[*cycle].name),
                         "is its own ancestor (the parent indices form a cycle)");
  }
  JP_RETURN_IF_ERROR(attribution::check_tree_depth(timeline));
  const auto [extent_begin, extent_end] = timeline.extent();
  result.window_begin_ns = options.window_begin_ns.value_or(extent_begin);
  result.window_end_ns = options.window_end_ns.value_or(extent_end);
  if (result.window_end_ns <= result.window_begin_ns) {
    return invalid_input("attribution", "window",
                         fmt::format("[{}, {}]", result.window_begin_ns, result.window_end_ns),
                         "empty: no spans and no explicit window");
  }
  const bool any_energy = std::any_of(
      series.begin(), series.end(), [](const Series* s) { return s->channel().carries_energy(); });
  if (!any_energy) {
    return invalid_input("attribution", "series", fmt::format("{} channels", series.size()),
                         "none carries energy (an energy counter or power)");
  }
  for (const auto& [track, weight] : options.activity_weight_by_track) {
    if (!(weight > 0.0) || !std::isfinite(weight)) {
      return invalid_input("attribution", "activity weight of track " + track,
                           fmt::format("{}", weight), "must be a positive number");
    }
  }
  return Status::Ok();
}

SharedInputs shared_inputs(const std::vector<const Series*>& series, const Timeline& timeline,
                           const AttributionOptions& options) {
  SharedInputs in;
  in.classes = make_class_table(timeline, options);
  for (const Track& t : timeline.tracks()) {
    auto it = options.activity_weight_by_track.find(t.name);
    in.track_weight.push_back(it == options.activity_weight_by_track.end() ? 1.0 : it->second);
  }
  if (options.weigh_threads_by_cpu_time)
    in.thread_steps = attribution::thread_weight_steps(timeline, series, &in.weighed_threads);
  return in;
}

// One channel's curve clipped to the window and the self segments of its consuming tracks, with
// notes on what it covers. False when it has nothing inside the window (the record says so).
bool prepare_channel(ChannelWork& w, const Series& s, const Timeline& timeline,
                     const SharedInputs& in, AttributionResult& result) {
  const Channel& ch = s.channel();
  w.series = &s;
  w.out.channel_id = ch.id;
  w.out.top_level = ch.is_top_level();
  w.out.span_energy_j.assign(timeline.spans().size(), 0.0);
  w.out.span_shared_time_s.assign(timeline.spans().size(), 0.0);
  w.out.span_split_j.assign(timeline.spans().size(), 0.0);
  w.record.channel_id = ch.id;
  w.curve = EnergyCurve::from_series(s, IntegrationRule::kTrapezoid);
  w.begin_ns = std::max(result.window_begin_ns, w.curve.begin_ns());
  w.end_ns = std::min(result.window_end_ns, w.curve.end_ns());
  if (w.curve.empty() || w.end_ns <= w.begin_ns) {
    w.record.method = std::nullopt;
    w.record.reason =
        fmt::format("channel {} has no readings (or counter updates) inside the window", ch.id);
    result.warnings.push_back(w.record.reason);
    w.begin_ns = w.end_ns = result.window_begin_ns;
    return false;
  }
  if (w.begin_ns > result.window_begin_ns || w.end_ns < result.window_end_ns) {
    w.record.notes.push_back(
        fmt::format("the channel covers only [{}, {}] of the window [{}, {}]; spans outside get "
                    "none of its energy",
                    w.begin_ns, w.end_ns, result.window_begin_ns, result.window_end_ns));
  }
  w.out.measured_energy_j = w.curve.at(w.end_ns) - w.curve.at(w.begin_ns);
  w.out.counter_uncertainty = channel_uncertainty(s, w.begin_ns, w.end_ns, w.out.measured_energy_j);
  if (std::optional<std::string> gaps = describe_gaps(s, w.begin_ns, w.end_ns)) {
    result.warnings.push_back(std::move(*gaps));
  }
  attribution::SegmentInputs inputs;
  for (const Track& t : timeline.tracks())
    inputs.track_consumes.push_back(device_selects(ch.device, t.device));
  inputs.track_weight = in.track_weight;
  inputs.class_of_name = in.classes.class_of_name;
  inputs.clip_begin_ns = w.begin_ns;
  inputs.clip_end_ns = w.end_ns;
  w.segments = attribution::build_segments(timeline, inputs);
  if (ch.device.empty()) {
    w.record.notes.push_back(fmt::format(
        "channel {} names no device, so every track of the timeline consumes it", ch.id));
  }
  if (w.segments.empty()) {
    w.record.notes.push_back(
        fmt::format("no span on a track of device '{}' lies in the window", ch.device));
  }
  return true;
}

// Runs the chosen method on the channel; a regress that declines falls back to interpolation
// (and auto then says so in the reason, an explicit request in a note).
Status run_method(ChannelWork& w, AttributionMethod requested, attribution::MethodChoice& choice,
                  const SharedInputs& in, const AttributionOptions& options,
                  const Calibration* calibration, std::optional<double> idle_w) {
  switch (choice.method) {
    case AttributionMethod::kInterpolate:
      if (requested == AttributionMethod::kAuto && calibration != nullptr) {
        const attribution::KnownWeights known =
            calibrated_weights(w, in.classes, *calibration, idle_w);
        choice.reason += run_interpolate(w, in.classes.names.size(), options, &known);
      } else {
        choice.reason += run_interpolate(w, in.classes.names.size(), options);
      }
      break;
    case AttributionMethod::kHold:
      run_curve_method(w, IntegrationRule::kHold);
      break;
    case AttributionMethod::kTimeSplit:
      run_time_split(w);
      break;
    case AttributionMethod::kCalibrated:
      if (calibration == nullptr) {
        return invalid_input(
            "attribution", "method of channel " + w.out.channel_id, "calibrated",
            "needs calibration weights (AttributionOptions::calibration_by_channel)");
      }
      JP_RETURN_IF_ERROR(run_calibrated(w, in.classes, *calibration, idle_w));
      break;
    case AttributionMethod::kRegress: {
      std::string why_not;
      if (!run_regress(w, in.classes, options, &why_not)) {
        w.out.class_power_w.clear();
        const std::string interpolation = run_interpolate(w, in.classes.names.size(), options);
        if (requested == AttributionMethod::kAuto) {
          choice.method = AttributionMethod::kInterpolate;
          choice.reason += "; regress declined (" + why_not +
                           "), so interpolated within counter windows" + interpolation;
        } else {
          w.record.notes.push_back("regress declined per-class figures (" + why_not +
                                   "); the tree is interpolated within counter windows instead" +
                                   interpolation);
        }
        w.out.method = AttributionMethod::kInterpolate;  // what ran, whatever was asked
        return Status::Ok();
      }
      break;
    }
    case AttributionMethod::kAuto:
      break;
  }
  w.out.method = choice.method;
  return Status::Ok();
}

// The expected error of what a method charged: its split's half-widths, summed.
double expected_split_j(const ChannelWork& w) {
  double sum = w.out.unattributed_split_j;
  for (const double split : w.out.span_split_j) sum += split;
  return sum;
}

// Auto with rivals: runs `choice.method` and each rival on copies of the channel's work and keeps
// the one with the smallest expected error; a method that cannot run drops out (its reason is
// kept as a note). The reason lists the figures compared.
Status run_candidates(ChannelWork& w, AttributionMethod requested,
                      attribution::MethodChoice& choice, const SharedInputs& in,
                      const AttributionOptions& options, const Calibration* calibration,
                      std::optional<double> idle_w) {
  std::vector<AttributionMethod> methods{choice.method};
  methods.insert(methods.end(), choice.rivals.begin(), choice.rivals.end());
  std::vector<ChannelWork> runs;
  std::vector<attribution::MethodChoice> choices;
  std::vector<attribution::CandidateError> errors;
  std::vector<std::string> dropped;
  Status first_failure = Status::Ok();
  for (const AttributionMethod method : methods) {
    ChannelWork run = w;
    attribution::MethodChoice candidate{method, std::string(), {}};
    if (const Status ran = run_method(run, requested, candidate, in, options, calibration, idle_w);
        !ran) {
      dropped.push_back(
          fmt::format("{} could not run ({})", to_string(method), ran.error().message()));
      if (first_failure.ok()) first_failure = ran;
      continue;
    }
    // What ran: a regress that declined is an interpolation, compared as one.
    errors.push_back({run.out.method, expected_split_j(run)});
    choices.push_back(std::move(candidate));
    runs.push_back(std::move(run));
  }
  if (runs.empty()) return first_failure;
  const std::size_t best =
      attribution::pick_smallest_error(errors, w.out.measured_energy_j, choice.reason);
  choice.method = errors[best].method;
  choice.reason += choices[best].reason;
  w = std::move(runs[best]);
  for (std::string& note : dropped) w.record.notes.push_back(std::move(note));
  return Status::Ok();
}

// Attributes one prepared channel: picks its method and runs it, and records what it did.
Status attribute_channel(ChannelWork& w, const Timeline& timeline, const SharedInputs& in,
                         const AttributionOptions& options) {
  const Channel& ch = w.series->channel();
  const TimeNs period_ns = w.curve.median_knot_spacing_ns();
  // The typical span is the timeline's own: taken before thread weights cut segments at the
  // CPU-time readings.
  const TimeNs typical_ns = typical_segment_ns(w.segments);
  if (in.weighed_threads > 0) {
    w.segments = attribution::split_by_weight_steps(w.segments, timeline, in.thread_steps);
  }
  AttributionDiagnostics& diag = w.record.diagnostics;
  if (in.weighed_threads > 0) diag.threads_weighed_by_cpu_time = in.weighed_threads;
  diag.update_period_ms = static_cast<double>(period_ns) / 1e6;
  diag.typical_span_ms = static_cast<double>(typical_ns) / 1e6;
  diag.segments = w.segments.size();
  diag.measured_energy_j = w.out.measured_energy_j;

  auto requested = options.default_method;
  if (auto it = options.method_by_channel.find(ch.id); it != options.method_by_channel.end())
    requested = it->second;
  const auto calibration = options.calibration_by_channel.find(ch.id);
  const bool has_calibration = calibration != options.calibration_by_channel.end();
  std::optional<double> idle_w;
  if (auto it = options.idle_power_w.find(ch.id); it != options.idle_power_w.end())
    idle_w = it->second;
  if (!idle_w && has_calibration) idle_w = calibration->second.idle_power_w;

  w.power_range = work_power_range(w, idle_w);

  attribution::MethodChoice choice = attribution::choose_method(
      requested,
      attribution::CounterFineness{period_ns, typical_ns, options.fine_counter_ratio,
                                   w.segments.empty()},
      has_calibration);
  const Calibration* weights = has_calibration ? &calibration->second : nullptr;
  if (choice.rivals.empty()) {
    JP_RETURN_IF_ERROR(run_method(w, requested, choice, in, options, weights, idle_w));
  } else {
    JP_RETURN_IF_ERROR(run_candidates(w, requested, choice, in, options, weights, idle_w));
  }
  w.record.method = choice.method;
  w.record.reason = std::move(choice.reason);
  diag.class_power_w = w.out.class_power_w;
  double attributed = 0.0;
  for (double e : w.out.span_energy_j) attributed += e;
  w.out.attributed_energy_j = attributed;
  diag.attributed_energy_j = attributed;
  diag.busy_s = w.busy_s;
  if (attributed > w.out.measured_energy_j * (1.0 + 1e-9) + 1e-12) {
    w.record.notes.push_back(
        fmt::format("{} charged {:.6g} J to spans, more than the {:.6g} J measured (a held "
                    "reading outlived its "
                    "interval); [unattributed] is negative",
                    to_string(choice.method), attributed, w.out.measured_energy_j));
  }
  return Status::Ok();
}

// A window of a few updates of a slow counter is mostly its edges (Yang et al., SC'24: at least
// 5 s, or 32 iterations, on a counter that updates every 100 ms or slower).
constexpr TimeNs kSlowCounterPeriodNs = 100 * kNsPerMs;
constexpr TimeNs kShortestWindowNs = 5 * kNsPerS;

std::optional<std::string> describe_short_window(const ChannelWork& w) {
  const TimeNs period_ns = w.curve.median_knot_spacing_ns();
  const TimeNs window_ns = w.end_ns - w.begin_ns;
  if (period_ns < kSlowCounterPeriodNs || window_ns >= kShortestWindowNs) return std::nullopt;
  return fmt::format(
      "channel {}: a {} window on a counter that updates every {}: under 5 s its edges, read "
      "delay and split dominate the figures (see their ±); measure for at least 5 s or 32 "
      "iterations (measure --repeat, profile --steps)",
      w.out.channel_id, format_duration(window_ns), format_duration(period_ns));
}

// The tree of every span, plus [unattributed]: what each channel measured in the window and no
// span received, so that the tree sums to the measured total.
ProfileNode roll_up_tree(const std::vector<ChannelWork>& work, const Timeline& timeline,
                         const AttributionOptions& options, const AttributionResult& result) {
  attribution::TreeInputs tree_inputs;
  tree_inputs.timeline = &timeline;
  tree_inputs.split_passes = options.split_passes;
  tree_inputs.provenance = Provenance::kInterpolated;
  Provenance unattributed_provenance = Provenance::kMeasured;
  for (const ChannelWork& w : work) {
    ChannelFigures f;
    f.channel = &w.out;
    f.top_level = w.series->channel().is_top_level();
    if (auto it = options.idle_power_w.find(w.out.channel_id); it != options.idle_power_w.end()) {
      f.idle_power_w = it->second;
    }
    // A node's figure is as good as its source: energy split from an estimated or simulated
    // channel stays labelled so, whatever the split method.
    const Provenance source = w.series->channel().provenance;
    if (f.top_level) {
      if (source == Provenance::kEstimated ||
          provenance_of(w.out.method) == Provenance::kEstimated || w.refined) {
        tree_inputs.provenance = Provenance::kEstimated;
      } else if (source == Provenance::kSimulated &&
                 tree_inputs.provenance != Provenance::kEstimated) {
        tree_inputs.provenance = Provenance::kSimulated;
      }
      if (source != Provenance::kMeasured && unattributed_provenance != Provenance::kEstimated) {
        unattributed_provenance = source;
      }
    }
    tree_inputs.channels.push_back(f);
  }
  std::vector<std::uint32_t> all_spans(timeline.spans().size());
  for (std::uint32_t i = 0; i < all_spans.size(); ++i) all_spans[i] = i;
  ProfileNode root = attribution::build_span_tree(tree_inputs, all_spans, kNoIndex, "run");

  ProfileNode unattributed;
  unattributed.name = std::string(kUnattributedNode);
  unattributed.provenance = unattributed_provenance;
  bool any_static = false;
  double unattributed_static = 0.0;
  TimeNs max_busy_ns = 0;
  for (const ChannelWork& w : work) {
    const double rest = w.out.measured_energy_j - w.out.attributed_energy_j;
    unattributed.energy_by_channel_j[w.out.channel_id] = rest;
    max_busy_ns = std::max(max_busy_ns, s_to_ns(w.busy_s));
    if (!w.series->channel().is_top_level()) continue;
    unattributed.self_energy_j += rest;
    if (auto it = options.idle_power_w.find(w.out.channel_id); it != options.idle_power_w.end()) {
      any_static = true;
      unattributed_static += it->second * (ns_to_s(w.end_ns - w.begin_ns) - w.busy_s);
    }
  }
  unattributed.energy_j = unattributed.self_energy_j;
  std::vector<attribution::ChannelPart> unattributed_parts;
  std::vector<UncertaintyPart> run_terms;
  for (std::size_t k = 0; k < work.size(); ++k) {
    if (!tree_inputs.channels[k].top_level) continue;
    const ChannelAttribution& out = work[k].out;
    unattributed_parts.push_back({&tree_inputs.channels[k],
                                  out.measured_energy_j - out.attributed_energy_j,
                                  out.unattributed_split_j});
    run_terms.insert(run_terms.end(), out.counter_uncertainty.begin(),
                     out.counter_uncertainty.end());
  }
  unattributed.band = attribution::node_band(unattributed.energy_j, unattributed_parts);
  unattributed.time_ns =
      std::max<TimeNs>(0, (result.window_end_ns - result.window_begin_ns) - max_busy_ns);
  unattributed.self_time_ns = unattributed.time_ns;
  if (any_static) unattributed.static_energy_j = unattributed_static;
  root.children.push_back(std::move(unattributed));
  if (any_static) root.static_energy_j = 0.0;
  root.time_ns = result.window_end_ns - result.window_begin_ns;
  root.calls = 1;
  attribution::roll_up(root);
  // The run is what the channels measured: their own terms, and no split.
  root.band = combine_uncertainty(root.energy_j, run_terms);
  return root;
}

}  // namespace

namespace {

// An idle power above what a channel drew on average over the window would make the tree's dynamic
// energy negative (--idle-w 100 on a 50 W run gave dynamic -22 J): such a channel's idle power is
// its mean power, with a warning, so the whole window is static and no figure goes below zero.
AttributionOptions cap_idle_power(const std::vector<const Series*>& series,
                                  const AttributionOptions& options, AttributionResult& result) {
  AttributionOptions capped = options;
  for (const Series* s : series) {
    const auto it = capped.idle_power_w.find(s->channel().id);
    if (it == capped.idle_power_w.end() || !s->channel().carries_energy()) continue;
    const TimeNs begin = std::max(result.window_begin_ns, s->begin_ns());
    const TimeNs end = std::min(result.window_end_ns, s->end_ns());
    if (end <= begin) continue;
    const double mean_w = s->energy_between_j(begin, end) / ns_to_s(end - begin);
    if (!std::isfinite(mean_w) || it->second <= mean_w) continue;
    result.warnings.push_back(fmt::format(
        "channel {}: the idle power given ({:.4g} W) is above the channel's mean power over the "
        "window ({:.4g} W): its idle power is taken as the mean, so its dynamic energy is 0; "
        "measure the baseline again (run --idle) or check --idle-w",
        it->first, it->second, std::max(0.0, mean_w)));
    it->second = std::max(0.0, mean_w);
  }
  return capped;
}

}  // namespace

Result<AttributionResult> attribute(const std::vector<Series>& series, const Timeline& timeline,
                                    const AttributionOptions& options) {
  std::vector<const Series*> pointers;
  pointers.reserve(series.size());
  for (const Series& s : series) pointers.push_back(&s);
  return attribute(pointers, timeline, options);
}

Result<AttributionResult> attribute(const std::vector<const Series*>& series,
                                    const Timeline& timeline, const AttributionOptions& given) {
  AttributionResult result;
  result.split_passes = given.split_passes;
  JP_RETURN_IF_ERROR(check_inputs(series, timeline, given, result));
  const AttributionOptions options = cap_idle_power(series, given, result);
  const SharedInputs in = shared_inputs(series, timeline, options);
  std::vector<ChannelWork> work;
  for (const Series* s : series) {
    if (!s->channel().carries_energy()) continue;
    ChannelWork w;
    if (prepare_channel(w, *s, timeline, in, result)) {
      JP_RETURN_IF_ERROR(attribute_channel(w, timeline, in, options));
      if (std::optional<std::string> short_window = describe_short_window(w))
        result.warnings.push_back(std::move(*short_window));
    }
    // Charged to the spans now; on a long trace each channel's segments take tens of megabytes.
    std::vector<Segment>().swap(w.segments);
    work.push_back(std::move(w));
  }
  result.tree = roll_up_tree(work, timeline, options, result);
  for (ChannelWork& w : work) {
    ChannelSummary summary =
        summarize_channel(*w.series, result.window_begin_ns, result.window_end_ns, std::nullopt);
    if (auto it = options.idle_power_w.find(w.out.channel_id); it != options.idle_power_w.end())
      apply_idle_power(summary, it->second);
    result.channels.push_back(std::move(summary));
    result.records.push_back(std::move(w.record));
    result.per_channel.push_back(std::move(w.out));
  }
  return result;
}

Status attribute_profile(Profile& profile, const AttributionOptions& options) {
  // A measured idle baseline holds whatever the window: the tree's static/dynamic split uses it
  // unless the caller gave another.
  AttributionOptions with_idle = options;
  // A measured run's window by default, so that the tree sums to what the channels measured.
  if (!options.window_begin_ns && !options.window_end_ns &&
      profile.meta.end_ns > profile.meta.begin_ns) {
    with_idle.window_begin_ns = profile.meta.begin_ns;
    with_idle.window_end_ns = profile.meta.end_ns;
  }
  for (const ChannelSummary& c : profile.channels) {
    if (c.idle_power_w) with_idle.idle_power_w.emplace(c.channel_id, *c.idle_power_w);
  }
  JP_TRY(AttributionResult result, attribute(profile.series, profile.timeline, with_idle));
  profile.tree = std::move(result.tree);
  attribution::summarize_steps(profile, result);
  profile.attribution = std::move(result.records);
  // Attribution adds to what was measured: a channel the monitor summarised keeps its figures
  // (energy, peak, idle baseline, net, process share); only channels nobody summarised yet (a
  // profile made from files) get the attribution window's summary.
  bool added = false;
  for (ChannelSummary& fresh : result.channels) {
    const bool summarised =
        std::any_of(profile.channels.begin(), profile.channels.end(),
                    [&](const ChannelSummary& c) { return c.channel_id == fresh.channel_id; });
    if (summarised) continue;
    profile.channels.push_back(std::move(fresh));
    added = true;
  }
  if (added) {
    // The process shares of the new summaries, over the attribution window (the run's warnings
    // already said what the user should know).
    ProcessShareOptions shares;
    shares.static_share = profile.meta.options.process.static_share.value_or(StaticShare::kCpuTime);
    shares.window_begin_ns = result.window_begin_ns;
    shares.window_end_ns = result.window_end_ns;
    shares.add_warnings = false;
    JP_RETURN_IF_ERROR(attribute_process_shares(profile, shares));
  }
  for (std::string& w : result.warnings) profile.warnings.push_back(std::move(w));
  if (profile.meta.end_ns <= profile.meta.begin_ns) {
    // A profile made from files (a trace and its samples) has no run window of its own: its
    // window is the one attributed, so that reports show that duration.
    profile.meta.begin_ns = result.window_begin_ns;
    profile.meta.end_ns = result.window_end_ns;
  }
  profile.meta.options.attribution.window_begin_ns = result.window_begin_ns;
  profile.meta.options.attribution.window_end_ns = result.window_end_ns;
  profile.meta.options.attribution.default_method = options.default_method;
  return Status::Ok();
}

}  // namespace jouleprof
