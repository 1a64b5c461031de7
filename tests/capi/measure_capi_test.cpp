// The progress and gated-measurement section of the C API, called as a C program would: a C
// function measured on the simulated source, its progress heard through a jp_progress_fn, a stop
// asked from it, and bad options.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "jouleprof/energy_band.hpp"
#include "jouleprof/jouleprof.h"
#include "jouleprof/profile.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::TempDir;

constexpr const char* kFastForty =
    R"({"settings": {"simulate.watts": 40}, "preset": "quick", "repetitions": 2,
        "interval_ms": 50, "last_n": 3, "check_period_s": 0.05, "tail_wait_s": 0.05,
        "min_updates": 20})";

int spin_one_ms(void* calls) {
  ++*static_cast<int*>(calls);
  const std::int64_t until = jp_now_ns() + 1'000'000;
  while (jp_now_ns() < until) {
  }
  return 0;
}

struct Heard {
  std::vector<int> kinds;
  std::vector<std::string> phases;
  std::vector<std::string> gate_channels;
  bool stop_in_second_repetition = false;
};

int hear(const jp_progress* p, void* user) {
  auto* heard = static_cast<Heard*>(user);
  heard->kinds.push_back(p->kind);
  if (p->kind == JP_PROGRESS_PHASE) heard->phases.push_back(p->phase);
  if (p->has_gate) heard->gate_channels.push_back(p->gate_channel);
  return heard->stop_in_second_repetition && p->step == 2 && std::string(p->phase) == "calls";
}

TEST(MeasureCapi, MeasuresACFunctionAndReportsItsProgress) {
  TempDir dir;
  const std::string profile_path = (dir.path() / "profile.json").string();
  int calls = 0;
  Heard heard;
  jp_gated_result r = JP_GATED_RESULT_INIT;
  ASSERT_EQ(jp_measure_gated("simulated", kFastForty, spin_one_ms, &calls, hear, &heard,
                             profile_path.c_str(), &r),
            JP_OK)
      << jp_last_error();
  EXPECT_EQ(r.repetitions, 2u);
  EXPECT_EQ(r.repetitions_asked, 2u);
  EXPECT_EQ(r.incomplete, 0);
  EXPECT_GE(r.call_s, 1e-3);
  // A constant 40 W: each call draws 40 W over its duration, nothing above the baseline.
  EXPECT_NEAR(r.total_j, 40.0 * r.call_s, 0.05 * 40.0 * r.call_s);
  EXPECT_NEAR(r.net_j, 0.0, 0.1 * r.total_j);
  // Both intervals hold their figures; the simulated source has no gain error.
  EXPECT_LE(r.total_low_j, r.total_j);
  EXPECT_GE(r.total_high_j, r.total_j);
  EXPECT_LE(r.net_low_j, r.net_j);
  EXPECT_GE(r.net_high_j, r.net_j);
  // The spread of two repetitions or the windows' read delay, whichever is larger this time.
  ASSERT_NE(r.uncertainty_dominant, nullptr);
  EXPECT_TRUE(uncertainty_term_from_string(r.uncertainty_dominant).has_value())
      << r.uncertainty_dominant;
  EXPECT_GT(r.estimate_ns, 0);
  EXPECT_GT(r.took_ns, 0);
  EXPECT_GT(calls, 2);
  ASSERT_FALSE(heard.kinds.empty());
  EXPECT_EQ(heard.kinds.front(), JP_PROGRESS_BEGIN);
  EXPECT_EQ(heard.kinds.back(), JP_PROGRESS_END);
  EXPECT_EQ(heard.phases, (std::vector<std::string>{"warm-up", "gate", "calls", "tail", "gate",
                                                    "calls", "tail"}));
  ASSERT_FALSE(heard.gate_channels.empty());
  EXPECT_EQ(heard.gate_channels.front(), "simulated:package");
  const Result<Profile> profile = read_profile_json(profile_path);
  ASSERT_TRUE(profile) << profile.error().message();
  EXPECT_EQ(profile->meta.options.gated.preset,
            "quick (changed: repetitions last_n min_updates interval_ms check_period_s "
            "tail_wait_s)");
}

TEST(MeasureCapi, ANonZeroReturnFromTheProgressFunctionStopsAndKeepsWhatWasMeasured) {
  int calls = 0;
  Heard heard;
  heard.stop_in_second_repetition = true;
  jp_gated_result r = JP_GATED_RESULT_INIT;
  ASSERT_EQ(
      jp_measure_gated("simulated", kFastForty, spin_one_ms, &calls, hear, &heard, nullptr, &r),
      JP_OK)
      << jp_last_error();
  EXPECT_EQ(r.incomplete, 1);
  EXPECT_EQ(r.repetitions, 1u);
  EXPECT_GT(r.total_j, 0.0) << "the finished repetition's figures are kept";
}

TEST(MeasureCapi, AResultStructSizedForTheFirstVersionGetsOnlyItsFields) {
  // What a program built against the header before the intervals were added passes.
  constexpr std::size_t first_version = offsetof(jp_gated_result, total_low_j);
  jp_gated_result r = JP_GATED_RESULT_INIT;
  r.size = first_version;
  r.total_low_j = -7.0;
  int calls = 0;
  ASSERT_EQ(
      jp_measure_gated("simulated", kFastForty, spin_one_ms, &calls, nullptr, nullptr, nullptr, &r),
      JP_OK)
      << jp_last_error();
  EXPECT_EQ(r.size, first_version);
  EXPECT_EQ(r.repetitions, 2u);
  EXPECT_EQ(r.total_low_j, -7.0) << "a field beyond the caller's size is not written";

  jp_gated_result unset{};
  EXPECT_EQ(jp_measure_gated("simulated", kFastForty, spin_one_ms, &calls, nullptr, nullptr,
                             nullptr, &unset),
            JP_ERR_INVALID_INPUT);
  EXPECT_NE(std::string(jp_last_error()).find("jp_gated_result.size is 0"), std::string::npos)
      << jp_last_error();
}

TEST(MeasureCapi, BadOptionsAndAFailingFunctionAreErrors) {
  int calls = 0;
  EXPECT_EQ(jp_measure_gated("simulated", R"({"preset": "fast"})", spin_one_ms, &calls, nullptr,
                             nullptr, nullptr, nullptr),
            JP_ERR_INVALID_INPUT);
  EXPECT_NE(std::string(jp_last_error()).find("fast"), std::string::npos) << jp_last_error();
  EXPECT_EQ(jp_measure_gated("simulated", R"({"repetitions": 1.5})", spin_one_ms, &calls, nullptr,
                             nullptr, nullptr, nullptr),
            JP_ERR_INVALID_INPUT);
  EXPECT_NE(std::string(jp_last_error()).find("repetitions"), std::string::npos);
  EXPECT_EQ(jp_measure_gated("simulated", R"({"tail_wait_s": 1e308})", spin_one_ms, &calls, nullptr,
                             nullptr, nullptr, nullptr),
            JP_ERR_INVALID_INPUT);
  EXPECT_NE(std::string(jp_last_error()).find("tail_wait_s"), std::string::npos) << jp_last_error();
  EXPECT_EQ(jp_measure_gated("simulated", kFastForty, nullptr, nullptr, nullptr, nullptr, nullptr,
                             nullptr),
            JP_ERR_INVALID_INPUT);
  const auto failing = [](void*) { return 3; };
  EXPECT_NE(jp_measure_gated("simulated", kFastForty, failing, nullptr, nullptr, nullptr, nullptr,
                             nullptr),
            JP_OK);
  EXPECT_NE(std::string(jp_last_error()).find("returned 3"), std::string::npos) << jp_last_error();
}

}  // namespace
}  // namespace jouleprof
