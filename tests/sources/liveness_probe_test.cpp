#include "sources/liveness_probe.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sources/manual_probe_clock.hpp"

namespace jouleprof {
namespace {

using ::jouleprof::testing::ManualProbeClock;

// One channel whose value at read k is script(k) (nullopt: the read fails); it notes the probe
// clock's time of every read.
class ScriptedChannelSource final : public Source {
 public:
  ScriptedChannelSource(ChannelKind kind, std::function<std::optional<double>(int)> script,
                        ProbeClock& clock)
      : script_(std::move(script)), clock_(clock) {
    Channel c;
    c.id = "probe:0";
    c.source = "probe";
    c.kind = kind;
    channels_.push_back(c);
  }

  std::string_view name() const override { return "probe"; }
  Availability availability() const override { return {true, "", ""}; }
  const std::vector<Channel>& channels() const override { return channels_; }
  TimeNs default_period_ns() const override { return kNsPerMs; }
  std::string read_error(std::size_t) const override { return ""; }
  void read(std::span<Reading> out) override {
    const std::optional<double> value = script_(static_cast<int>(read_times_ns_.size()));
    read_times_ns_.push_back(clock_.now_ns());
    out[0] = Reading{clock_.now_ns(), value.value_or(0.0), value.has_value()};
  }

  const std::vector<TimeNs>& read_times_ns() const { return read_times_ns_; }

 private:
  std::vector<Channel> channels_;
  std::function<std::optional<double>(int)> script_;
  ProbeClock& clock_;
  std::vector<TimeNs> read_times_ns_;
};

constexpr TimeNs kWindowNs = 50 * kNsPerMs;

std::vector<TimeNs> every_5_ms_until(TimeNs end_ns) {
  std::vector<TimeNs> times;
  for (TimeNs t = 0; t <= end_ns; t += 5 * kNsPerMs) times.push_back(t);
  return times;
}

TEST(LivenessProbe, ACounterThatNeverMovesIsReadEvery5MsUntilTheWindowEnds) {
  ManualProbeClock clock;
  ScriptedChannelSource source(
      ChannelKind::kEnergyCounter, [](int) { return 123.0; }, clock);
  const Liveness liveness = probe_liveness(source, kWindowNs, clock);
  EXPECT_FALSE(liveness.alive);
  EXPECT_EQ(source.read_times_ns(), every_5_ms_until(kWindowNs));
  EXPECT_EQ(liveness.evidence, "its counters did not move in 50 ms (probe:0 unchanged)");
}

TEST(LivenessProbe, ReturnsOnTheFirstMovement) {
  ManualProbeClock clock;
  // Moves between the fourth and the fifth read.
  ScriptedChannelSource source(
      ChannelKind::kEnergyCounter, [](int k) { return k < 4 ? 10.0 : 10.25; }, clock);
  const Liveness liveness = probe_liveness(source, kWindowNs, clock);
  EXPECT_TRUE(liveness.alive);
  EXPECT_EQ(source.read_times_ns(), every_5_ms_until(20 * kNsPerMs));
  EXPECT_EQ(liveness.evidence, "probe:0 moved by 0.250000 J");
}

TEST(LivenessProbe, ACounterMovingOnEveryReadIsAliveAtTheSecondRead) {
  ManualProbeClock clock;
  ScriptedChannelSource source(
      ChannelKind::kEnergyCounter, [](int k) { return 0.001 * k; }, clock);
  EXPECT_TRUE(probe_liveness(source, kWindowNs, clock).alive);
  EXPECT_EQ(source.read_times_ns().size(), 2U);
  EXPECT_EQ(clock.sleeps_ns(), std::vector<TimeNs>{kProbeReadPeriodNs});
}

TEST(LivenessProbe, APowerChannelAboveZeroIsAliveAtTheFirstRead) {
  ManualProbeClock clock;
  ScriptedChannelSource source(
      ChannelKind::kPower, [](int) { return 3.5; }, clock);
  const Liveness liveness = probe_liveness(source, kWindowNs, clock);
  EXPECT_TRUE(liveness.alive);
  EXPECT_EQ(source.read_times_ns().size(), 1U);
  EXPECT_EQ(liveness.evidence, "probe:0 read 3.500 W");
}

TEST(LivenessProbe, APowerChannelAtZeroIsNotAlive) {
  ManualProbeClock clock;
  ScriptedChannelSource source(
      ChannelKind::kPower, [](int) { return 0.0; }, clock);
  const Liveness liveness = probe_liveness(source, kWindowNs, clock);
  EXPECT_FALSE(liveness.alive);
  EXPECT_EQ(liveness.evidence, "its counters did not move in 50 ms (probe:0 read 0 W)");
}

TEST(LivenessProbe, AFailedReadIsNeitherTheBaselineNorAMovement) {
  ManualProbeClock clock;
  // Reads 0 and 2 fail; the first good value (read 1) is the baseline; read 3 moves.
  ScriptedChannelSource source(
      ChannelKind::kEnergyCounter,
      [](int k) -> std::optional<double> {
        if (k == 0 || k == 2) return std::nullopt;
        return k == 1 ? 7.0 : 8.0;
      },
      clock);
  EXPECT_TRUE(probe_liveness(source, kWindowNs, clock).alive);
  EXPECT_EQ(source.read_times_ns().size(), 4U);
}

TEST(LivenessProbe, NothingReadableSaysSo) {
  ManualProbeClock clock;
  ScriptedChannelSource source(
      ChannelKind::kEnergyCounter, [](int) { return std::nullopt; }, clock);
  const Liveness liveness = probe_liveness(source, kWindowNs, clock);
  EXPECT_FALSE(liveness.alive);
  EXPECT_NE(liveness.evidence.find("no energy or power channel could be read"), std::string::npos)
      << liveness.evidence;
}

// However late a sleep returns, the probe reads again before it gives up: a thread woken after
// the window has passed still sees a counter that moved meanwhile.
TEST(LivenessProbe, AWakeUpAfterTheWindowStillReadsOnceMore) {
  ManualProbeClock clock;
  clock.set_oversleep_ns(200 * kNsPerMs);
  ScriptedChannelSource source(
      ChannelKind::kEnergyCounter, [](int k) { return 1.0 + k; }, clock);
  EXPECT_TRUE(probe_liveness(source, kWindowNs, clock).alive);
  EXPECT_EQ(source.read_times_ns().size(), 2U);
}

TEST(LivenessProbe, TheLastReadFallsOnTheEndOfAWindowThatIsNotAMultipleOfThePeriod) {
  ManualProbeClock clock;
  ScriptedChannelSource source(
      ChannelKind::kEnergyCounter, [](int) { return 1.0; }, clock);
  EXPECT_FALSE(probe_liveness(source, 12 * kNsPerMs, clock).alive);
  EXPECT_EQ(source.read_times_ns(),
            (std::vector<TimeNs>{0, 5 * kNsPerMs, 10 * kNsPerMs, 12 * kNsPerMs}));
}

}  // namespace
}  // namespace jouleprof
