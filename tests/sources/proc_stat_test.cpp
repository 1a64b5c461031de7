#include "sources/proc_stat.hpp"

#include <gtest/gtest.h>

namespace jouleprof {
namespace {

TEST(ProcStat, ParsesAggregateLineAndCountsCpus) {
  Result<CpuTimes> t = parse_proc_stat("cpu  10 2 3 100 4 5 6 7 8 9\ncpu0 x\ncpu1 y\n", "stat");
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->busy, 10U + 2 + 3 + 5 + 6);
  EXPECT_EQ(t->idle, 104U);
  EXPECT_EQ(t->steal, 7U);
  EXPECT_EQ(t->cpus, 2);
}

TEST(ProcStat, GarbageNamesFileLineAndField) {
  Result<CpuTimes> t = parse_proc_stat("intr 1\ncpu  10 -2 3 100\n", "/fake/proc/stat");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message().find("/fake/proc/stat:2"), std::string::npos)
      << t.error().message();
  EXPECT_NE(t.error().message().find("-2"), std::string::npos);
  EXPECT_FALSE(parse_proc_stat("cpu0 1 2 3 4\n", "s").ok());
  EXPECT_FALSE(parse_proc_stat("cpu  1 2\n", "s").ok());
}

TEST(ProcStat, PerCpuLinesGiveEachCpusBusyAndIdleTicks) {
  Result<std::vector<CpuTicks>> cpus = parse_proc_stat_per_cpu(
      "cpu  20 0 0 200 0 0 0 0\ncpu0 5 1 2 90 3 1 1 4\ncpu3 10 0 1 100 7 0 0 0\nintr 9\n", "stat");
  ASSERT_TRUE(cpus.ok()) << cpus.error().message();
  ASSERT_EQ(cpus->size(), 2U);
  EXPECT_EQ((*cpus)[0].cpu, 0);
  EXPECT_EQ((*cpus)[0].busy, 5U + 1 + 2 + 1 + 1);
  EXPECT_EQ((*cpus)[0].idle, 93U);
  EXPECT_EQ((*cpus)[1].cpu, 3);
  EXPECT_EQ((*cpus)[1].busy, 11U);
  EXPECT_EQ((*cpus)[1].idle, 107U);
}

TEST(ProcStat, PerCpuGarbageNamesTheLine) {
  Result<std::vector<CpuTicks>> cpus =
      parse_proc_stat_per_cpu("cpu  1 1 1 1\ncpu0 1 x 1 1\n", "/fake/proc/stat");
  ASSERT_FALSE(cpus.ok());
  EXPECT_NE(cpus.error().message().find("/fake/proc/stat:2"), std::string::npos)
      << cpus.error().message();
  EXPECT_NE(cpus.error().message().find("cpu0 field 2"), std::string::npos)
      << cpus.error().message();
}

}  // namespace
}  // namespace jouleprof
