#include "sources/rocm_smi.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "jouleprof/observed_processes.hpp"
#include "sources/backends.hpp"
#include "sources/rocm_smi_api.hpp"

namespace jouleprof {
namespace {

// The resolution ROCm SMI returns, a float: 15.3 µJ as near as a float gets.
constexpr double kJoulesPerCount = static_cast<double>(15.3F) * 1e-6;

// Points the backend at the fake library and picks its scenario (see fake_rocm_smi.c).
class RocmSmiTest : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("JOULEPROF_ROCM_SMI_LIBRARY", FAKE_ROCM_SMI_PATH, 1); }
  void TearDown() override {
    ::unsetenv("JOULEPROF_ROCM_SMI_LIBRARY");
    ::unsetenv("FAKE_ROCM_SMI_SCENARIO");
  }
  static std::unique_ptr<Source> open(const char* scenario, SourceOptions options = {}) {
    ::setenv("FAKE_ROCM_SMI_SCENARIO", scenario, 1);
    return make_rocm_smi_source(options);
  }
};

std::map<std::string, std::size_t> index_by_id(const Source& source) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < source.channels().size(); ++i) index[source.channels()[i].id] = i;
  return index;
}

// Reads the source `times` times and returns the last readings.
std::vector<Reading> read_times(Source& source, int times) {
  std::vector<Reading> readings(source.channels().size());
  for (int k = 0; k < times; ++k) source.read(readings);
  return readings;
}

TEST_F(RocmSmiTest, EnergyCounterWhereSupportedAveragePowerElsewhere) {
  auto source = open("two_gpus");
  ASSERT_TRUE(source->availability().available) << source->availability().reason;
  EXPECT_EQ(source->name(), "rocm-smi");
  EXPECT_EQ(source->availability().reason, "");  // NOT_SUPPORTED is expected, not a note
  const auto index = index_by_id(*source);
  const std::map<std::string, std::pair<ChannelKind, std::string>> expected = {
      {"rocm-smi:0:energy", {ChannelKind::kEnergyCounter, ""}},
      {"rocm-smi:0:power", {ChannelKind::kPower, "rocm-smi:0:energy"}},
      {"rocm-smi:0:temperature", {ChannelKind::kTemperature, ""}},
      {"rocm-smi:1:power", {ChannelKind::kPower, ""}},
      {"rocm-smi:1:temperature", {ChannelKind::kTemperature, ""}}};
  ASSERT_EQ(index.size(), expected.size());
  for (const auto& [id, kind_and_parent] : expected) {
    ASSERT_TRUE(index.count(id)) << id;
    const Channel& channel = source->channels()[index.at(id)];
    EXPECT_EQ(channel.kind, kind_and_parent.first) << id;
    EXPECT_EQ(channel.parent_id, kind_and_parent.second) << id;
    EXPECT_EQ(channel.source, "rocm-smi");
    EXPECT_EQ(channel.domain, "gpu");
    EXPECT_EQ(channel.provenance, Provenance::kMeasured);
  }
  const Channel& energy = source->channels()[index.at("rocm-smi:0:energy")];
  EXPECT_EQ(energy.device, "gpu0");
  EXPECT_EQ(energy.label, "Fake MI210");
  EXPECT_EQ(source->channels()[index.at("rocm-smi:1:power")].device, "gpu1");
  // Vendor, name and PCI address; the resolution and the parameters a user may need to set.
  for (const char* part : {"AMD device 0", "Fake MI210", "PCI 0000:03:00.0", "15.3 µJ",
                           "rocm-smi.counter_bits = 32", "rocm-smi.update_period_ms"}) {
    EXPECT_NE(energy.provenance_detail.find(part), std::string::npos)
        << part << " in " << energy.provenance_detail;
  }
  EXPECT_EQ(energy.nominal_period_ns, 0) << "not documented: the sampler measures it";
  EXPECT_NE(source->channels()[index.at("rocm-smi:1:power")].provenance_detail.find("trapezoid"),
            std::string::npos);
  EXPECT_NE(
      source->channels()[index.at("rocm-smi:1:temperature")].provenance_detail.find("junction"),
      std::string::npos);
}

TEST_F(RocmSmiTest, ReadingsAreConvertedToJoulesWattsAndCelsius) {
  auto source = open("two_gpus");
  const auto index = index_by_id(*source);
  std::vector<Reading> readings = read_times(*source, 1);
  for (std::size_t i = 0; i < readings.size(); ++i) {
    EXPECT_TRUE(readings[i].ok) << source->channels()[i].id << ": " << source->read_error(i);
  }
  EXPECT_EQ(readings[index.at("rocm-smi:0:energy")].value, 0.0);  // the first read is the baseline
  readings = read_times(*source, 2);
  EXPECT_NEAR(readings[index.at("rocm-smi:0:energy")].value, 2000 * kJoulesPerCount, 1e-12);
  EXPECT_DOUBLE_EQ(readings[index.at("rocm-smi:0:power")].value, 300.0);
  EXPECT_DOUBLE_EQ(readings[index.at("rocm-smi:1:power")].value, 150.0);
  EXPECT_DOUBLE_EQ(readings[index.at("rocm-smi:0:temperature")].value, 45.0);
  EXPECT_DOUBLE_EQ(readings[index.at("rocm-smi:1:temperature")].value, 60.5);
  // Stamped by the firmware clock, mapped onto the monotonic axis: never after the read.
  const std::size_t energy = index.at("rocm-smi:0:energy");
  EXPECT_GT(readings[energy].t_ns, 0);
  EXPECT_LE(readings[energy].t_ns, monotonic_now_ns());
}

TEST_F(RocmSmiTest, TheThirtyTwoBitCounterWrapsWithoutLosingEnergy) {
  auto source = open("wrap");
  const std::size_t energy = index_by_id(*source).at("rocm-smi:0:energy");
  const std::vector<Reading> readings = read_times(*source, 3);  // the third read wraps
  ASSERT_TRUE(readings[energy].ok) << source->read_error(energy);
  EXPECT_NEAR(readings[energy].value, 2000 * kJoulesPerCount, 1e-12);
}

TEST_F(RocmSmiTest, AResetIsAFailedReadNotAWrapAndCountingGoesOn) {
  auto source = open("reset");
  const std::size_t energy = index_by_id(*source).at("rocm-smi:0:energy");
  std::vector<Reading> readings = read_times(*source, 2);  // +1000 counts
  ASSERT_TRUE(readings[energy].ok);
  readings = read_times(*source, 1);  // 5002000 → 100 counts: 65 kJ in a millisecond is no wrap
  EXPECT_FALSE(readings[energy].ok);
  EXPECT_NE(source->read_error(energy).find("not a wrap"), std::string::npos)
      << source->read_error(energy);
  readings = read_times(*source, 1);  // +1000 from the new reference
  ASSERT_TRUE(readings[energy].ok) << source->read_error(energy);
  EXPECT_NEAR(readings[energy].value, 2000 * kJoulesPerCount, 1e-12);
}

TEST_F(RocmSmiTest, SixtyFourBitCountersAreNeverUndoneAsAWrap) {
  SourceOptions options;
  options.settings["rocm-smi.counter_bits"] = "64";
  auto source = open("wrap", options);
  const std::size_t energy = index_by_id(*source).at("rocm-smi:0:energy");
  EXPECT_NE(source->channels()[energy].provenance_detail.find("64-bit"), std::string::npos);
  const std::vector<Reading> readings = read_times(*source, 2);  // the second read goes back
  EXPECT_FALSE(readings[energy].ok);
  EXPECT_NE(source->read_error(energy).find("a reset"), std::string::npos);

  options.settings["rocm-smi.counter_bits"] = "48";
  auto bad = open("two_gpus", options);
  EXPECT_FALSE(bad->availability().available);
  EXPECT_NE(bad->availability().reason.find("rocm-smi.counter_bits"), std::string::npos);
}

// ROCm SMI hard-codes 15.3 µJ; the amdgpu driver documents 2^-16 J (15.259 µJ) per count.
TEST_F(RocmSmiTest, AGivenResolutionReplacesTheLibrarys) {
  SourceOptions options;
  options.settings["rocm-smi.resolution_uj"] = "15.2587890625";
  auto source = open("two_gpus", options);
  const std::size_t energy = index_by_id(*source).at("rocm-smi:0:energy");
  EXPECT_NE(source->channels()[energy].provenance_detail.find(
                "counts × 15.2587890625 µJ (rocm-smi.resolution_uj; the library returns 15.3 µJ)"),
            std::string::npos)
      << source->channels()[energy].provenance_detail;
  const std::vector<Reading> readings = read_times(*source, 3);
  ASSERT_TRUE(readings[energy].ok) << source->read_error(energy);
  EXPECT_NEAR(readings[energy].value, 2000 * 15.2587890625e-6, 1e-12);

  options.settings["rocm-smi.resolution_uj"] = "-1";
  auto bad = open("two_gpus", options);
  EXPECT_FALSE(bad->availability().available);
  EXPECT_NE(bad->availability().reason.find("rocm-smi.resolution_uj"), std::string::npos)
      << bad->availability().reason;
}

TEST_F(RocmSmiTest, ADeclaredUpdatePeriodBecomesTheNominalPeriod) {
  SourceOptions options;
  options.settings["rocm-smi.update_period_ms"] = "1";
  auto source = open("two_gpus", options);
  const Channel& energy = source->channels()[index_by_id(*source).at("rocm-smi:0:energy")];
  EXPECT_EQ(energy.nominal_period_ns, kNsPerMs);
  EXPECT_NE(energy.provenance_detail.find("updates every 1 ms"), std::string::npos);
}

TEST_F(RocmSmiTest, AFailingCounterFailsItsChannelOnly) {
  auto source = open("energy_fails");
  const auto index = index_by_id(*source);
  const std::size_t energy = index.at("rocm-smi:0:energy");
  std::vector<Reading> readings = read_times(*source, 2);
  ASSERT_TRUE(readings[energy].ok);
  readings = read_times(*source, 1);
  EXPECT_FALSE(readings[energy].ok);
  EXPECT_NE(
      source->read_error(energy).find(
          "rsmi_dev_energy_count_get(device 0) failed: RSMI_STATUS_UNEXPECTED_DATA (code 15)"),
      std::string::npos)
      << source->read_error(energy);
  EXPECT_NE(source->read_error(energy).find(
                "(library: 'Data (usually from reading a file) was not of the type that was "
                "expected')"),
            std::string::npos)
      << "the library's own text";
  EXPECT_TRUE(readings[index.at("rocm-smi:0:power")].ok);
  EXPECT_TRUE(readings[index.at("rocm-smi:1:power")].ok);
}

TEST_F(RocmSmiTest, PermissionErrorsCarryTheRealCodeAndTheFix) {
  auto denied = open("init_permission");
  EXPECT_FALSE(denied->availability().available);
  EXPECT_TRUE(denied->channels().empty());
  EXPECT_NE(denied->availability().reason.find("rsmi_init failed: RSMI_STATUS_PERMISSION (code 4)"),
            std::string::npos)
      << denied->availability().reason;
  EXPECT_NE(denied->availability().reason.find(
                "does not have sufficient permission to execute a command.  Often this is fixed "
                "by running as root (sudo)."),
            std::string::npos);
  EXPECT_NE(denied->availability().fix.find("render and video groups"), std::string::npos);

  // Energy denied, power readable: the GPU falls back to power and the note says why.
  auto energy_denied = open("energy_permission");
  ASSERT_TRUE(energy_denied->availability().available);
  const auto index = index_by_id(*energy_denied);
  EXPECT_FALSE(index.count("rocm-smi:0:energy"));
  EXPECT_TRUE(energy_denied->channels()[index.at("rocm-smi:0:power")].is_top_level());
  EXPECT_NE(energy_denied->availability().reason.find("RSMI_STATUS_PERMISSION"), std::string::npos);
}

TEST_F(RocmSmiTest, InitFailuresAndNoGpuSayWhy) {
  // The library's own printing at a failed rsmi_init does not reach the terminal: the
  // availability says it once.
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  auto no_driver = open("init_error");
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(out.find("Exception caught"), std::string::npos) << out;
  EXPECT_EQ(err.find("drm root directory"), std::string::npos) << err;
  EXPECT_NE(no_driver->availability().reason.find("RSMI_STATUS_INIT_ERROR"), std::string::npos);
  EXPECT_NE(no_driver->availability().fix.find("modprobe amdgpu"), std::string::npos);
  auto none = open("no_gpus");
  EXPECT_FALSE(none->availability().available);
  EXPECT_NE(none->availability().reason.find("no AMD GPU"), std::string::npos);
}

TEST_F(RocmSmiTest, GpusContinueTheNumberingOfTheBackendsBefore) {
  SourceOptions options;
  options.first_gpu_index = 2;  // two NVIDIA GPUs came first
  auto source = open("two_gpus", options);
  const auto index = index_by_id(*source);
  EXPECT_EQ(source->channels()[index.at("rocm-smi:0:energy")].device, "gpu2");
  EXPECT_EQ(source->channels()[index.at("rocm-smi:1:power")].device, "gpu3");
}

TEST_F(RocmSmiTest, ComputeProcessesWithTheirGpus) {
  SourceOptions options;
  options.first_gpu_index = 1;
  auto source = open("two_gpus", options);
  Result<std::vector<RocmComputeProcess>> processes = rocm_compute_processes(*source);
  ASSERT_TRUE(processes.ok()) << processes.error().message();
  ASSERT_EQ(processes->size(), 2U);
  const RocmComputeProcess& first = (*processes)[0];
  EXPECT_EQ(first.pid, 4242U);
  EXPECT_EQ(first.devices, std::vector<std::string>{"gpu1"});
  EXPECT_DOUBLE_EQ(first.cu_occupancy, 0.35);
  EXPECT_EQ(first.vram_bytes, 1073741824U);
  EXPECT_EQ(first.sdma_busy_us, 1500U);
  EXPECT_EQ((*processes)[1].devices, (std::vector<std::string>{"gpu1", "gpu2"}));

  auto other = make_simulated_source(SourceOptions{});
  EXPECT_FALSE(rocm_compute_processes(*other).ok());
  auto unavailable = open("no_gpus");
  EXPECT_FALSE(rocm_compute_processes(*unavailable).ok());
}

// With observed processes, each GPU with energy gets the three busy-time channels that share its
// energy (docs/sharing.md): the fake's pid 4242 occupies 35 % of GPU 0's compute units, 4343 10 %
// of GPU 0 and of GPU 1.
TEST_F(RocmSmiTest, ComputeProcessesOccupancyGivesEachGpuItsBusyTimes) {
  auto observed = ObservedProcesses::process_tree(4242);
  observed->publish({4242});
  SourceOptions options;
  options.observed = observed;
  auto source = open("two_gpus", options);
  ASSERT_TRUE(source->availability().available) << source->availability().reason;
  const auto index = index_by_id(*source);
  for (const char* gpu : {"0", "1"}) {
    for (const char* count : {"observed", "busy", "idle"}) {
      const std::string id = fmt::format("rocm-smi:{}:{}", gpu, count);
      ASSERT_TRUE(index.count(id)) << id;
      const Channel& c = source->channels()[index.at(id)];
      EXPECT_EQ(c.kind, ChannelKind::kBusyTime) << id;
      EXPECT_EQ(c.device, fmt::format("gpu{}", gpu)) << id;
    }
  }
  const Channel& mine = source->channels()[index.at("rocm-smi:0:observed")];
  EXPECT_EQ(mine.domain, "gpu-cu-occupancy");
  EXPECT_NE(mine.provenance_detail.find("rsmi_compute_process_info_get"), std::string::npos);

  // The process list is read at most every 100 ms: two polls that far apart.
  std::vector<Reading> readings(source->channels().size());
  std::this_thread::sleep_for(std::chrono::milliseconds(110));
  source->read(readings);
  std::this_thread::sleep_for(std::chrono::milliseconds(110));
  source->read(readings);
  const auto value = [&](const char* id) {
    const Reading& r = readings[index.at(id)];
    EXPECT_TRUE(r.ok) << id << ": " << source->read_error(index.at(id));
    return r.value;
  };
  const double busy0 = value("rocm-smi:0:busy");
  ASSERT_GT(busy0, 0.0);
  EXPECT_NEAR(value("rocm-smi:0:observed") / busy0, 0.35 / 0.45, 1e-9);
  EXPECT_GT(value("rocm-smi:0:idle"), 0.0);  // 55 % of the time no process kept it busy
  EXPECT_GT(value("rocm-smi:1:busy"), 0.0);
  EXPECT_EQ(value("rocm-smi:1:observed"), 0.0);  // 4242 is not on GPU 1

  // Without observed processes: no such channels.
  EXPECT_EQ(index_by_id(*open("two_gpus")).count("rocm-smi:0:observed"), 0U);
}

TEST_F(RocmSmiTest, ShutDownIsCalledWhenTheSourceGoesAway) {
  void* fake = ::dlopen(FAKE_ROCM_SMI_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(fake, nullptr);
  using Counter = int (*)();
  const auto shutdowns = reinterpret_cast<Counter>(::dlsym(fake, "fake_rocm_smi_shutdown_calls"));
  ASSERT_NE(shutdowns, nullptr);
  const int before = shutdowns();
  open("two_gpus").reset();
  EXPECT_EQ(shutdowns(), before + 1);
  ::dlclose(fake);
}

TEST_F(RocmSmiTest, MissingLibraryNamesThePathAndTheOverride) {
  ::setenv("JOULEPROF_ROCM_SMI_LIBRARY", "/nonexistent/librocm_smi64.so.1", 1);
  auto source = make_rocm_smi_source(SourceOptions{});
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("cannot load /nonexistent/librocm_smi64.so.1"),
            std::string::npos);
  EXPECT_NE(source->availability().fix.find("JOULEPROF_ROCM_SMI_LIBRARY"), std::string::npos);
}

TEST_F(RocmSmiTest, ALibraryThatIsNotRocmSmiIsRejectedByMissingSymbol) {
  ::setenv("JOULEPROF_ROCM_SMI_LIBRARY", "libm.so.6", 1);
  auto source = make_rocm_smi_source(SourceOptions{});
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("has no symbol rsmi_init"), std::string::npos)
      << source->availability().reason;
}

TEST(RocmSmiErrors, EveryDocumentedStatusHasItsOwnNameAndMeaning) {
  std::set<std::string_view> names;
  std::vector<rocm_smi::Status> statuses;
  for (rocm_smi::Status status = 0; status <= 0x11; ++status) statuses.push_back(status);
  statuses.push_back(rocm_smi::kUnknownError);
  for (rocm_smi::Status status : statuses) {
    const auto description = rocm_smi::describe_error(status);
    EXPECT_FALSE(description.meaning.empty()) << status;
    EXPECT_TRUE(names.insert(description.name).second) << "duplicate name for " << status;
    EXPECT_NE(description.name.find("RSMI_STATUS_"), std::string_view::npos);
  }
  EXPECT_NE(rocm_smi::describe_error(0x1234).name.find("unrecognised"), std::string_view::npos);
}

}  // namespace
}  // namespace jouleprof
