#include "sampling/sampler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "sampling/scripted_source.hpp"

namespace jouleprof {
namespace {

using ::jouleprof::testing::ScriptedSource;

// Runs the sampler until the source has been read at least `reads` times.
std::vector<Series> sample(std::unique_ptr<ScriptedSource> owned, std::size_t reads,
                           SamplerOptions options = {},
                           std::vector<std::string>* warnings = nullptr, Sampler** keep = nullptr) {
  ScriptedSource* source = owned.get();
  std::vector<std::unique_ptr<Source>> sources;
  sources.push_back(std::move(owned));
  auto sampler = std::make_unique<Sampler>(std::move(sources), options);
  sampler->start();
  while (source->reads() < reads) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  sampler->stop();
  if (warnings != nullptr) *warnings = sampler->warnings();
  std::vector<Series> series = sampler->take_series();
  if (keep != nullptr) *keep = sampler.release();
  return series;
}

TEST(Sampler, RecordsEveryReadingInTimeOrderAndMeasuresTheUpdatePeriod) {
  // The value changes every third read; reads are 1 ms apart on the source's clock.
  std::vector<std::optional<double>> script;
  for (int k = 0; k < 30; ++k) script.emplace_back(static_cast<double>(k / 3));
  auto series =
      sample(std::make_unique<ScriptedSource>(ChannelKind::kEnergyCounter, script, kNsPerMs), 30);
  ASSERT_EQ(series.size(), 1U);
  const Series& s = series[0];
  ASSERT_GE(s.size(), 30U);
  for (std::size_t i = 1; i < s.size(); ++i) EXPECT_GE(s[i].t_ns, s[i - 1].t_ns);
  for (std::size_t i = 0; i < 30; ++i) EXPECT_EQ(s[i].value, static_cast<double>(i / 3));
  EXPECT_EQ(s.channel().measured_period_ns, 3 * kNsPerMs);
  EXPECT_TRUE(s.gaps().empty());
}

TEST(Sampler, FailedReadsBecomeOneGapAndOneWarning) {
  std::vector<std::optional<double>> script = {0.0, 1.0, std::nullopt, std::nullopt, 4.0, 5.0};
  std::vector<std::string> warnings;
  auto series = sample(std::make_unique<ScriptedSource>(ChannelKind::kPower, script, kNsPerMs), 6,
                       {}, &warnings);
  const Series& s = series[0];
  ASSERT_GE(s.size(), 4U);
  EXPECT_EQ(s[1].value, 1.0);
  EXPECT_EQ(s[2].value, 4.0);  // nothing fabricated for the two failed reads
  ASSERT_EQ(s.gaps().size(), 1U);
  EXPECT_EQ(s.gaps()[0].begin_ns, s[1].t_ns);
  EXPECT_EQ(s.gaps()[0].end_ns, s[2].t_ns);
  EXPECT_EQ(s.gaps()[0].reason, "scripted failure");
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_NE(warnings[0].find("scripted:0: scripted failure"), std::string::npos) << warnings[0];
  // Power inside the gap counts for nothing: 1 ms at 0.5 W mean, then 1 ms at 4.5 W, then 5 W
  // after.
  EXPECT_NEAR(s.energy_between_j(s[0].t_ns, s[3].t_ns), (0.5 + 4.5) * 1e-3, 1e-12);
}

// The counter stored for `script`, and the one warning the sampler gave.
std::pair<Series, std::vector<std::string>> counter_for(std::vector<std::optional<double>> script) {
  std::vector<std::string> warnings;
  const std::size_t reads = script.size();
  auto series = sample(
      std::make_unique<ScriptedSource>(ChannelKind::kEnergyCounter, std::move(script), kNsPerMs),
      reads, {}, &warnings);
  return {std::move(series[0]), warnings};
}

TEST(Sampler, CounterResetIsAGapNotANegativeEnergy) {
  const auto [s, warnings] = counter_for({10.0, 11.0, 5.0, 6.0, 7.0});
  ASSERT_GE(s.size(), 4U);
  // 5 is left out; 6 is judged from it (the counter was reset) and rebased onto 11.
  const std::vector<double> stored = {10.0, 11.0, 12.0, 13.0};
  for (std::size_t i = 0; i < stored.size(); ++i) EXPECT_EQ(s[i].value, stored[i]) << i;
  ASSERT_EQ(s.gaps().size(), 1U);
  EXPECT_EQ(s.gaps()[0].begin_ns, s[1].t_ns);
  EXPECT_EQ(s.gaps()[0].end_ns, s[2].t_ns);
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_NE(warnings[0].find("counter went backwards (5 J after 11 J)"), std::string::npos)
      << warnings[0];
  EXPECT_DOUBLE_EQ(s.energy_between_j(s[0].t_ns, s[3].t_ns), 3.0);
}

TEST(Sampler, StaleCounterReadCostsNothing) {
  const auto [s, warnings] = counter_for({10.0, 11.0, 10.5, 12.0, 13.0});
  ASSERT_GE(s.size(), 4U);
  const std::vector<double> stored = {10.0, 11.0, 12.0, 13.0};  // 12 is measured from 11
  for (std::size_t i = 0; i < stored.size(); ++i) EXPECT_EQ(s[i].value, stored[i]) << i;
  EXPECT_EQ(warnings.size(), 1U);
}

TEST(Sampler, CounterJumpBeyondAnyDeviceIsAGap) {
  // 1 MJ in a millisecond: no device of any class draws that.
  const auto [s, warnings] = counter_for({10.0, 11.0, 1e6, 12.0, 13.0});
  ASSERT_GE(s.size(), 4U);
  const std::vector<double> stored = {10.0, 11.0, 12.0, 13.0};
  for (std::size_t i = 0; i < stored.size(); ++i) EXPECT_EQ(s[i].value, stored[i]) << i;
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_NE(warnings[0].find("counter jumped by"), std::string::npos) << warnings[0];
}

TEST(Sampler, MemoryLimitStopsStoringAndSaysSo) {
  std::vector<std::optional<double>> script;
  for (int k = 0; k < 50; ++k) script.emplace_back(static_cast<double>(k));
  std::vector<std::string> warnings;
  Sampler* sampler = nullptr;
  SamplerOptions options;
  options.memory_limit_bytes = 10 * sizeof(Sample);
  auto series =
      sample(std::make_unique<ScriptedSource>(ChannelKind::kEnergyCounter, script, kNsPerMs), 20,
             options, &warnings, &sampler);
  std::unique_ptr<Sampler> owned(sampler);
  EXPECT_TRUE(owned->memory_limit_reached());
  EXPECT_EQ(series[0].size(), 10U);
  ASSERT_EQ(series[0].gaps().size(), 1U);
  EXPECT_EQ(series[0].gaps()[0].begin_ns, series[0].back().t_ns);
  EXPECT_EQ(series[0].gaps()[0].reason, "sampler memory limit reached");
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings.back().find("memory limit"), std::string::npos);
}

TEST(Sampler, PeriodsComeFromSourcesUnlessOverriddenAndStopIsIdempotent) {
  std::vector<std::unique_ptr<Source>> sources;
  sources.push_back(std::make_unique<ScriptedSource>(
      ChannelKind::kPower, std::vector<std::optional<double>>{1.0}, kNsPerMs, 7 * kNsPerMs));
  Sampler by_source(std::move(sources), {});
  EXPECT_EQ(by_source.period_ns(0), 7 * kNsPerMs);

  std::vector<std::unique_ptr<Source>> more;
  more.push_back(std::make_unique<ScriptedSource>(
      ChannelKind::kPower, std::vector<std::optional<double>>{1.0}, kNsPerMs, 7 * kNsPerMs));
  Sampler overridden(std::move(more), SamplerOptions{2 * kNsPerMs});
  EXPECT_EQ(overridden.period_ns(0), 2 * kNsPerMs);
  overridden.start();
  overridden.stop();
  overridden.stop();
  EXPECT_GE(overridden.stats().polls, 2U);  // the first and the last reading at least
  EXPECT_GE(overridden.take_series()[0].size(), 2U);
}

TEST(Sampler, LiveTotalsAreReadableWhileSampling) {
  std::vector<std::optional<double>> script;
  for (int k = 0; k < 10000; ++k) script.emplace_back(0.5 * k);
  auto owned = std::make_unique<ScriptedSource>(ChannelKind::kEnergyCounter, script, kNsPerMs);
  ScriptedSource* source = owned.get();
  std::vector<std::unique_ptr<Source>> sources;
  sources.push_back(std::move(owned));
  Sampler sampler(std::move(sources), {});
  sampler.start();
  double last = 0.0;
  while (source->reads() < 50) {
    const std::vector<LiveChannel> live = sampler.live();  // concurrent with the thread's writes
    ASSERT_EQ(live.size(), 1U);
    EXPECT_GE(live[0].energy_j, last);
    last = live[0].energy_j;
  }
  sampler.stop();
  const std::vector<LiveChannel> live = sampler.live();
  EXPECT_DOUBLE_EQ(live[0].energy_j,
                   0.5 * static_cast<double>(sampler.take_series()[0].size() - 1));
  EXPECT_GT(sampler.stats().thread_cpu_ns, 0);
}

// A source that adds a channel at its third read (as the process source does for a new thread).
class GrowingSource final : public Source {
 public:
  GrowingSource() { channels_.push_back(channel("growing:0")); }
  std::string_view name() const override { return "growing"; }
  Availability availability() const override { return {true, "", ""}; }
  const std::vector<Channel>& channels() const override { return channels_; }
  TimeNs default_period_ns() const override { return kNsPerMs; }
  std::string read_error(std::size_t) const override { return ""; }
  void read(std::span<Reading> out) override {
    const std::size_t k = reads_.load();
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = Reading{monotonic_now_ns(), static_cast<double>(k) + 100.0 * static_cast<double>(i),
                       true};
    }
    if (k == 2) channels_.push_back(channel("growing:1"));
    reads_.store(k + 1);
  }
  std::size_t reads() const { return reads_.load(); }

 private:
  static Channel channel(std::string id) {
    Channel c;
    c.id = std::move(id);
    c.source = "growing";
    c.kind = ChannelKind::kBusyTime;
    return c;
  }
  std::vector<Channel> channels_;
  std::atomic<std::size_t> reads_{0};
};

TEST(Sampler, AChannelASourceAddsGetsASeriesFromTheNextPoll) {
  auto owned = std::make_unique<GrowingSource>();
  GrowingSource* source = owned.get();
  std::vector<std::unique_ptr<Source>> sources;
  sources.push_back(std::move(owned));
  Sampler sampler(std::move(sources), SamplerOptions{});
  sampler.start();
  std::size_t seen = 0;
  while (source->reads() < 10) {
    seen = std::max(seen, sampler.recent(0).size());  // read while the series grow
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  sampler.stop();
  EXPECT_LE(seen, 2U);
  std::vector<Series> series = sampler.take_series();
  ASSERT_EQ(series.size(), 2U);
  EXPECT_EQ(series[1].channel().id, "growing:1");
  ASSERT_GE(series[1].size(), 7U);
  EXPECT_EQ(series[1][0].value, 103.0) << "first read after it appeared: read 3";
  EXPECT_GT(series[1].begin_ns(), series[0].begin_ns());
  EXPECT_EQ(series[0][0].value, 0.0);
}

}  // namespace
}  // namespace jouleprof
