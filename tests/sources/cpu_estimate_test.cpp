#include "sources/cpu_estimate.hpp"

#include <gtest/gtest.h>

#include "sources/backends.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using ::jouleprof::testing::TempDir;

// user nice system idle iowait irq softirq steal, for the aggregate line and two CPUs.
std::string proc_stat(std::uint64_t busy, std::uint64_t idle) {
  return "cpu  " + std::to_string(busy) + " 0 0 " + std::to_string(idle) +
         " 0 0 0 7 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\ncpu1 1 0 0 1 0 0 0 0 0 0\nintr 5\n";
}

struct FakeRoot {
  TempDir dir;
  SourceOptions options;
  explicit FakeRoot(const std::string& model = "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz") {
    dir.write("proc/stat", proc_stat(1000, 9000));
    dir.write("proc/cpuinfo", "processor\t: 0\nmodel name\t: " + model + "\n");
    options.sysfs_root = dir.path().string();
  }
};

TEST(TdpTable, MatchesWholeModelNamesOnly) {
  EXPECT_EQ(tdp_from_model_w("Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz"), 150.0);
  EXPECT_EQ(tdp_from_model_w("Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz"), std::nullopt);
  EXPECT_EQ(tdp_from_model_w("13th Gen Intel(R) Core(TM) i9-13900KS"), std::nullopt);
  EXPECT_EQ(tdp_from_model_w("AMD EPYC 7763 64-Core Processor"), 280.0);
  EXPECT_EQ(tdp_from_model_w("Intel(R) Xeon(R) Processor"), std::nullopt);
}

// Power follows P = P_idle + (TDP - P_idle) × u between two reads, u from the tick deltas.
TEST(CpuEstimate, IntegratesTheModelOverProcStatDeltas) {
  FakeRoot root;
  root.options.settings["estimate.tdp_w"] = "100";
  root.options.settings["estimate.idle_fraction"] = "0.2";
  auto source = make_cpu_estimate_source(root.options);
  ASSERT_TRUE(source->availability().available) << source->availability().reason;
  ASSERT_EQ(source->channels().size(), 2U);
  for (const Channel& c : source->channels()) {
    EXPECT_EQ(c.provenance, Provenance::kEstimated);
    EXPECT_NE(c.provenance_detail.find("TDP 100 W (given with setting estimate.tdp_w)"),
              std::string::npos)
        << c.provenance_detail;
  }

  std::vector<Reading> r(2);
  root.dir.write("proc/stat", proc_stat(1000 + 10, 9000 + 30));  // u = 0.25
  source->read(r);
  ASSERT_TRUE(r[0].ok && r[1].ok);
  EXPECT_DOUBLE_EQ(r[1].value, 0.25);
  const Reading first = r[0];

  root.dir.write("proc/stat", proc_stat(1010 + 75, 9030 + 25));  // u = 0.75
  source->read(r);
  EXPECT_DOUBLE_EQ(r[1].value, 0.75);
  const double power_w = 20.0 + 80.0 * 0.75;
  EXPECT_NEAR(r[0].value - first.value, power_w * ns_to_s(r[0].t_ns - first.t_ns), 1e-9);

  // No new ticks: the counter does not move (no utilisation is known for that interval).
  const double held = r[0].value;
  source->read(r);
  EXPECT_EQ(r[0].value, held);
}

TEST(CpuEstimate, TdpFromTableOrPerCpuFallbackIsStated) {
  FakeRoot known;
  auto from_table = make_cpu_estimate_source(known.options);
  EXPECT_NE(from_table->channels()[0].provenance_detail.find("TDP 150 W (table entry"),
            std::string::npos);

  FakeRoot unknown("Intel(R) Xeon(R) Processor");
  unknown.options.settings["estimate.tdp_per_cpu_w"] = "10";
  auto fallback = make_cpu_estimate_source(unknown.options);
  const std::string& detail = fallback->channels()[0].provenance_detail;
  EXPECT_NE(detail.find("TDP 20 W (2 CPUs x 10 W per CPU"), std::string::npos) << detail;
  EXPECT_NE(detail.find("setting estimate.tdp_w"), std::string::npos);
}

TEST(CpuEstimate, UnreadableOrGarbageProcStatIsUnavailableWithReason) {
  TempDir empty;
  SourceOptions options;
  options.sysfs_root = empty.path().string();
  auto missing = make_cpu_estimate_source(options);
  EXPECT_FALSE(missing->availability().available);
  EXPECT_NE(missing->availability().reason.find("proc/stat"), std::string::npos);

  empty.write("proc/stat", "cpu  a b c d\n");
  auto garbage = make_cpu_estimate_source(options);
  EXPECT_FALSE(garbage->availability().available);
  EXPECT_NE(garbage->availability().reason.find("'a'"), std::string::npos)
      << garbage->availability().reason;

  FakeRoot root;
  root.options.settings["estimate.tdp_w"] = "-3";
  auto bad_tdp = make_cpu_estimate_source(root.options);
  EXPECT_FALSE(bad_tdp->availability().available);
  EXPECT_NE(bad_tdp->availability().reason.find("estimate.tdp_w"), std::string::npos);
}

TEST(CpuEstimate, FileTurningToGarbageMidRunIsAFailedRead) {
  FakeRoot root;
  auto source = make_cpu_estimate_source(root.options);
  root.dir.write("proc/stat", "cpu  x\n");
  std::vector<Reading> r(2);
  source->read(r);
  EXPECT_FALSE(r[0].ok);
  EXPECT_FALSE(source->read_error(0).empty());
}

}  // namespace
}  // namespace jouleprof
