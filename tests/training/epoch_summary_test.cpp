#include "training/epoch_summary.hpp"

#include <gtest/gtest.h>

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
