#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "sources/backends.hpp"
#include "sources/nvml_api.hpp"

namespace jouleprof {
namespace {

// Points the backend at the fake library and picks its scenario (see fake_nvml/fake_nvml.c).
class NvmlTest : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("JOULEPROF_NVML_LIBRARY", FAKE_NVML_PATH, 1); }
  void TearDown() override {
    ::unsetenv("JOULEPROF_NVML_LIBRARY");
    ::unsetenv("FAKE_NVML_SCENARIO");
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
  EXPECT_EQ(energy.nominal_period_ns, 100 * kNsPerMs);
  EXPECT_NE(energy.provenance_detail.find("NVIDIA gpu 0 (Fake H200"), std::string::npos);
  EXPECT_NE(energy.provenance_detail.find("GPU-00000000-fake"), std::string::npos);
  EXPECT_NE(source->channels()[index.at("nvml:1:power")].provenance_detail.find("trapezoid"),
            std::string::npos);
  EXPECT_EQ(source->channels()[index.at("nvml:0:power")].provenance_detail.find("trapezoid"),
            std::string::npos);
  EXPECT_GE(source->default_period_ns(), 10 * kNsPerMs);  // never poll a 4 ms read faster
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
