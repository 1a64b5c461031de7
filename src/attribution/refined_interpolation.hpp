// Interpolation that resolves below a counter's update period. Plain interpolation gives every
// span in an update interval the interval's mean power, so when many short spans share an
// interval their differences are lost. Here each update interval keeps its measured energy E_j
// exactly, but splits it among the spans active in it by shared busy time × a per-class power
// weight, and the weights come from the counter's own update intervals: the non-negative fit
//   E_j ≈ P_idle·T_j + Σ_c P_c·B_{c,j}
// over all whole intervals (the regress model). A class whose fitted power is positive with a
// standard error within the limit weighs P_idle + P_c; any other class, and idle stretches when
// P_idle is not identified, weigh the interval's mean power E_j / T_j, which is exactly plain
// interpolation's share. The interval bounds are the counter's read times moved earlier by the
// read delay that fits best (see the .cpp). The weights use nothing but the counter readings and
// the spans.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "attribution/energy_curve.hpp"
#include "attribution/interval_sweep.hpp"
#include "attribution/window_split.hpp"
#include "sampling/counter_uncertainty.hpp"

namespace jouleprof::attribution {

struct RefinementLimits {
  double max_relative_se =
      0.10;  // a class is identified when its SE is within this share of its power
  double max_condition = 1e4;   // of the column-scaled design; above it nothing is refined
  std::size_t min_windows = 0;  // whole update intervals needed; 0 = 3 × (classes + 1)
};

// Powers known before the fit (a calibration's): by class id, nullopt where none is known; and
// that of idle stretches. A class weighs whichever of its fitted and its known power has the
// smaller 95 % error, so a class the fit cannot separate still gets a measured power.
struct KnownWeights {
  std::vector<std::optional<PieceWeight>> by_class;
  std::optional<PieceWeight> idle;
};

struct Refinement {
  bool applied = false;                  // at least one class weighed by its fitted power
  std::string why_not;                   // when not applied
  std::vector<double> segment_energy_j;  // per segment, when applied
  std::vector<double> segment_shared_s;  // per segment: w·ΔS
  std::vector<double> segment_split_j;   // per segment: 95 % half-width (window_split.hpp)
  double idle_split_j = 0.0;             // that of the idle stretches' energy
  double busy_s = 0.0;
  std::size_t windows = 0;          // whole update intervals in the fit
  std::size_t classes = 0;          // classes with busy time
  std::size_t refined_classes = 0;  // classes weighed by their fitted power
  std::size_t known_classes = 0;    // classes weighed by their known power (KnownWeights)
  bool idle_refined = false;        // idle stretches weighed by the fitted idle power
  double idle_power_w = 0.0;
  double condition_number = 0.0;
  TimeNs read_delay_ns = 0;  // estimated lateness of the counter's timestamps
};

// `curve` is the counter's interpolation curve (knots at its updates); `edges` are the
// attribution bounds and every knot strictly between them, and the segments are clipped to the
// bounds; `as_read` is sweep_segments(segments, &curve, edges), whose energies are plain
// interpolation's, so a caller falls back on them without sweeping again. Class ids index a
// table of `class_count` classes (kNoClass: idle time). `power_range` is what the channel's work
// may draw, for the split's uncertainty. `known` (may be null) are powers known beforehand; the
// refinement still needs the fit to separate at least one class.
Refinement refine_interpolation(const std::vector<Segment>& segments, const EnergyCurve& curve,
                                const std::vector<TimeNs>& edges, const SweepResult& as_read,
                                std::size_t class_count, const RefinementLimits& limits,
                                PowerRange power_range, const KnownWeights* known = nullptr);

}  // namespace jouleprof::attribution
