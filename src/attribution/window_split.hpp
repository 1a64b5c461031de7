// The windowed split behind refined interpolation, regress and calibrated attribution, and the
// uncertainty of its result (docs/uncertainty.md, "split"). Each window keeps its measured energy
// E_j; the pieces of the segments in it, and its idle stretches, share it in proportion to shared
// time × weight. A piece whose share of the window is s is off when its weight is: with relative
// errors ε_i of its weight and ε_k of the others', its energy e = s·E_j is off by
// e·(1 − s)·ε_i − s·Σ_k e_k·ε_k (to first order). At 95 %, with ρ the weights' 95 % relative
// errors: the own part (1 − s)·e·ρ_i, and the others' part s·√(Σ_k (e_k·ρ_k)²), as the others'
// weights err independently. A weight nobody measured (plain interpolation's mean power, an
// unidentified class) may be anywhere in the channel's power range: its e·ρ is then the piece's
// time times the farther end of the range from the power the split gave it. A weight's error has
// one sign in every window (it is the same weight), so a segment's half-widths over its windows
// add.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "attribution/interval_sweep.hpp"
#include "sampling/counter_uncertainty.hpp"

namespace jouleprof::attribution {

// NaN weight: the window's mean power (E_j / T_j); NaN relative error: anywhere in the range.
inline constexpr double kWindowMeanPower = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kAnywhereInRange = std::numeric_limits<double>::quiet_NaN();

struct PieceWeight {
  double weight = 1.0;
  double relative_error = kAnywhereInRange;  // 95 % fraction of the weight
};

struct WindowSplitInputs {
  const std::vector<Segment>* segments = nullptr;
  const SweepResult* sweep = nullptr;  // swept with the windows' edges
  std::vector<double> window_s;        // each window's length
  std::vector<double> window_energy_j;
  PieceWeight idle{0.0, 0.0};  // of the stretches in a window where no segment is active
  PowerRange power_range;      // the powers the channel's work may draw
};

struct WindowSplit {
  std::vector<double> segment_energy_j;
  std::vector<double> segment_split_j;  // 95 % half-width of each segment's energy
  double idle_energy_j = 0.0;
  double idle_split_j = 0.0;
};

template <typename WeightOf>  // WeightOf(const Segment&) -> PieceWeight
WindowSplit split_windows(const WindowSplitInputs& in, const WeightOf& weight_of) {
  const std::vector<Segment>& segments = *in.segments;
  const SweepResult& sweep = *in.sweep;
  const std::size_t windows = in.window_s.size();
  WindowSplit out;
  out.segment_energy_j.assign(segments.size(), 0.0);
  out.segment_split_j.assign(segments.size(), 0.0);
  if (windows == 0) return out;
  std::vector<double> mean_w(windows, 0.0);
  std::vector<double> idle_s(windows, 0.0);
  std::vector<double> load(windows, 0.0);
  for (std::size_t j = 0; j < windows; ++j) {
    mean_w[j] = in.window_s[j] > 0.0 ? in.window_energy_j[j] / in.window_s[j] : 0.0;
    idle_s[j] = sweep.edge_idle_s[j + 1] - sweep.edge_idle_s[j];
  }
  const auto effective = [&](double weight, std::size_t j) {
    return std::isnan(weight) ? mean_w[j] : weight;
  };
  const auto for_each_piece_of = [&](std::size_t i, const auto& visit) {
    const std::size_t last = std::min<std::size_t>(sweep.end_window[i], windows - 1);
    for (std::size_t j = sweep.begin_window[i]; j <= last; ++j) {
      visit(j, shared_time_in_window(sweep, segments[i], i, static_cast<std::uint32_t>(j)));
    }
  };
  for (std::size_t j = 0; j < windows; ++j) load[j] = effective(in.idle.weight, j) * idle_s[j];
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const double weight = weight_of(segments[i]).weight;
    for_each_piece_of(
        i, [&](std::size_t j, double shared_s) { load[j] += effective(weight, j) * shared_s; });
  }
  std::vector<double> joules_per_load(windows, 0.0);
  for (std::size_t j = 0; j < windows; ++j) {
    if (load[j] > 0.0) joules_per_load[j] = in.window_energy_j[j] / load[j];
  }
  // A piece's energy and its own error e·ρ (joules).
  const auto piece = [&](const PieceWeight& pw, std::size_t j, double shared_s) {
    const double e = joules_per_load[j] * effective(pw.weight, j) * shared_s;
    if (!std::isnan(pw.relative_error)) return std::pair{e, std::abs(e) * pw.relative_error};
    const double given_w = shared_s > 0.0 ? e / shared_s : 0.0;
    const double farther_w =
        std::max(in.power_range.high_w - given_w, given_w - in.power_range.low_w);
    return std::pair{e, std::max(0.0, farther_w) * shared_s};
  };
  std::vector<double> own_squared(windows, 0.0);  // Σ (e·ρ)² over the window's pieces
  for (std::size_t j = 0; j < windows; ++j) {
    const double own = piece(in.idle, j, idle_s[j]).second;
    own_squared[j] = own * own;
  }
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const PieceWeight pw = weight_of(segments[i]);
    for_each_piece_of(i, [&](std::size_t j, double shared_s) {
      const double own = piece(pw, j, shared_s).second;
      own_squared[j] += own * own;
    });
  }
  const auto split_of = [&](std::size_t j, double energy_j, double own_error_j) {
    if (in.window_energy_j[j] == 0.0) return 0.0;
    const double s = std::abs(energy_j / in.window_energy_j[j]);
    const double others = std::sqrt(std::max(0.0, own_squared[j] - own_error_j * own_error_j));
    return (1.0 - s) * own_error_j + s * others;
  };
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const PieceWeight pw = weight_of(segments[i]);
    double energy = 0.0;
    double split = 0.0;
    for_each_piece_of(i, [&](std::size_t j, double shared_s) {
      if (joules_per_load[j] == 0.0) return;
      const auto [e, own] = piece(pw, j, shared_s);
      energy += e;
      split += split_of(j, e, own);
    });
    out.segment_energy_j[i] = energy;
    out.segment_split_j[i] = split;
  }
  for (std::size_t j = 0; j < windows; ++j) {
    if (joules_per_load[j] == 0.0) continue;
    const auto [e, own] = piece(in.idle, j, idle_s[j]);
    out.idle_energy_j += e;
    out.idle_split_j += split_of(j, e, own);
  }
  return out;
}

// split_windows for the case where every piece, idle stretches included, weighs its window's
// mean power with an unknown error (plain interpolation, hold): each window then gives all its
// pieces one power g_j, and a piece's own error is F_j × its shared time with F_j the farther end
// of the range from g_j, so the window's Σ (e·ρ)² needs only Σ shared² and two passes suffice
// where the general form takes three. The same figures as
//   split_windows(in, [](const Segment&) { return PieceWeight{kWindowMeanPower, kAnywhereInRange};
//   })
// with in.idle = {kWindowMeanPower, kAnywhereInRange}; its segment energies are left empty (the
// sweep's are the same).
inline WindowSplit split_at_window_mean_power(const WindowSplitInputs& in) {
  const std::vector<Segment>& segments = *in.segments;
  const SweepResult& sweep = *in.sweep;
  const std::size_t windows = in.window_s.size();
  WindowSplit out;
  out.segment_split_j.assign(segments.size(), 0.0);
  if (windows == 0) return out;
  std::vector<double> shared_s(windows, 0.0);
  std::vector<double> shared_squared(windows, 0.0);
  const auto for_each_piece_of = [&](std::size_t i, const auto& visit) {
    const std::size_t last = std::min<std::size_t>(sweep.end_window[i], windows - 1);
    if (sweep.begin_window[i] == last) {
      visit(last, sweep.shared_time_s[i]);
      return;
    }
    for (std::size_t j = sweep.begin_window[i]; j <= last; ++j) {
      visit(j, shared_time_in_window(sweep, segments[i], i, static_cast<std::uint32_t>(j)));
    }
  };
  for (std::size_t i = 0; i < segments.size(); ++i) {
    for_each_piece_of(i, [&](std::size_t j, double piece_s) {
      shared_s[j] += piece_s;
      shared_squared[j] += piece_s * piece_s;
    });
  }
  std::vector<double> given_w(windows, 0.0);    // the power every piece of window j is given
  std::vector<double> farther_w(windows, 0.0);  // F_j
  std::vector<double> own_squared(windows, 0.0);
  std::vector<double> idle_s(windows, 0.0);
  for (std::size_t j = 0; j < windows; ++j) {
    idle_s[j] = sweep.edge_idle_s[j + 1] - sweep.edge_idle_s[j];
    const double mean_w = in.window_s[j] > 0.0 ? in.window_energy_j[j] / in.window_s[j] : 0.0;
    const double load = mean_w * (idle_s[j] + shared_s[j]);
    if (!(load > 0.0)) continue;
    given_w[j] = in.window_energy_j[j] / load * mean_w;
    farther_w[j] = std::max(
        0.0, std::max(in.power_range.high_w - given_w[j], given_w[j] - in.power_range.low_w));
    own_squared[j] = farther_w[j] * farther_w[j] * (idle_s[j] * idle_s[j] + shared_squared[j]);
  }
  const auto split_of = [&](std::size_t j, double piece_s) {
    if (given_w[j] == 0.0 || in.window_energy_j[j] == 0.0) return 0.0;
    const double own = farther_w[j] * piece_s;
    const double s = std::abs(given_w[j] * piece_s / in.window_energy_j[j]);
    return (1.0 - s) * own + s * std::sqrt(std::max(0.0, own_squared[j] - own * own));
  };
  for (std::size_t i = 0; i < segments.size(); ++i) {
    double split = 0.0;
    for_each_piece_of(i, [&](std::size_t j, double piece_s) { split += split_of(j, piece_s); });
    out.segment_split_j[i] = split;
  }
  for (std::size_t j = 0; j < windows; ++j) out.idle_split_j += split_of(j, idle_s[j]);
  return out;
}

}  // namespace jouleprof::attribution
