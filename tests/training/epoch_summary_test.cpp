#include "training/epoch_summary.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace jouleprof {
namespace {

// A profile of a 20 W counter updating every 1 ms over [0, 10 s], with epoch marks.
Profile profile_with_epochs(const std::vector<std::pair<std::string, TimeNs>>& marks) {
  Profile p;
  p.meta.begin_ns = 0;
  p.meta.end_ns = 10 * kNsPerS;
  Channel c;
  c.id = "rapl:package-0";
  c.kind = ChannelKind::kEnergyCounter;
  Series s(c);
  for (TimeNs t = 0; t <= 10 * kNsPerS; t += kNsPerMs)
    EXPECT_TRUE(s.append(t, 20.0 * ns_to_s(t)).ok());
  p.series.push_back(std::move(s));
  const auto track = p.timeline.add_track(Track{TrackKind::kProcess, "job", ""});
  for (const auto& [name, t] : marks) p.timeline.add_mark(Mark{t, track, p.timeline.intern(name)});
  return p;
}

bool has_warning(const Profile& p, const std::string& part) {
  for (const std::string& w : p.warnings) {
    if (w.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(EpochSummary, EnergyAndUpdatesOfEachEpoch) {
  Profile p = profile_with_epochs({{"epoch_begin", 2 * kNsPerS},
                                   {"epoch_end", 4 * kNsPerS},
                                   {"epoch_begin", 5 * kNsPerS},
                                   {"epoch_end", 6 * kNsPerS}});
  summarize_epochs(p);
  ASSERT_EQ(p.epochs.size(), 2u);
  EXPECT_EQ(p.epochs[0].begin_ns, 2 * kNsPerS);
  EXPECT_NEAR(p.epochs[0].energy_j, 40.0, 1e-9);  // 20 W for 2 s; start-up not included
  EXPECT_NEAR(p.epochs[1].energy_j, 20.0, 1e-9);  // the gap (evaluation) belongs to no epoch
  EXPECT_EQ(p.epochs[0].counter_updates, 2000u);
  EXPECT_EQ(p.meta.options.epochs.first_begin, EpochStart::kBeginMark);
  EXPECT_TRUE(p.warnings.empty()) << p.warnings.front();
}

TEST(EpochSummary, WarnsAboutShortEpochsAndAnEpochOneFromTheStart) {
  Profile p = profile_with_epochs({{"epoch_end", 3 * kNsPerS},
                                   {"epoch_end", 3 * kNsPerS + 4 * kNsPerMs},
                                   {"epoch_end", 5 * kNsPerS}});
  summarize_epochs(p);
  ASSERT_EQ(p.epochs.size(), 3u);
  EXPECT_EQ(p.epochs[1].counter_updates, 4u);
  EXPECT_TRUE(has_warning(p, "epoch 1 is counted from the start of the run")) << p.warnings[0];
  EXPECT_TRUE(has_warning(p, "epoch 2 of 3 is shorter than 10 counter updates"));
  EXPECT_TRUE(has_warning(p, "Make the epochs longer"));
}

TEST(EpochSummary, NothingWithoutMarks) {
  Profile p = profile_with_epochs({});
  summarize_epochs(p);
  EXPECT_TRUE(p.epochs.empty());
  EXPECT_TRUE(p.warnings.empty());
}

TEST(EpochSummary, FewestUpdatesCountsChangesOfACounterAndSamplesOfPower) {
  Channel counter;
  counter.kind = ChannelKind::kEnergyCounter;
  Series held(counter);  // read every 1 ms, updated every 10 ms
  for (int i = 0; i <= 100; ++i) ASSERT_TRUE(held.append(i * kNsPerMs, (i / 10) * 1.0).ok());
  Channel power;
  power.kind = ChannelKind::kPower;
  Series watts(power);
  for (int i = 0; i <= 100; ++i) ASSERT_TRUE(watts.append(i * kNsPerMs, 5.0).ok());
  EXPECT_EQ(fewest_updates({&held}, 0, 100 * kNsPerMs), 10u);
  EXPECT_EQ(fewest_updates({&watts}, 0, 100 * kNsPerMs), 100u);
  EXPECT_EQ(fewest_updates({&held, &watts}, 0, 100 * kNsPerMs), 10u);
  EXPECT_EQ(fewest_updates({}, 0, 1), 0u);
}

}  // namespace
}  // namespace jouleprof

namespace jouleprof {
namespace {

// Each epoch's energy carries its channels' interval; the mean epoch, its Student-t interval with
// the terms that repeat alike (the source's gain on the mean, the read delay).
TEST(EpochSummary, EpochsGetTheirIntervalAndTheMeanEpochItsStudentInterval) {
  Profile p = profile_with_epochs({{"epoch_begin", 2 * kNsPerS},
                                   {"epoch_end", 4 * kNsPerS},
                                   {"epoch_begin", 5 * kNsPerS},
                                   {"epoch_end", 6 * kNsPerS},
                                   {"epoch_begin", 7 * kNsPerS},
                                   {"epoch_end", 9'500 * kNsPerMs}});
  summarize_epochs(p);
  ASSERT_EQ(p.epochs.size(), 3u);
  for (const EpochSummary& e : p.epochs) {
    ASSERT_TRUE(e.band.has_value());
    EXPECT_TRUE(e.band->contains(e.energy_j));
    // An unlisted measured source errs by ±10 % (docs/uncertainty.md): the gain dominates.
    EXPECT_EQ(e.band->dominant, UncertaintyTerm::kGain);
    EXPECT_GE(e.band->half_width_j(), 0.1 * e.energy_j);
  }
  ASSERT_TRUE(p.energy_per_epoch.has_value());
  const RepeatedEnergy& mean = *p.energy_per_epoch;
  EXPECT_EQ(mean.stats.n, 3u);
  EXPECT_NEAR(mean.stats.mean, (40.0 + 20.0 + 50.0) / 3.0, 1e-9);
  // Epochs of 2, 1 and 2.5 s spread far more than the gain errs.
  EXPECT_EQ(mean.band.dominant, UncertaintyTerm::kRepetition);
  // (An energy's interval stops at 0 J; three epochs this unlike reach below it.)
  EXPECT_LE(mean.band.low_j, std::max(0.0, mean.stats.ci95_low));
  EXPECT_GE(mean.band.high_j, mean.stats.ci95_high);
}

TEST(EpochSummary, OneEpochHasItsIntervalButNoMean) {
  Profile p = profile_with_epochs({{"epoch_begin", 2 * kNsPerS}, {"epoch_end", 4 * kNsPerS}});
  summarize_epochs(p);
  ASSERT_EQ(p.epochs.size(), 1u);
  EXPECT_TRUE(p.epochs[0].band.has_value());
  EXPECT_FALSE(p.energy_per_epoch.has_value());
}

}  // namespace
}  // namespace jouleprof
