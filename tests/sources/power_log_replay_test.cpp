#include <gtest/gtest.h>

#include <array>

#include "sources/backends.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::TempDir;

TEST(TraceReplay, ReadsTheLastRecordedValueAtOrBeforeNow) {
  TempDir dir;
  const auto path = dir.write("log.csv",
                              "timestamp, power.draw [W]\n"
                              "2023/05/10 12:00:00.000, 100.00 W\n"
                              "2023/05/10 12:00:10.000, 200.00 W\n"
                              "2023/05/10 12:00:20.000, 300.00 W\n"
                              "2023/05/10 12:10:00.000, 400.00 W\n");
  // The second sample played 5 s ago; the third plays in 5 s.
  auto source = make_power_log_replay_source(path.string(), PowerLogFormat::kAuto,
                                             monotonic_now_ns() - 15 * kNsPerS);
  ASSERT_TRUE(source->availability().available) << source->availability().reason;
  ASSERT_EQ(source->channels().size(), 1u);
  EXPECT_EQ(source->channels()[0].provenance, Provenance::kImported);
  EXPECT_EQ(source->channels()[0].id, "replay:nvidia-smi:gpu0:power");
  std::array<Reading, 1> out{};
  source->read(out);
  ASSERT_TRUE(out[0].ok) << source->read_error(0);
  EXPECT_DOUBLE_EQ(out[0].value, 200.0);
  EXPECT_TRUE(source->read_error(0).empty());
}

TEST(TraceReplay, OutsideTheRecordingAReadFailsWithAReason) {
  TempDir dir;
  const auto path = dir.write("log.csv",
                              "2023/05/10 12:00:00.000, 100.00 W, 30\n"
                              "2023/05/10 12:00:01.000, 200.00 W, 30\n");
  auto source = make_power_log_replay_source(path.string(), PowerLogFormat::kNvidiaSmi,
                                             monotonic_now_ns() + 3600 * kNsPerS);
  std::vector<Reading> out(source->channels().size());
  source->read(out);
  ASSERT_FALSE(out.empty());
  EXPECT_FALSE(out[0].ok);
  EXPECT_NE(source->read_error(0).find("outside the recorded range"), std::string::npos);
}

TEST(TraceReplay, AnUnreadableTraceIsAnUnavailableSourceWithItsReason) {
  auto source = make_power_log_replay_source("/nonexistent/trace.csv", PowerLogFormat::kAuto, 0);
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("/nonexistent/trace.csv"), std::string::npos);
  EXPECT_TRUE(source->channels().empty());
}

}  // namespace
}  // namespace jouleprof
