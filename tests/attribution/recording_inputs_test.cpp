#include "attribution/recording_inputs.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace jouleprof::attribution {
namespace {

TEST(RecordingInputs, ReadsAnNvmlPollLog) {
  testing::TempDir dir;
  const auto path = dir.write("nvml.csv",
                              "t_ns,instant_mw,instant_nvml_ts_us,avg_mw,energy_mj\n"
                              "1000,568089,1,353181,4596384\n"
                              "2000,568089,2,353181,-1\n"
                              "3000,600000,3,360000,4596484\n");
  auto s = read_energy_samples(path.string());
  ASSERT_TRUE(s.ok()) << s.error().message();
  ASSERT_EQ(s->size(), 3u);
  const Series& energy = (*s)[0];
  EXPECT_EQ(energy.channel().id, "nvml:gpu0:energy");
  EXPECT_EQ(energy.channel().device, "gpu0");
  ASSERT_EQ(energy.size(), 2u);  // the -1 row did not read the counter
  EXPECT_NEAR(energy[1].value - energy[0].value, 0.1, 1e-9);
  EXPECT_EQ((*s)[1].channel().kind, ChannelKind::kPower);
  EXPECT_EQ((*s)[1].channel().parent_id, "nvml:gpu0:energy");
  EXPECT_DOUBLE_EQ((*s)[1][2].value, 600.0);
}

TEST(RecordingInputs, NamesLineAndFieldOfBadRows) {
  testing::TempDir dir;
  const auto path =
      dir.write("nvml.csv", "t_ns,instant_mw,instant_nvml_ts_us,avg_mw,energy_mj\n1000,x,1,2,3\n");
  auto s = read_nvml_poll_csv(path.string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("line 2 instant_mw"), std::string::npos)
      << s.error().message();
  const auto other = dir.write("other.csv", "a,b\n");
  EXPECT_FALSE(read_nvml_poll_csv(other.string()).ok());
  // Two rows run together (found by fuzz/nvml_poll_log_fuzz.cpp) were read as one, its energy
  // taken from the second row's fields.
  const auto joined = dir.write("joined.csv",
                                "t_ns,instant_mw,instant_nvml_ts_us,avg_mw,energy_mj\n"
                                "1000,600000,1,353181,95367467,174225,2,391594,-1\n");
  s = read_nvml_poll_csv(joined.string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("line 2"), std::string::npos) << s.error().message();
  EXPECT_NE(s.error().message().find("more than the 5 fields"), std::string::npos);
}

TEST(RecordingInputs, ReadsRecordingMetadata) {
  testing::TempDir dir;
  const auto path = dir.write("meta.json", R"({"anchor_realtime_ns": 1795989745657005618,
    "anchor_monotonic_ns": 32296949292, "marks": [["train_begin", 53124521220], ["train_end", 68200986698]]})");
  auto m = read_recording_meta(path.string());
  ASSERT_TRUE(m.ok()) << m.error().message();
  ASSERT_TRUE(m->anchor.has_value());
  EXPECT_EQ(m->anchor->monotonic_ns, 32296949292);
  ASSERT_EQ(m->marks.size(), 2u);
  EXPECT_EQ(m->marks[1].first, "train_end");
  const auto bad = dir.write("bad.json", R"({"marks": [["x"]]})");
  auto b = read_recording_meta(bad.string());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message().find("marks[0]"), std::string::npos);
}

TEST(RecordingInputs, ANvmlCounterReadSteppingBackIsAGap) {
  testing::TempDir dir;
  const auto path = dir.write("nvml.csv",
                              "t_ns,instant_mw,instant_nvml_ts_us,avg_mw,energy_mj\n"
                              "1000000000,300000,1,300000,1000\n"
                              "2000000000,300000,2,300000,1300\n"
                              "3000000000,300000,3,300000,1250\n"
                              "4000000000,300000,4,300000,1900\n");
  auto s = read_energy_samples(path.string());
  ASSERT_TRUE(s.ok()) << s.error().message();
  const Series& energy = (*s)[0];
  ASSERT_EQ(energy.size(), 3u);
  EXPECT_DOUBLE_EQ(energy.total_energy_j(), 0.9);  // the stale read costs nothing
  ASSERT_EQ(energy.gaps().size(), 1u);
  EXPECT_EQ(energy.gaps()[0].reason, "counter went backwards (1.25 J after 1.3 J)");
}

TEST(RecordingInputs, ANvmlPollLogStopsAtTheFirstBadLineAndSaysWhereItStarts) {
  testing::TempDir dir;
  const std::string good =
      "t_ns,instant_mw,instant_nvml_ts_us,avg_mw,energy_mj\n1000,50000,1,50000,100\n";
  const auto path = dir.write("nvml.csv", good + "2000,lots,2,50000,200\ngarbage\n");
  const auto read = read_nvml_poll_csv(path.string());
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message().find("line 3 instant_mw"), std::string::npos)
      << read.error().message();
  EXPECT_TRUE(read.error().message().ends_with("(line 3 starts at byte " +
                                               std::to_string(good.size()) + ")"))
      << read.error().message();
}

}  // namespace
}  // namespace jouleprof::attribution
