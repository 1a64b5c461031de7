#include "sources/rapl_perf.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sources/backends.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::TempDir;

constexpr const char* kPmu = "sys/bus/event_source/devices/power/";
constexpr double kScaleJ = 2.3283064365386962890625e-10;  // 2^-32 J, what Intel parts report

void write_event(const TempDir& root, const std::string& name, const std::string& config,
                 const std::string& scale = "2.3283064365386962890625e-10",
                 const std::string& unit = "Joules") {
  root.write(kPmu + std::string("events/") + name, config + "\n");
  root.write(kPmu + std::string("events/") + name + ".scale", scale + "\n");
  root.write(kPmu + std::string("events/") + name + ".unit", unit + "\n");
}

// A two-socket Intel PMU as the kernel lays it out (cpumask names one CPU per socket).
void write_intel_pmu(const TempDir& root, const std::string& cpumask = "0,18") {
  root.write(kPmu + std::string("type"), "21\n");
  root.write(kPmu + std::string("cpumask"), cpumask + "\n");
  root.write(kPmu + std::string("format/event"), "config:0-7\n");
  write_event(root, "energy-cores", "event=0x01");
  write_event(root, "energy-pkg", "event=0x02");
  write_event(root, "energy-ram", "event=0x03");
  root.write("proc/sys/kernel/perf_event_paranoid", "2\n");
}

// Scripted perf events: counts per (config, cpu), optional open errors, a record of the calls.
struct FakeState {
  std::map<std::pair<std::uint64_t, int>, std::uint64_t> counts;
  std::map<std::pair<std::uint64_t, int>, int> open_errors;
  std::vector<std::tuple<std::uint32_t, std::uint64_t, int>> opened;
  std::map<int, std::pair<std::uint64_t, int>> fd_key;
  int read_error = 0;
  int closed = 0;
};

class FakeSyscalls final : public PerfEventSyscalls {
 public:
  explicit FakeSyscalls(FakeState& state) : state_(state) {}
  int open_event(std::uint32_t pmu_type, std::uint64_t config, int cpu) override {
    state_.opened.emplace_back(pmu_type, config, cpu);
    const auto error = state_.open_errors.find({config, cpu});
    if (error != state_.open_errors.end()) return -error->second;
    const int fd = 100 + static_cast<int>(state_.fd_key.size());
    state_.fd_key[fd] = {config, cpu};
    return fd;
  }
  int read_count(int fd, std::uint64_t* count) override {
    if (state_.read_error != 0) return -state_.read_error;
    *count = state_.counts[state_.fd_key.at(fd)];
    return 0;
  }
  void close_event(int) override { ++state_.closed; }

 private:
  FakeState& state_;
};

std::unique_ptr<Source> open_source(const TempDir& root, FakeState& state) {
  SourceOptions options;
  options.sysfs_root = root.path().string();
  return make_rapl_perf_source(options, std::make_unique<FakeSyscalls>(state));
}

std::map<std::string, std::size_t> index_by_id(const Source& source) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < source.channels().size(); ++i) index[source.channels()[i].id] = i;
  return index;
}

TEST(RaplPerf, OneEventPerSocketWithConfigFromTheEventString) {
  TempDir root;
  write_intel_pmu(root);
  FakeState state;
  {
    auto source = open_source(root, state);
    ASSERT_TRUE(source->availability().available) << source->availability().reason;
    EXPECT_EQ(source->name(), "rapl-perf");
    const auto index = index_by_id(*source);
    ASSERT_EQ(index.size(), 6u);
    EXPECT_EQ(source->channels()[index.at("rapl-perf:package-1")].parent_id, "");
    EXPECT_EQ(source->channels()[index.at("rapl-perf:package-1/dram")].parent_id,
              "rapl-perf:package-1");
    EXPECT_EQ(source->channels()[index.at("rapl-perf:package-0/core")].domain, "core");
    EXPECT_EQ(source->channels()[index.at("rapl-perf:package-1/core")].device, "cpu1");
    EXPECT_EQ(source->channels()[index.at("rapl-perf:package-0")].source, "rapl-perf");
    EXPECT_NE(
        source->channels()[index.at("rapl-perf:package-0")].provenance_detail.find("energy-pkg"),
        std::string::npos);
    // Every event opened system-wide on the PMU's CPUs with type 21 and the event's config.
    ASSERT_EQ(state.opened.size(), 6u);
    EXPECT_EQ(state.opened[0], std::make_tuple(21u, std::uint64_t{0x01}, 0));
    EXPECT_EQ(state.opened[4], std::make_tuple(21u, std::uint64_t{0x02}, 18));
  }
  EXPECT_EQ(state.closed, 6);
}

TEST(RaplPerf, CountsTimesScaleAreJoulesSinceTheFirstRead) {
  TempDir root;
  write_intel_pmu(root, "0");
  FakeState state;
  state.counts[{0x02, 0}] = 1'000'000'000'000ull;
  auto source = open_source(root, state);
  const auto index = index_by_id(*source);
  std::vector<Reading> readings(source->channels().size());
  source->read(readings);
  EXPECT_TRUE(readings[index.at("rapl-perf:package-0")].ok);
  EXPECT_EQ(readings[index.at("rapl-perf:package-0")].value, 0.0);
  state.counts[{0x02, 0}] += 4'294'967'296ull * 3;  // 3 J in 2^-32 J counts
  source->read(readings);
  EXPECT_DOUBLE_EQ(readings[index.at("rapl-perf:package-0")].value, 3.0);
  EXPECT_DOUBLE_EQ(readings[index.at("rapl-perf:package-0/dram")].value, 0.0);
}

TEST(RaplPerf, PsysIsCountedOnceAndPackagesNestInItOnASingleSocket) {
  TempDir root;
  write_intel_pmu(root, "0");
  write_event(root, "energy-psys", "event=0x05");
  FakeState state;
  auto source = open_source(root, state);
  const auto index = index_by_id(*source);
  ASSERT_TRUE(index.count("rapl-perf:psys"));
  EXPECT_EQ(source->channels()[index.at("rapl-perf:psys")].device, "platform");
  EXPECT_EQ(source->channels()[index.at("rapl-perf:package-0")].parent_id, "rapl-perf:psys");
}

TEST(RaplPerf, MissingPmuSaysWhy) {
  TempDir root;
  FakeState state;
  auto source = open_source(root, state);
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("no `power` PMU"), std::string::npos);
  EXPECT_NE(source->availability().fix.find("rapl-powercap"), std::string::npos);
  EXPECT_TRUE(state.opened.empty());
}

TEST(RaplPerf, PermissionDeniedReportsTheParanoidLevelAndTheFix) {
  TempDir root;
  write_intel_pmu(root, "0");
  FakeState state;
  for (std::uint64_t config : {0x01, 0x02, 0x03}) state.open_errors[{config, 0}] = EACCES;
  auto source = open_source(root, state);
  const Availability availability = source->availability();
  EXPECT_FALSE(availability.available);
  EXPECT_NE(availability.reason.find("perf_event_paranoid is 2"), std::string::npos)
      << availability.reason;
  EXPECT_NE(availability.fix.find("sysctl kernel.perf_event_paranoid=0"), std::string::npos);
  EXPECT_NE(availability.fix.find("CAP_PERFMON"), std::string::npos);
}

TEST(RaplPerf, UnsupportedEventIsSkippedAndNamed) {
  TempDir root;
  write_intel_pmu(root, "0");
  FakeState state;
  state.open_errors[{0x03, 0}] = ENOENT;
  auto source = open_source(root, state);
  EXPECT_TRUE(source->availability().available);
  EXPECT_EQ(source->channels().size(), 2u);
  EXPECT_NE(source->availability().reason.find("energy-ram"), std::string::npos);
}

TEST(RaplPerf, ReadFailureMidRunIsReportedPerChannel) {
  TempDir root;
  write_intel_pmu(root, "0");
  FakeState state;
  auto source = open_source(root, state);
  std::vector<Reading> readings(source->channels().size());
  source->read(readings);
  state.read_error = ENODEV;
  source->read(readings);
  EXPECT_FALSE(readings[0].ok);
  EXPECT_NE(source->read_error(0).find("No such device"), std::string::npos);
}

TEST(RaplPerf, EventsWithOtherUnitsOrBadScalesAreLeftOut) {
  TempDir root;
  write_intel_pmu(root, "0");
  write_event(root, "energy-gpu", "event=0x04", "2.3e-10", "Watts");
  write_event(root, "energy-psys", "event=0x05", "-1");
  std::vector<std::string> skipped;
  const auto events = discover_perf_energy_events(root.path() / kPmu, skipped);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[1].name, "energy-pkg");
  EXPECT_EQ(events[1].config, 0x02u);
  EXPECT_DOUBLE_EQ(events[1].scale_j, kScaleJ);
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_NE(skipped[0].find("'Watts'"), std::string::npos) << skipped[0];
  EXPECT_NE(skipped[1].find("'-1'"), std::string::npos) << skipped[1];
}

TEST(RaplPerf, EventStringTermsArePlacedByTheFormatFiles) {
  TempDir root;
  root.write(kPmu + std::string("format/event"), "config:0-7\n");
  root.write(kPmu + std::string("format/umask"), "config:8-15\n");
  const auto pmu = root.path() / kPmu;
  EXPECT_EQ(*parse_perf_event_config(pmu, "event=0x02"), 0x02u);
  EXPECT_EQ(*parse_perf_event_config(pmu, "event=0x02,umask=0x1"), 0x102u);
  EXPECT_FALSE(parse_perf_event_config(pmu, "event=0x1ff"));  // does not fit in 8 bits
  EXPECT_FALSE(parse_perf_event_config(pmu, "edge=1"));       // no format file for `edge`
  EXPECT_FALSE(parse_perf_event_config(pmu, "event=zz"));
  EXPECT_FALSE(parse_perf_event_config(pmu, ""));
}

TEST(RaplPerf, CpuListsAcceptRangesAndRejectGarbage) {
  EXPECT_EQ(*parse_cpu_list("cpumask", "0,18\n"), (std::vector<int>{0, 18}));
  EXPECT_EQ(*parse_cpu_list("cpumask", "0-2,8"), (std::vector<int>{0, 1, 2, 8}));
  EXPECT_FALSE(parse_cpu_list("cpumask", ""));
  EXPECT_FALSE(parse_cpu_list("cpumask", "3-1"));
  EXPECT_FALSE(parse_cpu_list("cpumask", "a,b"));
}

// The real perf_event_open on a fake PMU type: whatever the kernel or sandbox answers (no such
// PMU, or perf forbidden), the source must come back unavailable with the call named.
TEST(RaplPerf, RealSyscallsOnABogusPmuTypeFailCleanly) {
  TempDir root;
  write_intel_pmu(root, "0");
  root.write(kPmu + std::string("type"), "987654\n");
  SourceOptions options;
  options.sysfs_root = root.path().string();
  auto source = make_rapl_perf_source(options);
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("perf_event_open(power/energy-pkg/ on cpu 0)"),
            std::string::npos)
      << source->availability().reason;
}

}  // namespace
}  // namespace jouleprof
