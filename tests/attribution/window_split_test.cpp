// The window split's fast form for window-mean-power weights gives the general form's figures.
#include "attribution/window_split.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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

}  // namespace
}  // namespace jouleprof::attribution
