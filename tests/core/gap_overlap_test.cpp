#include "core/gap_overlap.hpp"

#include <gtest/gtest.h>

namespace jouleprof {
namespace {

TEST(GapOverlap, AGapOverlapsWhatSharesTimeWithItBeyondAnEndPoint) {
  const Gap gap{10, 20, "read failed"};
  EXPECT_TRUE(gap_overlaps(gap, 10, 20));
  EXPECT_TRUE(gap_overlaps(gap, 0, 11));
  EXPECT_TRUE(gap_overlaps(gap, 12, 14));  // inside
  EXPECT_TRUE(gap_overlaps(gap, 0, 30));   // around
  EXPECT_FALSE(gap_overlaps(gap, 0, 10));  // touching ends
  EXPECT_FALSE(gap_overlaps(gap, 20, 30));
  const Gap instant{10, 10, "read failed"};
  EXPECT_TRUE(gap_overlaps(instant, 5, 15));
  EXPECT_FALSE(gap_overlaps(instant, 10, 15));
  EXPECT_FALSE(gap_overlaps(instant, 5, 10));
}

TEST(GapOverlap, APowerIntervalThatOverlapsAGapCarriesNoEnergy) {
  Channel c;
  c.id = "test:power";
  c.kind = ChannelKind::kPower;
  Series s(c);
  ASSERT_TRUE(s.append(0, 100.0));
  ASSERT_TRUE(s.append(2 * kNsPerS, 100.0));
  ASSERT_TRUE(s.append(3 * kNsPerS, 100.0));
  // Imported, not on the readings: the first interval's readings bridge unread time.
  s.add_gap(Gap{kNsPerS / 2, kNsPerS, "no samples"});
  EXPECT_TRUE(has_gap_in(s, 0, 2 * kNsPerS));
  EXPECT_FALSE(has_gap_in(s, 2 * kNsPerS, 3 * kNsPerS));
  EXPECT_DOUBLE_EQ(s.total_energy_j(), 100.0);
}

}  // namespace
}  // namespace jouleprof
