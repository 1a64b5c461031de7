// Recording from many threads at once, with collect() running beside them.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "jouleprof/recorder.hpp"

namespace jouleprof {
namespace {

constexpr int kThreads = 6;
constexpr int kOuterPerThread = 200;
constexpr int kInnerPerOuter = 5;

void record_work(NameId outer, NameId inner) {
  for (int i = 0; i < kOuterPerThread; ++i) {
    Scope outer_scope(outer, SpanCategory::kStep);
    for (int k = 0; k < kInnerPerOuter; ++k) {
      Scope inner_scope(inner, SpanCategory::kOp);
      if (k == 0) annotate("iteration", std::int64_t{i});
    }
  }
}

// Every span sits inside its parent, on the parent's track.
void expect_well_formed(const Timeline& t) {
  for (const Span& s : t.spans()) {
    ASSERT_LE(s.begin_ns, s.end_ns);
    if (s.parent == kNoIndex) continue;
    const Span& p = t.spans()[s.parent];
    ASSERT_EQ(p.track, s.track);
    ASSERT_LE(p.begin_ns, s.begin_ns);
    ASSERT_GE(p.end_ns, s.end_ns);
  }
}

TEST(RecorderThreads, OneTrackPerThreadWithAllItsSpans) {
  const NameId outer = intern_name("outer");
  const NameId inner = intern_name("inner");
  Recorder::global().start();
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) threads.emplace_back(record_work, outer, inner);
  for (std::thread& th : threads) th.join();
  Recorder::global().stop();
  EXPECT_EQ(Recorder::global().dropped(), 0U);

  // The threads have ended; their records are still there.
  const Timeline t = Recorder::global().collect();
  ASSERT_EQ(t.tracks().size(), static_cast<std::size_t>(kThreads));
  std::set<std::string> names;
  for (const Track& tr : t.tracks()) names.insert(tr.name);
  EXPECT_EQ(names.size(), static_cast<std::size_t>(kThreads)) << "each thread is named by its tid";
  std::vector<int> inner_per_track(kThreads, 0);
  std::vector<int> outer_per_track(kThreads, 0);
  for (std::uint32_t i = 0; i < t.spans().size(); ++i) {
    const Span& s = t.spans()[i];
    if (t.name(s.name) == "inner") {
      ++inner_per_track[s.track];
      EXPECT_EQ(t.path_of(i), "outer/inner");
    } else {
      ++outer_per_track[s.track];
      EXPECT_EQ(s.parent, kNoIndex);
    }
  }
  for (int track = 0; track < kThreads; ++track) {
    EXPECT_EQ(outer_per_track[track], kOuterPerThread);
    EXPECT_EQ(inner_per_track[track], kOuterPerThread * kInnerPerOuter);
  }
  EXPECT_EQ(t.attributes().size(), static_cast<std::size_t>(kThreads * kOuterPerThread));
  expect_well_formed(t);
}

TEST(RecorderThreads, CollectWhileThreadsRecord) {
  const NameId outer = intern_name("outer");
  const NameId inner = intern_name("inner");
  Recorder::global().start();
  std::atomic<int> running{kThreads};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&] {
      record_work(outer, inner);
      running.fetch_sub(1);
    });
  }
  std::vector<Timeline> pieces;
  while (running.load() > 0) {
    pieces.push_back(Recorder::global().collect());
    (void)Recorder::global().dropped();
  }
  for (std::thread& th : threads) th.join();
  pieces.push_back(Recorder::global().collect());
  Recorder::global().stop();

  // Spans cut by a collect appear once per piece; none is lost.
  std::size_t inner_spans = 0;
  for (const Timeline& t : pieces) {
    expect_well_formed(t);
    for (const Span& s : t.spans()) inner_spans += t.name(s.name) == "inner" ? 1 : 0;
  }
  EXPECT_GE(inner_spans, static_cast<std::size_t>(kThreads * kOuterPerThread * kInnerPerOuter));
  EXPECT_EQ(Recorder::global().dropped(), 0U);
}

}  // namespace
}  // namespace jouleprof
