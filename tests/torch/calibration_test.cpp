#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "jouleprof/recorder.hpp"
#include "jouleprof/source.hpp"
#include "jouleprof/torch.hpp"
#include "test_support.hpp"

namespace jouleprof::torch_adapter {
namespace {

// A CPU energy counter that rises at exactly `watts` (the clock is the real monotonic clock).
class ConstantPowerSource : public Source {
 public:
  explicit ConstantPowerSource(double watts) : watts_(watts), origin_ns_(monotonic_now_ns()) {
    Channel c;
    c.id = "fake:package-0";
    c.source = "fake";
    c.device = "cpu0";
    c.domain = "package";
    c.kind = ChannelKind::kEnergyCounter;
    c.provenance = Provenance::kSimulated;
    channels_.push_back(c);
    Channel nested = c;  // nested channels must not be counted twice
    nested.id = "fake:core-0";
    nested.domain = "core";
    nested.parent_id = c.id;
    channels_.push_back(nested);
  }
  std::string_view name() const override { return "fake"; }
  Availability availability() const override { return {true, "", ""}; }
  const std::vector<Channel>& channels() const override { return channels_; }
  void read(std::span<Reading> out) override {
    const TimeNs now = monotonic_now_ns();
    for (auto& r : out) r = Reading{now, watts_ * ns_to_s(now - origin_ns_), true};
  }
  std::string read_error(std::size_t) const override { return ""; }
  TimeNs default_period_ns() const override { return kNsPerMs; }

 private:
  double watts_;
  TimeNs origin_ns_;
  std::vector<Channel> channels_;
};

std::vector<CapturedOp> capture_small_step() {
  torch::manual_seed(5);
  torch::nn::Linear linear(8, 4);
  const torch::Tensor x = torch::randn({16, 8});
  ObserverOptions options;
  options.record_shapes = true;
  Observer observer(options);
  observer.clear_captured();
  Recorder::global().start();
  EXPECT_TRUE(observer.start().ok());
  {
    torch::NoGradGuard no_grad;
    torch::relu(linear(x));
  }
  observer.stop();
  Recorder::global().stop();
  return observer.captured_ops();
}

CalibrationOptions quick() {
  CalibrationOptions o;
  o.min_replay_ns = 30 * kNsPerMs;
  o.idle_ns = 30 * kNsPerMs;
  o.read_period_ns = 2 * kNsPerMs;
  return o;
}

TEST(Calibration, ReplaysEachClassAndIntegratesTheTopLevelChannel) {
  const auto ops = capture_small_step();
  ConstantPowerSource source(42.0);
  auto calibration = calibrate(ops, source, quick());
  ASSERT_TRUE(calibration.ok()) << calibration.error().message();
  EXPECT_EQ(calibration->channel_ids, std::vector<std::string>{"fake:package-0"});
  EXPECT_EQ(calibration->provenance, "simulated");
  EXPECT_NEAR(calibration->idle_power_w, 42.0, 1e-6);
  for (const std::string op_class : {"aten::addmm", "aten::relu", "aten::t"}) {
    const ClassCalibration* c = calibration->find(op_class);
    ASSERT_NE(c, nullptr) << op_class;
    EXPECT_NEAR(c->power_w, 42.0, 1e-6) << op_class;
    EXPECT_NEAR(c->dynamic_power_w, 0.0, 1e-6) << op_class;
    EXPECT_GE(c->duration_s, 0.030) << op_class;
    EXPECT_GT(c->iterations, 0u) << op_class;
  }
  EXPECT_EQ(calibration->find("aten::relu")->signature, "f32[16,4]");
}

TEST(Calibration, LimitsTheNumberOfClassesAndSaysWhichWereSkipped) {
  const auto ops = capture_small_step();
  ConstantPowerSource source(10.0);
  CalibrationOptions o = quick();
  o.max_classes = 1;
  auto calibration = calibrate(ops, source, o);
  ASSERT_TRUE(calibration.ok()) << calibration.error().message();
  EXPECT_EQ(calibration->classes.size(), 1u);
  EXPECT_FALSE(calibration->skipped.empty());
}

TEST(Calibration, NeedsAChannelOfTheDevice) {
  ConstantPowerSource source(10.0);
  CalibrationOptions o = quick();
  o.device = "cuda";
  auto calibration = calibrate({}, source, o);
  ASSERT_FALSE(calibration.ok());
  EXPECT_NE(calibration.error().message().find("gpu"), std::string::npos);
}

TEST(CalibrationJson, RoundTrips) {
  Calibration c;
  c.device = "cpu";
  c.model = "bert-mini L=4";
  c.method = "plain timed loop with idle subtraction";
  c.channel_ids = {"rapl:package-0"};
  c.provenance = "measured";
  c.idle_power_w = 7.5;
  c.classes.push_back({"aten::addmm", 31.0, 23.5, 0.3, 1200, "f32[256], f32[8,256], f32[256,256], 1, 1"});
  c.skipped = {"aten::index: argument 1 is a GenericList"};
  testing::TempDir dir;
  const std::string path = (dir.path() / "calibration.json").string();
  ASSERT_TRUE(write_calibration_json(c, path).ok());
  auto back = read_calibration_json(path);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->device, "cpu");
  EXPECT_EQ(back->model, c.model);
  EXPECT_EQ(back->channel_ids, c.channel_ids);
  EXPECT_DOUBLE_EQ(back->idle_power_w, 7.5);
  ASSERT_EQ(back->classes.size(), 1u);
  EXPECT_EQ(back->classes[0].op_class, "aten::addmm");
  EXPECT_DOUBLE_EQ(back->classes[0].power_w, 31.0);
  EXPECT_EQ(back->classes[0].iterations, 1200u);
  EXPECT_EQ(back->classes[0].signature, c.classes[0].signature);
  EXPECT_EQ(back->skipped, c.skipped);
}

TEST(CalibrationJson, NamesTheBadField) {
  testing::TempDir dir;
  const auto path = dir.write("bad.json",
                              R"({"format": "jouleprof-calibration", "version": 1, "device": "cpu",
                                  "model": "m", "method": "x", "channels": [], "provenance": "measured",
                                  "idle_w": 1.0, "skipped": [],
                                  "classes": [{"match": "aten::mm", "power_w": "hot"}]})");
  auto read = read_calibration_json(path.string());
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message().find("classes[0].power_w"), std::string::npos)
      << read.error().message();
  EXPECT_NE(read.error().message().find("bad.json"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof::torch_adapter
