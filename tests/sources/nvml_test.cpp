#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "jouleprof/monitor.hpp"
#include "sources/backends.hpp"
#include "sources/nvml_api.hpp"

namespace jouleprof {
namespace {

// Points the backend at the fake library and picks its scenario (see fake_nvml/fake_nvml.c).
class NvmlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("JOULEPROF_NVML_LIBRARY", FAKE_NVML_PATH, 1);
    ::unsetenv("CUDA_VISIBLE_DEVICES");  // the machine's own must not change the fake's GPUs
  }
  void TearDown() override {
    ::unsetenv("CUDA_VISIBLE_DEVICES");
    ::unsetenv("JOULEPROF_NVML_LIBRARY");
    ::unsetenv("FAKE_NVML_SCENARIO");
    ::unsetenv("FAKE_NVML_PROCESSES");
  }
  // With observed processes: the per-process activity channels (every read asks NVML).
  static std::unique_ptr<Source> open_observed(const char* scenario, const char* processes,
                                               std::shared_ptr<ObservedProcesses> observed) {
    ::setenv("FAKE_NVML_SCENARIO", scenario, 1);
    ::setenv("FAKE_NVML_PROCESSES", processes, 1);
    SourceOptions options;
    options.observed = std::move(observed);
    options.settings["nvml.process_poll_ms"] = "0";
    return make_nvml_source(options);
  }
  static std::unique_ptr<Source> open(const char* scenario) {
    ::setenv("FAKE_NVML_SCENARIO", scenario, 1);
    return make_nvml_source(SourceOptions{});
  }
};

std::map<std::string, std::size_t> index_by_id(const Source& source) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < source.channels().size(); ++i) index[source.channels()[i].id] = i;
  return index;
}

// A job on the second GPU only (CUDA_VISIBLE_DEVICES=1, as Slurm sets it) sees it as its device
// 0: only that GPU is measured, on the device its trace names (gpu0), its id still NVML's.
TEST_F(NvmlTest, OnlyTheGpusTheJobCanSeeAreMeasuredUnderItsNumbers) {
  ::setenv("CUDA_VISIBLE_DEVICES", "1", 1);
  auto source = open("two_gpus");
  ASSERT_TRUE(source->availability().available) << source->availability().reason;
  for (const Channel& channel : source->channels()) {
    EXPECT_TRUE(channel.id.starts_with("nvml:1:")) << channel.id;
    EXPECT_EQ(channel.device, "gpu0") << channel.id;
  }
  EXPECT_NE(index_by_id(*source).count("nvml:1:power"), 0u);
  EXPECT_NE(source->availability().reason.find("CUDA_VISIBLE_DEVICES='1': the job sees 1 of the 2 "
                                               "GPUs (gpu 1 as device 0)"),
            std::string::npos)
      << source->availability().reason;
  // By UUID prefix, in the list's order.
  ::setenv("CUDA_VISIBLE_DEVICES", "GPU-1111, GPU-0000", 1);
  source = open("two_gpus");
  const auto by_uuid = index_by_id(*source);
  EXPECT_EQ(source->channels()[by_uuid.at("nvml:1:power")].device, "gpu0");
  EXPECT_EQ(source->channels()[by_uuid.at("nvml:0:energy")].device, "gpu1");
  // As CUDA: an entry that names no GPU ends the list.
  ::setenv("CUDA_VISIBLE_DEVICES", "0,7,1", 1);
  source = open("two_gpus");
  EXPECT_EQ(index_by_id(*source).count("nvml:1:power"), 0u);
  EXPECT_NE(source->availability().reason.find("the entry '7' names no GPU"), std::string::npos)
      << source->availability().reason;
  // An empty list hides every GPU: nothing of this job's to measure.
  ::setenv("CUDA_VISIBLE_DEVICES", "", 1);
  source = open("two_gpus");
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("sees 0 of the 2 GPUs"), std::string::npos)
      << source->availability().reason;
  EXPECT_NE(source->availability().fix.find("CUDA_VISIBLE_DEVICES"), std::string::npos);
}

TEST_F(NvmlTest, EnergyCounterWhereSupportedPowerFallbackElsewhere) {
  auto source = open("two_gpus");
  ASSERT_TRUE(source->availability().available) << source->availability().reason;
  EXPECT_EQ(source->name(), "nvml");
  EXPECT_EQ(source->availability().reason, "");  // NOT_SUPPORTED energy is expected, not a note
  const auto index = index_by_id(*source);
  const std::map<std::string, std::pair<ChannelKind, std::string>> expected = {
      {"nvml:0:energy", {ChannelKind::kEnergyCounter, ""}},
      {"nvml:0:power", {ChannelKind::kPower, "nvml:0:energy"}},
      {"nvml:0:power-instant", {ChannelKind::kPower, "nvml:0:energy"}},
      {"nvml:0:power-average", {ChannelKind::kPower, "nvml:0:energy"}},
      {"nvml:0:temperature", {ChannelKind::kTemperature, ""}},
      {"nvml:1:power", {ChannelKind::kPower, ""}},
      {"nvml:1:power-average", {ChannelKind::kPower, "nvml:1:power"}},
      {"nvml:1:temperature", {ChannelKind::kTemperature, ""}}};
  ASSERT_EQ(index.size(), expected.size());
  for (const auto& [id, kind_and_parent] : expected) {
    ASSERT_TRUE(index.count(id)) << id;
    const Channel& channel = source->channels()[index.at(id)];
    EXPECT_EQ(channel.kind, kind_and_parent.first) << id;
    EXPECT_EQ(channel.parent_id, kind_and_parent.second) << id;
    EXPECT_EQ(channel.source, "nvml");
    EXPECT_EQ(channel.domain, "gpu");
    EXPECT_EQ(channel.provenance, Provenance::kMeasured);
  }
  const Channel& energy = source->channels()[index.at("nvml:0:energy")];
  EXPECT_EQ(energy.device, "gpu0");
  EXPECT_EQ(energy.label, "Fake H200");
  EXPECT_EQ(source->channels()[index.at("nvml:1:power")].label, "Fake P100");
  EXPECT_EQ(energy.nominal_period_ns, 100 * kNsPerMs);
  EXPECT_NE(energy.provenance_detail.find("NVIDIA gpu 0 (Fake H200"), std::string::npos);
  EXPECT_NE(energy.provenance_detail.find("GPU-00000000-fake"), std::string::npos);
  EXPECT_NE(source->channels()[index.at("nvml:1:power")].provenance_detail.find("trapezoid"),
            std::string::npos);
  EXPECT_EQ(source->channels()[index.at("nvml:0:power")].provenance_detail.find("trapezoid"),
            std::string::npos);
  EXPECT_GE(source->default_period_ns(), 10 * kNsPerMs);  // never poll a 4 ms read faster
}

// NVML's board power is a 1 s moving average from Ampere on (the fake's gpu 0, a Hopper), an
// instant's before (gpu 1, a Pascal); the other channels are no averages.
TEST_F(NvmlTest, TheBoardPowerOfAnAmpereOrNewerIsAOneSecondAverage) {
  auto source = open("two_gpus");
  const auto index = index_by_id(*source);
  EXPECT_EQ(source->channels()[index.at("nvml:0:power")].averaging_ns, kNsPerS);
  EXPECT_EQ(source->channels()[index.at("nvml:1:power")].averaging_ns, 0);
  EXPECT_EQ(source->channels()[index.at("nvml:0:energy")].averaging_ns, 0);
  EXPECT_EQ(source->channels()[index.at("nvml:0:power-instant")].averaging_ns, 0);
}

TEST_F(NvmlTest, ReadingsAreConvertedToJoulesWattsAndCelsius) {
  auto source = open("two_gpus");
  const auto index = index_by_id(*source);
  std::vector<Reading> readings(source->channels().size());
  source->read(readings);
  for (std::size_t i = 0; i < readings.size(); ++i) {
    EXPECT_TRUE(readings[i].ok) << source->channels()[i].id << ": " << source->read_error(i);
  }
  EXPECT_EQ(readings[index.at("nvml:0:energy")].value, 0.0);  // first read is the baseline
  source->read(readings);
  source->read(readings);
  EXPECT_DOUBLE_EQ(readings[index.at("nvml:0:energy")].value, 0.5);  // 2 × 250 mJ
  EXPECT_DOUBLE_EQ(readings[index.at("nvml:0:power")].value, 300.0);
  EXPECT_DOUBLE_EQ(readings[index.at("nvml:0:power-instant")].value, 310.5);
  EXPECT_DOUBLE_EQ(readings[index.at("nvml:0:power-average")].value, 295.25);
  EXPECT_DOUBLE_EQ(readings[index.at("nvml:1:power")].value, 150.0);
  EXPECT_DOUBLE_EQ(readings[index.at("nvml:1:power-average")].value, 149.0);
  EXPECT_DOUBLE_EQ(readings[index.at("nvml:0:temperature")].value, 45.0);
  EXPECT_DOUBLE_EQ(readings[index.at("nvml:1:temperature")].value, 52.0);
  EXPECT_GT(readings[0].t_ns, 0);
}

TEST_F(NvmlTest, GpusWithoutCounterOrFieldsFallBackToPower) {
  auto source = open("old_gpus");
  ASSERT_TRUE(source->availability().available);
  const auto index = index_by_id(*source);
  EXPECT_EQ(index.size(), 4u);
  EXPECT_TRUE(source->channels()[index.at("nvml:0:power")].is_top_level());
  EXPECT_TRUE(source->channels()[index.at("nvml:1:power")].is_top_level());
  EXPECT_FALSE(index.count("nvml:0:energy"));
}

TEST_F(NvmlTest, GpuLostMidRunFailsItsChannelsOnly) {
  auto source = open("gpu_lost");
  const auto index = index_by_id(*source);
  std::vector<Reading> readings(source->channels().size());
  source->read(readings);
  source->read(readings);
  ASSERT_TRUE(readings[index.at("nvml:0:energy")].ok);
  source->read(readings);
  const std::size_t energy = index.at("nvml:0:energy");
  EXPECT_FALSE(readings[energy].ok);
  EXPECT_NE(source->read_error(energy).find("NVML_ERROR_GPU_IS_LOST"), std::string::npos)
      << source->read_error(energy);
  EXPECT_NE(source->read_error(energy).find("GPU is lost"), std::string::npos);  // driver's text
  source->read(readings);  // the field call of this read comes after the GPU was lost
  EXPECT_FALSE(readings[index.at("nvml:0:power-instant")].ok);
  EXPECT_FALSE(readings[index.at("nvml:0:temperature")].ok);
  EXPECT_TRUE(readings[index.at("nvml:1:power")].ok);
}

TEST_F(NvmlTest, InitFailuresSayWhyAndWhatToDo) {
  auto denied = open("init_no_permission");
  EXPECT_FALSE(denied->availability().available);
  EXPECT_TRUE(denied->channels().empty());
  EXPECT_NE(denied->availability().reason.find("nvmlInit_v2 failed: NVML_ERROR_NO_PERMISSION"),
            std::string::npos)
      << denied->availability().reason;
  EXPECT_NE(denied->availability().fix.find("/dev/nvidia"), std::string::npos);

  auto no_driver = open("driver_not_loaded");
  EXPECT_NE(no_driver->availability().reason.find("NVML_ERROR_DRIVER_NOT_LOADED"),
            std::string::npos);
  EXPECT_NE(no_driver->availability().fix.find("modprobe nvidia"), std::string::npos);

  auto none = open("no_gpus");
  EXPECT_FALSE(none->availability().available);
  EXPECT_NE(none->availability().reason.find("no NVIDIA GPU"), std::string::npos);
}

TEST_F(NvmlTest, GpusContinueTheNumberingOfTheBackendsBefore) {
  ::setenv("FAKE_NVML_SCENARIO", "two_gpus", 1);
  SourceOptions options;
  options.first_gpu_index = 4;
  auto source = make_nvml_source(options);
  const auto index = index_by_id(*source);
  EXPECT_EQ(source->channels()[index.at("nvml:0:energy")].device, "gpu4");
  EXPECT_EQ(source->channels()[index.at("nvml:1:power")].device, "gpu5");
}

TEST_F(NvmlTest, ShutdownIsCalledWhenTheSourceGoesAway) {
  void* fake = ::dlopen(FAKE_NVML_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(fake, nullptr);
  using Counter = int (*)();
  const auto shutdown_calls = reinterpret_cast<Counter>(::dlsym(fake, "fake_nvml_shutdown_calls"));
  ASSERT_NE(shutdown_calls, nullptr);
  const int before = shutdown_calls();
  open("two_gpus").reset();
  EXPECT_EQ(shutdown_calls(), before + 1);
  ::dlclose(fake);
}

TEST_F(NvmlTest, MissingLibraryNamesThePathAndTheOverride) {
  ::setenv("JOULEPROF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  auto source = make_nvml_source(SourceOptions{});
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("cannot load /nonexistent/libnvidia-ml.so.1"),
            std::string::npos);
  EXPECT_NE(source->availability().fix.find("JOULEPROF_NVML_LIBRARY"), std::string::npos);
}

TEST_F(NvmlTest, ALibraryThatIsNotNvmlIsRejectedByMissingSymbol) {
  ::setenv("JOULEPROF_NVML_LIBRARY", "libm.so.6", 1);
  auto source = make_nvml_source(SourceOptions{});
  EXPECT_FALSE(source->availability().available);
  EXPECT_NE(source->availability().reason.find("has no symbol nvmlInit_v2"), std::string::npos)
      << source->availability().reason;
}

TEST_F(NvmlTest, ObservedProcessesGetTheirShareOfEachGpusBusyTime) {
  auto observed = ObservedProcesses::process_tree(4242);
  observed->publish({4242});
  auto source = open_observed("two_gpus", "4242:75,4343:25", observed);
  ASSERT_TRUE(source->availability().available) << source->availability().reason;
  const auto index = index_by_id(*source);
  ASSERT_TRUE(index.count("nvml:0:observed"));
  const Channel& mine = source->channels()[index.at("nvml:0:observed")];
  EXPECT_EQ(mine.kind, ChannelKind::kBusyTime);
  EXPECT_EQ(mine.domain, "gpu-utilisation");
  EXPECT_EQ(mine.device, "gpu0");
  EXPECT_EQ(source->channels()[index.at("nvml:0:busy")].domain, "busy");
  EXPECT_EQ(source->channels()[index.at("nvml:1:idle")].domain, "idle");
  std::vector<Reading> readings(source->channels().size());
  for (int i = 0; i < 4; ++i) source->read(readings);
  for (std::size_t i = 0; i < readings.size(); ++i) {
    EXPECT_TRUE(readings[i].ok) << source->channels()[i].id << ": " << source->read_error(i);
  }
  const double observed_s = readings[index.at("nvml:0:observed")].value;
  const double busy_s = readings[index.at("nvml:0:busy")].value;
  ASSERT_GT(busy_s, 0.0);
  EXPECT_DOUBLE_EQ(observed_s / busy_s, 0.75);
  EXPECT_EQ(readings[index.at("nvml:1:busy")].value, 0.0);  // gpu 1 runs nothing
}

TEST_F(NvmlTest, WithoutProcessUtilisationTheSoleUserGetsEverything) {
  auto observed = ObservedProcesses::process_tree(4242);
  observed->publish({4242});
  auto alone = open_observed("no_process_utilisation", "4242:75", observed);
  const auto index = index_by_id(*alone);
  EXPECT_EQ(alone->channels()[index.at("nvml:0:observed")].domain, "gpu-sole-user");
  std::vector<Reading> readings(alone->channels().size());
  alone->read(readings);
  alone->read(readings);
  ASSERT_TRUE(readings[index.at("nvml:0:observed")].ok)
      << alone->read_error(index.at("nvml:0:observed"));
  EXPECT_GT(readings[index.at("nvml:0:busy")].value, 0.0);
  EXPECT_EQ(readings[index.at("nvml:0:observed")].value, readings[index.at("nvml:0:busy")].value);
  alone.reset();

  auto shared = open_observed("no_process_utilisation", "4242:75,4343:25", observed);
  readings.assign(shared->channels().size(), Reading{});
  shared->read(readings);
  const std::size_t mine = index_by_id(*shared).at("nvml:0:observed");
  EXPECT_FALSE(readings[mine].ok);
  EXPECT_NE(shared->read_error(mine).find("4343"), std::string::npos) << shared->read_error(mine);
  EXPECT_NE(shared->read_error(mine).find("unknown"), std::string::npos);
}

TEST_F(NvmlTest, MigGpusAreNotAttributablePerProcessAndSaySo) {
  auto source = open_observed("mig", "4242:75", ObservedProcesses::process_tree(4242));
  ASSERT_TRUE(source->availability().available);
  const auto index = index_by_id(*source);
  EXPECT_FALSE(index.count("nvml:0:observed"));
  EXPECT_TRUE(index.count("nvml:1:observed"));
  EXPECT_NE(source->availability().reason.find("MIG is enabled"), std::string::npos)
      << source->availability().reason;
  EXPECT_NE(source->availability().reason.find("not attributable per process"), std::string::npos);
}

// The known answer: two processes at 75 % and 25 % SM get 75 % and 25 % of the GPU's
// energy, measured through the monitor and shared by the attributor.
TEST_F(NvmlTest, TwoProcessesAt75And25PercentSmGetThoseSharesOfTheEnergy) {
  for (const auto& [pid, expected] :
       std::vector<std::pair<pid_t, double>>{{4242, 0.75}, {4343, 0.25}}) {
    auto observed = ObservedProcesses::process_tree(pid);
    observed->publish({pid});
    std::vector<std::unique_ptr<Source>> sources;
    sources.push_back(open_observed("two_gpus", "4242:75,4343:25", observed));
    MonitorOptions options;
    options.sources.observed = observed;
    options.interval_ns = 5 * kNsPerMs;
    auto monitor = Monitor::from_sources(std::move(sources), options);
    ASSERT_TRUE(monitor->start().ok());
    ::usleep(300'000);
    const Profile profile = monitor->stop();
    const ChannelSummary* gpu = nullptr;
    for (const ChannelSummary& c : profile.channels) {
      if (c.channel_id == "nvml:0:energy") gpu = &c;
    }
    ASSERT_NE(gpu, nullptr);
    ASSERT_GT(gpu->energy_j, 0.0);
    ASSERT_TRUE(gpu->process.has_value()) << "pid " << pid;
    EXPECT_NEAR(gpu->process->share, expected, 0.01) << "pid " << pid;
    EXPECT_EQ(gpu->process->rule, "gpu-utilisation");
    EXPECT_NEAR(*gpu->process->others_activity_share, 1.0 - expected, 1e-9);
  }
}

TEST(NvmlErrors, EveryDocumentedCodeHasItsOwnNameAndMeaning) {
  std::set<std::string_view> names;
  std::vector<nvml::Return> codes;
  for (nvml::Return code = 0; code <= 29; ++code) codes.push_back(code);
  codes.push_back(nvml::kErrorUnknown);
  for (nvml::Return code : codes) {
    const auto description = nvml::describe_error(code);
    EXPECT_FALSE(description.meaning.empty()) << code;
    EXPECT_TRUE(names.insert(description.name).second) << "duplicate name for " << code;
    EXPECT_NE(description.name.find("NVML_"), std::string_view::npos);
  }
  EXPECT_NE(nvml::describe_error(12345).name.find("unrecognised"), std::string_view::npos);
}

}  // namespace
}  // namespace jouleprof
