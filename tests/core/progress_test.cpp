#include "jouleprof/progress.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace jouleprof {
namespace {

// A clock the test moves by hand.
struct FakeClock {
  TimeNs now = 1000 * kNsPerS;
  ProgressClock clock() {
    return [this] { return now; };
  }
};

struct Recorded {
  std::vector<ProgressEvent> events;
  ProgressCallback callback() {
    return [this](const ProgressEvent& e) { events.push_back(e); };
  }
};

TEST(ProgressReporter, EtaComesFromTheEstimateUntilSomeWorkIsDone) {
  FakeClock clock;
  Recorded seen;
  ProgressReporter progress(seen.callback(), clock.clock());
  progress.begin("kernel-bench", 4, 40 * kNsPerS);
  ASSERT_EQ(seen.events.size(), 1u);
  EXPECT_EQ(seen.events[0].kind, ProgressEventKind::kBegin);
  EXPECT_EQ(*seen.events[0].eta_ns, 40 * kNsPerS);

  clock.now += 6 * kNsPerS;
  progress.item(1, "relu_0");
  EXPECT_EQ(seen.events.back().elapsed_ns, 6 * kNsPerS);
  EXPECT_EQ(*seen.events.back().eta_ns, 34 * kNsPerS) << "nothing done yet: estimate − elapsed";
  EXPECT_DOUBLE_EQ(seen.events.back().done, 0.0);

  // Item 1 took 20 s where the estimate allowed 10: the rate of the work done takes over.
  clock.now += 14 * kNsPerS;
  progress.item(2, "relu_1");
  EXPECT_DOUBLE_EQ(seen.events.back().done, 0.25);
  EXPECT_EQ(*seen.events.back().eta_ns, 60 * kNsPerS);
  EXPECT_EQ(seen.events.back().item_name, "relu_1");
  EXPECT_EQ(seen.events.back().items, 4u);
}

TEST(ProgressReporter, StepsInsideAnItemCountTowardsTheShareDone) {
  FakeClock clock;
  Recorded seen;
  ProgressReporter progress(seen.callback(), clock.clock());
  progress.begin("measure", 2, 0);
  EXPECT_FALSE(seen.events.back().eta_ns) << "no estimate and nothing done: no ETA";
  progress.item(2, "size 256");
  progress.step(3, 4);  // item 1 and two of item 2's four steps are done
  EXPECT_DOUBLE_EQ(seen.events.back().done, (1.0 + 0.5) / 2.0);
  clock.now += 30 * kNsPerS;
  progress.phase("gate");
  EXPECT_EQ(seen.events.back().phase, "gate");
  EXPECT_EQ(*seen.events.back().eta_ns, 10 * kNsPerS);
  progress.end();
  EXPECT_EQ(seen.events.back().kind, ProgressEventKind::kEnd);
  EXPECT_DOUBLE_EQ(seen.events.back().done, 1.0);
}

TEST(ProgressReporter, OneMeasurementWithoutItemsUsesItsSteps) {
  FakeClock clock;
  Recorded seen;
  ProgressReporter progress(seen.callback(), clock.clock());
  progress.begin("measure", 0, 0);
  progress.step(2, 5);
  EXPECT_DOUBLE_EQ(seen.events.back().done, 0.2);
}

TEST(ProgressReporter, GateStateIsCarriedUntilThePhaseChanges) {
  FakeClock clock;
  Recorded seen;
  ProgressReporter progress(seen.callback(), clock.clock());
  progress.begin("measure", 0, 0);
  progress.phase("gate");
  GateState gate;
  gate.channel_id = "rapl:0:package";
  gate.value = 0.041;
  gate.threshold = 0.03;
  gate.checks = 3;
  progress.gate(gate);
  ASSERT_TRUE(seen.events.back().gate);
  EXPECT_EQ(seen.events.back().gate->channel_id, "rapl:0:package");
  clock.now += 2 * kNsPerS;
  progress.tick();
  EXPECT_EQ(seen.events.back().kind, ProgressEventKind::kTick);
  EXPECT_TRUE(seen.events.back().gate) << "a tick keeps the gate's last state";
  progress.phase("calls");
  EXPECT_FALSE(seen.events.back().gate);
}

TEST(ProgressReporter, TicksAreForwardedAtMostOncePerTickPeriod) {
  FakeClock clock;
  Recorded seen;
  ProgressReporter progress(seen.callback(), clock.clock(), kNsPerS);
  progress.begin("measure", 0, 0);
  for (int i = 0; i < 50; ++i) {
    clock.now += 100 * kNsPerMs;
    progress.tick();
  }
  // 5 s of ticks every 100 ms: one event per second.
  EXPECT_EQ(seen.events.size(), 1u + 5u);
}

TEST(ProgressReporter, AStopRequestIsSeenByTheWorkAndTheEvents) {
  FakeClock clock;
  Recorded seen;
  ProgressReporter progress(seen.callback(), clock.clock());
  progress.begin("kernel-bench", 3, 0);
  EXPECT_FALSE(progress.stop_requested());
  progress.request_stop();
  EXPECT_TRUE(progress.stop_requested());
  progress.end();
  EXPECT_TRUE(seen.events.back().stop_requested);
  EXPECT_LT(seen.events.back().done, 1.0) << "stopped work is not done";
}

TEST(ProgressReporter, WithoutACallbackItOnlyTracks) {
  ProgressOrSilent progress(nullptr);
  progress->begin("measure", 2, 0);
  progress->item(1, "a");
  EXPECT_EQ(progress->last().item_name, "a");
}

}  // namespace
}  // namespace jouleprof
