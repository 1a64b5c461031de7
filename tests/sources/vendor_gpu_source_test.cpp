#include "sources/vendor_gpu_source.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <memory>
#include <string>
#include <vector>

#include "jouleprof/observed_processes.hpp"

namespace jouleprof {
namespace {

using Unary = double (*)(double);

// A vendor whose "library" is libm and whose status codes are explained by number.
constexpr VendorGpuBackend kTestBackend{"test-gpu", "device", 20 * kNsPerMs,
                                        VendorLibrary{"JOULEPROF_TEST_GPU_LIBRARY", "libm.so.6",
                                                      "install libm", "not libm", "update libm"}};

class TestGpuSource final : public VendorGpuSource {
 public:
  explicit TestGpuSource(const SourceOptions& options) : VendorGpuSource(kTestBackend, options) {}

  using VendorGpuSource::activities_;
  using VendorGpuSource::channels_;
  using VendorGpuSource::describe;
  using VendorGpuSource::due_activity_poll;
  using VendorGpuSource::fail_call;
  using VendorGpuSource::finish_discovery;
  using VendorGpuSource::label_channels;
  using VendorGpuSource::load;
  using VendorGpuSource::make_channel;
  using VendorGpuSource::note;
  using VendorGpuSource::note_failure;
  using VendorGpuSource::read_activity;
  using VendorGpuSource::start_activity;

  void read(std::span<Reading>) override {}
  std::string read_error(std::size_t) const override { return ""; }

 private:
  std::string explain(std::int64_t code) const override {
    return fmt::format("TEST_STATUS_{} (code {})", code, code);
  }
  VendorErrorDescription describe_error(std::int64_t code) const override {
    return {"TEST_STATUS", "a test status", code == 1 ? "fix one" : "fix other"};
  }
};

// Another backend, for a source that is not it.
class ChildGpuSource final : public VendorGpuSource {
 public:
  ChildGpuSource() : VendorGpuSource(kTestBackend, SourceOptions{}) {}
  void read(std::span<Reading>) override {}
  std::string read_error(std::size_t) const override { return ""; }

 private:
  std::string explain(std::int64_t) const override { return ""; }
  VendorErrorDescription describe_error(std::int64_t) const override { return {}; }
};

SourceOptions numbered_from(std::size_t first_gpu_index) {
  SourceOptions options;
  options.first_gpu_index = first_gpu_index;
  return options;
}

TEST(VendorGpuSource, TheBackendNamesItsSourceChannelsAndFailedCalls) {
  TestGpuSource source(numbered_from(2));
  EXPECT_EQ(source.name(), "test-gpu");
  EXPECT_EQ(source.default_period_ns(), 20 * kNsPerMs);
  const Channel channel =
      source.make_channel(1, "energy", ChannelKind::kEnergyCounter, "how", "", 100 * kNsPerMs);
  EXPECT_EQ(channel.id, "test-gpu:1:energy");
  EXPECT_EQ(channel.source, "test-gpu");
  EXPECT_EQ(channel.device, "gpu3");  // the library's index 1 after the 2 GPUs of other sources
  EXPECT_EQ(channel.domain, "gpu");
  EXPECT_EQ(channel.provenance, Provenance::kMeasured);
  EXPECT_EQ(channel.provenance_detail, "how");
  EXPECT_EQ(channel.nominal_period_ns, 100 * kNsPerMs);
  EXPECT_EQ(source.describe("vendorRead", 1, 7),
            "vendorRead(device 1) failed: TEST_STATUS_7 (code 7)");
  EXPECT_EQ(source.describe("vendorInit", 7), "vendorInit failed: TEST_STATUS_7 (code 7)");
}

TEST(VendorGpuSource, UnavailableUntilTheDiscoveryFindsEnergy) {
  ::unsetenv("JOULEPROF_TEST_GPU_LIBRARY");
  TestGpuSource source(SourceOptions{});
  Unary cosine = nullptr;
  ASSERT_TRUE(source.load([&](FunctionBinder& bind) { bind.required(cosine, "cos"); }));
  EXPECT_FALSE(source.availability().available);  // bound, but nothing found yet
  EXPECT_NE(cosine, nullptr);

  source.channels_.push_back(
      source.make_channel(0, "energy", ChannelKind::kEnergyCounter, "", "", 0));
  source.channels_.push_back(
      source.make_channel(0, "temperature", ChannelKind::kTemperature, "", "", 0));
  source.label_channels(1, "Fake GPU");
  EXPECT_EQ(source.channels()[0].label, "");
  EXPECT_EQ(source.channels()[1].label, "Fake GPU");
  source.note("gpu 1 reports neither energy nor power");
  source.note_failure("vendorRead", 2, 1);
  ASSERT_TRUE(source.finish_discovery());
  EXPECT_TRUE(source.availability().available);
  EXPECT_EQ(source.availability().reason,
            "gpu 1 reports neither energy nor power; vendorRead(device 2) failed: TEST_STATUS_1 "
            "(code 1)");
  EXPECT_EQ(source.availability().fix, "");
}

TEST(VendorGpuSource, ATemperatureAloneIsNoSourceAndTheFirstFailedCallSaysWhatToDo) {
  TestGpuSource source(SourceOptions{});
  ASSERT_TRUE(source.load([](FunctionBinder&) {}));
  source.channels_.push_back(
      source.make_channel(0, "temperature", ChannelKind::kTemperature, "", "", 0));
  source.note_failure("vendorEnergy", 0, 1);
  source.note_failure("vendorPower", 0, 2);
  EXPECT_FALSE(source.finish_discovery());
  EXPECT_FALSE(source.availability().available);
  EXPECT_EQ(source.availability().reason,
            "no GPU could be read: vendorEnergy(device 0) failed: TEST_STATUS_1 (code 1); "
            "vendorPower(device 0) failed: TEST_STATUS_2 (code 2)");
  EXPECT_EQ(source.availability().fix, "fix one");
  EXPECT_TRUE(source.channels().empty());
}

TEST(VendorGpuSource, AFailedCallOrALibraryWithoutTheFunctionsMakesItUnavailable) {
  TestGpuSource initialised(SourceOptions{});
  initialised.fail_call("vendorInit", 2);
  EXPECT_FALSE(initialised.availability().available);
  EXPECT_EQ(initialised.availability().reason, "vendorInit failed: TEST_STATUS_2 (code 2)");
  EXPECT_EQ(initialised.availability().fix, "fix other");

  TestGpuSource lacking(SourceOptions{});
  Unary init = nullptr;
  EXPECT_FALSE(lacking.load([&](FunctionBinder& bind) { bind.required(init, "vendorInit"); }));
  EXPECT_EQ(lacking.availability().reason, "libm.so.6 has no symbol vendorInit: not libm");
  EXPECT_EQ(lacking.availability().fix,
            "update libm, or point JOULEPROF_TEST_GPU_LIBRARY at its libm.so.6");
}

TEST(VendorGpuSource, ActivityIsPolledAtMostEveryPeriodAndReadWithItsError) {
  SourceOptions options = numbered_from(1);
  options.observed = ObservedProcesses::process_tree(4242);
  options.observed->publish({4242});
  TestGpuSource source(options);
  EXPECT_FALSE(source.due_activity_poll(0).has_value());  // no GPU counts activity yet

  const std::vector<ActivityChannel> channels = source.start_activity(0, "gpu-sole-user", "how");
  ASSERT_EQ(channels.size(), 3U);
  EXPECT_EQ(channels[0].channel.id, "test-gpu:0:observed");
  EXPECT_EQ(channels[0].channel.domain, "gpu-sole-user");
  EXPECT_EQ(channels[0].channel.device, "gpu1");
  EXPECT_EQ(channels[0].channel.kind, ChannelKind::kBusyTime);
  EXPECT_EQ(channels[0].count, GpuActivityCount::kObservedBusy);
  EXPECT_EQ(channels[1].channel.domain, "busy");
  EXPECT_EQ(channels[2].channel.domain, "idle");
  EXPECT_EQ(channels[0].activity, 0U);

  EXPECT_FALSE(source.due_activity_poll(kNsPerS * 3600).has_value());
  source.activities_[0].error = "the poll failed";
  const std::optional<ActivityPoll> poll = source.due_activity_poll(0);
  ASSERT_TRUE(poll.has_value());
  EXPECT_EQ(poll->observed, (std::vector<pid_t>{4242}));
  EXPECT_GE(poll->elapsed_s, 0.0);
  EXPECT_EQ(source.activities_[0].error, "");  // cleared for the new poll

  const std::vector<pid_t> holders = {4242};
  source.activities_[0].counts.add_holders(poll->now_ns, 0.5, holders, poll->observed);
  Reading reading;
  std::string read_error;
  ASSERT_TRUE(source.read_activity(0, GpuActivityCount::kObservedBusy, reading, read_error));
  EXPECT_DOUBLE_EQ(reading.value, 0.5);
  EXPECT_EQ(reading.t_ns, poll->now_ns);
  source.activities_[0].error = "gpu 0 is shared";
  EXPECT_FALSE(source.read_activity(0, GpuActivityCount::kObservedBusy, reading, read_error));
  EXPECT_EQ(read_error, "gpu 0 is shared");
}

TEST(VendorGpuSource, ABackendsOwnOfferNeedsThatBackendAvailable) {
  TestGpuSource source(SourceOptions{});
  const Result<const TestGpuSource*> unavailable =
      as_vendor_backend<TestGpuSource>(source, "test-gpu", "test processes");
  ASSERT_FALSE(unavailable.ok());
  EXPECT_EQ(unavailable.error().code(), ErrorCode::kUnavailable);
  EXPECT_EQ(unavailable.error().message().find("test-gpu is not available here: "), 0U);

  ASSERT_TRUE(source.load([](FunctionBinder&) {}));
  source.channels_.push_back(
      source.make_channel(0, "energy", ChannelKind::kEnergyCounter, "", "", 0));
  ASSERT_TRUE(source.finish_discovery());
  const Result<const TestGpuSource*> available =
      as_vendor_backend<TestGpuSource>(source, "test-gpu", "test processes");
  ASSERT_TRUE(available.ok());
  EXPECT_EQ(*available, &source);

  const Result<const ChildGpuSource*> other =
      as_vendor_backend<ChildGpuSource>(source, "child-gpu", "child processes");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(other.error().message(),
            "test-gpu is not a child-gpu source: child processes come only from one");
}

}  // namespace
}  // namespace jouleprof
