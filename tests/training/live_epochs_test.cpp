// LiveEpochProjector: an epoch reported while the counters are still being read closes once each
// counter has been read past its end, so the energy printed live is the profile's.
#include "jouleprof/live_epochs.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "test_support.hpp"

namespace jouleprof {
namespace {

constexpr TimeNs kMs = kNsPerMs;
constexpr TimeNs kStart = kNsPerS;  // epoch files hold positive times

// A 50 W counter read every 10 ms from kStart up to kStart + `last_ns`.
Series counter_read_until(TimeNs last_ns) {
  Channel c;
  c.id = "sim:energy";
  c.source = "simulated";
  c.device = "cpu0";
  c.domain = "package";
  Series s(c);
  for (TimeNs t = 0; t <= last_ns; t += 10 * kMs) {
    EXPECT_TRUE(s.append(kStart + t, 50.0 * ns_to_s(t)));
  }
  return s;
}

TEST(LiveEpochs, AnEpochClosesOnceTheCounterIsReadPastItsEnd) {
  ::jouleprof::testing::TempDir dir;
  const std::string file = (dir.path() / "epochs").string();
  std::ofstream(file) << "begin 1000000000\nend 1105000000\n";  // one epoch of 105 ms
  LiveEpochProjector projector(file, 4);
  using Readings = LiveEpochProjector::Readings;

  // Read up to 100 ms: the counter at 105 ms is not known yet (it interpolates to the next
  // update), so the epoch waits.
  Result<std::vector<EpochUpdate>> early =
      projector.poll({counter_read_until(100 * kMs)}, kStart, Readings::kStillComing);
  ASSERT_TRUE(early.ok()) << early.error().message();
  EXPECT_TRUE(early->empty());

  // The 110 ms reading is an update after the end: 105 ms of 50 W.
  Result<std::vector<EpochUpdate>> read =
      projector.poll({counter_read_until(110 * kMs)}, kStart, Readings::kStillComing);
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->size(), 1u);
  EXPECT_NEAR(read->front().energy_j, 50.0 * 0.105, 1e-9);
}

TEST(LiveEpochs, CompleteReadingsCloseEveryEpochReported) {
  ::jouleprof::testing::TempDir dir;
  const std::string file = (dir.path() / "epochs").string();
  std::ofstream(file) << "begin 1000000000\nend 1100000000\n";
  LiveEpochProjector projector(file, 4);
  // The monitor stopped at the end: no reading after it will come.
  const Result<std::vector<EpochUpdate>> done =
      projector.poll({counter_read_until(100 * kMs)}, kStart);
  ASSERT_TRUE(done.ok());
  ASSERT_EQ(done->size(), 1u);
  EXPECT_NEAR(done->front().energy_j, 5.0, 1e-9);
}

}  // namespace
}  // namespace jouleprof
