// The window split's fast form for window-mean-power weights gives the general form's figures.
#include "attribution/window_split.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace jouleprof::attribution {
namespace {

// Spans on two tracks of different weights, some crossing several 1 ms windows, some idle gaps;
// window energies drawn at random (a counter that does not follow the spans).
struct Case {
  std::vector<Segment> segments;
  std::vector<TimeNs> edges;
  std::vector<double> window_energy_j;
};

Case make_case(std::uint64_t seed) {
  Case c;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<TimeNs> duration(10'000, 3'000'000);
  std::uniform_int_distribution<TimeNs> gap(0, 400'000);
  std::uint32_t span = 0;
  for (const double weight : {1.0, 0.5}) {
    for (TimeNs t = 0; t < 200 * kNsPerMs; ++span) {
      t += gap(rng);
      const TimeNs d = duration(rng);
      c.segments.push_back(Segment{t, t + d, span, kNoClass, weight});
      t += d;
    }
  }
  std::sort(c.segments.begin(), c.segments.end(),
            [](const Segment& a, const Segment& b) { return a.begin_ns < b.begin_ns; });
  for (TimeNs t = 0; t <= 205 * kNsPerMs; t += kNsPerMs) c.edges.push_back(t);
  std::uniform_real_distribution<double> energy(0.01, 0.2);
  for (std::size_t j = 0; j + 1 < c.edges.size(); ++j) c.window_energy_j.push_back(energy(rng));
  c.window_energy_j[7] = 0.0;  // a window that measured nothing
  return c;
}

TEST(WindowSplit, TheMeanPowerFormGivesTheGeneralFormsFigures) {
  for (const std::uint64_t seed : {1, 2, 3}) {
    const Case c = make_case(seed);
    const SweepResult sweep = sweep_segments(c.segments, nullptr, c.edges);
    WindowSplitInputs in;
    in.segments = &c.segments;
    in.sweep = &sweep;
    for (std::size_t j = 0; j + 1 < c.edges.size(); ++j)
      in.window_s.push_back(ns_to_s(c.edges[j + 1] - c.edges[j]));
    in.window_energy_j = c.window_energy_j;
    in.power_range = PowerRange{5.0, 250.0};
    in.idle = PieceWeight{kWindowMeanPower, kAnywhereInRange};
    const WindowSplit general = split_windows(in, [](const Segment&) {
      return PieceWeight{kWindowMeanPower, kAnywhereInRange};
    });
    const WindowSplit fast = split_at_window_mean_power(in);
    ASSERT_EQ(fast.segment_split_j.size(), general.segment_split_j.size());
    double total = 0.0;
    for (std::size_t i = 0; i < fast.segment_split_j.size(); ++i) {
      EXPECT_NEAR(fast.segment_split_j[i], general.segment_split_j[i],
                  1e-7 * std::max(1e-3, general.segment_split_j[i]))
          << "seed " << seed << ", segment " << i;
      total += fast.segment_split_j[i];
    }
    EXPECT_GT(total, 0.0);
    // Alike to rounding: each takes a square root of a difference of squares.
    EXPECT_NEAR(fast.idle_split_j, general.idle_split_j,
                1e-7 * std::max(1e-3, general.idle_split_j));
  }
}

// Two pieces share a 1 s window of 2 J half and half, their weights each known to ±10 %: each
// piece's energy moves by 0.5·(ε_own − ε_other) J, whose 95 % half-width, with independent
// errors, is √(0.05² + 0.05²) J: the length of the vector of the terms, not their sum (0.1 J).
TEST(WindowSplit, APiecesOwnAndItsNeighboursTermsAddInSquares) {
  const std::vector<Segment> segments{Segment{0, kNsPerS / 2, 0, 0, 1.0},
                                      Segment{kNsPerS / 2, kNsPerS, 1, 1, 1.0}};
  const std::vector<TimeNs> edges{0, kNsPerS};
  const SweepResult sweep = sweep_segments(segments, nullptr, edges);
  WindowSplitInputs in;
  in.segments = &segments;
  in.sweep = &sweep;
  in.window_s = {1.0};
  in.window_energy_j = {2.0};
  in.power_range = PowerRange{1.0, 3.0};
  const WindowSplit split = split_windows(in, [](const Segment&) {
    return PieceWeight{2.0, 0.10};
  });
  ASSERT_EQ(split.segment_split_j.size(), 2u);
  for (const double half_width : split.segment_split_j)
    EXPECT_NEAR(half_width, std::sqrt(2.0) * 0.05, 1e-12);
  EXPECT_DOUBLE_EQ(split.segment_energy_j[0], 1.0);
}

}  // namespace
}  // namespace jouleprof::attribution
