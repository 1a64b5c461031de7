#include "jouleprof/recorder.hpp"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <string>

namespace jouleprof {
namespace {

// Index of the only span named `name`; fails the test when there is not exactly one.
std::uint32_t only_span(const Timeline& t, std::string_view name) {
  std::uint32_t found = kNoIndex;
  int count = 0;
  for (std::uint32_t i = 0; i < t.spans().size(); ++i) {
    if (t.name(t.spans()[i].name) == name) {
      found = i;
      ++count;
    }
  }
  EXPECT_EQ(count, 1) << name;
  return found;
}

class RecorderTest : public ::testing::Test {
 protected:
  void SetUp() override { recorder().set_buffer_records(kDefaultBufferRecords); }
  void TearDown() override {
    recorder().stop();
    recorder().set_buffer_records(kDefaultBufferRecords);
  }
  static Recorder& recorder() { return Recorder::global(); }
};

TEST_F(RecorderTest, NestingBuildsPathsWithCategoriesPassesAndAttributes) {
  const NameId bert = intern_name("bert");
  const NameId layer = intern_name("encoder/layer_3");
  const NameId matmul = intern_name("matmul");
  const NameId step_mark = intern_name("step 1 done");
  recorder().start();
  const TimeNs before = monotonic_now_ns();
  begin(bert, SpanCategory::kModel);
  begin(layer, SpanCategory::kLayer, Pass::kBackward);
  begin(matmul, SpanCategory::kOp);
  annotate("shape", "[32,128,768]");
  annotate("bytes", std::int64_t{12582912});
  end();
  end();
  end();
  mark(step_mark);
  epoch_end();
  const TimeNs after = monotonic_now_ns();
  recorder().stop();
  const Timeline t = recorder().collect();

  ASSERT_EQ(t.tracks().size(), 1U);
  EXPECT_EQ(t.tracks()[0].kind, TrackKind::kCpuThread);
  EXPECT_EQ(t.tracks()[0].name, "thread " + std::to_string(syscall(SYS_gettid)));
  ASSERT_EQ(t.spans().size(), 3U);
  const std::uint32_t op = only_span(t, "matmul");
  EXPECT_EQ(t.path_of(op), "bert/encoder/layer_3/matmul");
  const Span& model_span = t.spans()[only_span(t, "bert")];
  const Span& layer_span = t.spans()[only_span(t, "encoder/layer_3")];
  const Span& op_span = t.spans()[op];
  EXPECT_EQ(model_span.category, SpanCategory::kModel);
  EXPECT_EQ(layer_span.category, SpanCategory::kLayer);
  EXPECT_EQ(op_span.category, SpanCategory::kOp);
  EXPECT_EQ(model_span.pass, Pass::kNone);
  EXPECT_EQ(layer_span.pass, Pass::kBackward);
  EXPECT_EQ(op_span.pass, Pass::kBackward) << "a span without a pass takes its parent's";

  // Raw timestamps land on the monotonic axis, nested and inside the test's own readings.
  EXPECT_GE(model_span.begin_ns, before);
  EXPECT_LE(model_span.end_ns, after);
  EXPECT_LE(model_span.begin_ns, layer_span.begin_ns);
  EXPECT_LE(layer_span.begin_ns, op_span.begin_ns);
  EXPECT_LE(op_span.end_ns, layer_span.end_ns);
  EXPECT_LE(layer_span.end_ns, model_span.end_ns);

  ASSERT_NE(op_span.attributes, kNoIndex);
  const Attributes expected{{"shape", "[32,128,768]"}, {"bytes", "12582912"}};
  EXPECT_EQ(t.attributes()[op_span.attributes], expected);
  EXPECT_EQ(model_span.attributes, kNoIndex);

  ASSERT_EQ(t.marks().size(), 2U);
  EXPECT_EQ(t.name(t.marks()[0].name), "step 1 done");
  EXPECT_EQ(t.name(t.marks()[1].name), "epoch_end");
  EXPECT_GE(t.marks()[0].t_ns, model_span.end_ns);
  EXPECT_LE(t.marks()[1].t_ns, after);
}

TEST_F(RecorderTest, ScopeMacrosEndAtScopeExit) {
  recorder().start();
  {
    JOULEPROF_SCOPE("outer");
    { JOULEPROF_SCOPE_CAT("inner", SpanCategory::kOp); }
    JOULEPROF_SCOPE_PASS("update", SpanCategory::kStep, Pass::kOptimizer);
  }
  const Timeline t = recorder().collect();
  ASSERT_EQ(t.spans().size(), 3U);
  EXPECT_EQ(t.path_of(only_span(t, "inner")), "outer/inner");
  EXPECT_EQ(t.path_of(only_span(t, "update")), "outer/update");
  EXPECT_EQ(t.spans()[only_span(t, "update")].pass, Pass::kOptimizer);
  EXPECT_EQ(t.spans()[only_span(t, "inner")].category, SpanCategory::kOp);
}

TEST_F(RecorderTest, RecordsNothingWhenOff) {
  const NameId name = intern_name("ignored");
  recorder().start();
  recorder().stop();
  EXPECT_FALSE(recorder().enabled());
  begin(name);
  annotate("k", "v");
  end();
  mark(name);
  EXPECT_TRUE(recorder().collect().spans().empty());
}

TEST_F(RecorderTest, StartClearsEarlierRecords) {
  const NameId first = intern_name("first session");
  const NameId second = intern_name("second session");
  recorder().start();
  begin(first);
  end();
  recorder().start();
  begin(second);
  end();
  const Timeline t = recorder().collect();
  ASSERT_EQ(t.spans().size(), 1U);
  EXPECT_EQ(t.name(t.spans()[0].name), "second session");
}

TEST_F(RecorderTest, CollectMovesRecordsAndCarriesOpenSpans) {
  const NameId a = intern_name("a");
  const NameId b = intern_name("b");
  recorder().start();
  begin(a);
  begin(b);
  end();  // b
  const Timeline first = recorder().collect();
  ASSERT_EQ(first.spans().size(), 2U);
  const Span& open_a = first.spans()[only_span(first, "a")];
  EXPECT_GE(open_a.end_ns, first.spans()[only_span(first, "b")].end_ns)
      << "a span open at collect time ends at the collect time";

  end();  // a
  const Timeline second = recorder().collect();
  ASSERT_EQ(second.spans().size(), 1U) << "b was moved out by the first collect";
  const Span& rest_of_a = second.spans()[0];
  EXPECT_EQ(second.name(rest_of_a.name), "a");
  EXPECT_EQ(rest_of_a.begin_ns, open_a.end_ns) << "a continues where the first collect cut it";
  EXPECT_GE(rest_of_a.end_ns, rest_of_a.begin_ns);

  EXPECT_TRUE(recorder().collect().spans().empty());
}

TEST_F(RecorderTest, SpansOpenAtStopEndAtTheStopTime) {
  const NameId a = intern_name("open at stop");
  recorder().start();
  begin(a);
  const TimeNs before_stop = monotonic_now_ns();
  recorder().stop();
  const TimeNs after_stop = monotonic_now_ns();
  end();  // not recorded: recording is off
  const Timeline t = recorder().collect();
  ASSERT_EQ(t.spans().size(), 1U);
  EXPECT_GE(t.spans()[0].end_ns, before_stop);
  EXPECT_LE(t.spans()[0].end_ns, after_stop);
}

TEST_F(RecorderTest, EndWithoutBeginIsIgnored) {
  const NameId a = intern_name("balanced");
  recorder().start();
  end();
  begin(a);
  end();
  end();
  const Timeline t = recorder().collect();
  ASSERT_EQ(t.spans().size(), 1U);
  EXPECT_EQ(t.spans()[0].parent, kNoIndex);
}

TEST_F(RecorderTest, FullBufferStopsAndCountsDrops) {
  const NameId pair = intern_name("pair");
  recorder().set_buffer_records(16);
  recorder().start();
  for (int i = 0; i < 20; ++i) {
    begin(pair);
    end();
  }
  const TimeNs after_loop = monotonic_now_ns();
  recorder().stop();
  // 16 slots: 15 records, then the overflow marker in the last; the other 25 of 40 are counted.
  EXPECT_EQ(recorder().dropped(), 25U);
  const Timeline t = recorder().collect();
  ASSERT_EQ(t.spans().size(), 8U);
  // The eighth span's end was dropped: it ends where the buffer filled, not at the stop.
  const Span& last = t.spans().back();
  EXPECT_GE(last.end_ns, last.begin_ns);
  EXPECT_LE(last.end_ns, after_loop);
}

TEST_F(RecorderTest, ExternalSpansGetTracksAndContainmentParents) {
  const NameId step = intern_name("gpu step");
  const NameId kernel = intern_name("gemm");
  const NameId copy = intern_name("memcpy HtoD");
  recorder().start();
  Recorder& r = recorder();
  r.add_external_span(TrackKind::kGpuStream, "stream 7", "gpu0", kernel, 1'200, 1'500,
                      SpanCategory::kKernel);
  r.add_external_span(TrackKind::kGpuStream, "stream 7", "gpu0", step, 1'000, 3'000,
                      SpanCategory::kStep, Pass::kForward);
  r.add_external_span(TrackKind::kGpuStream, "stream 8", "gpu0", copy, 900, 1'100,
                      SpanCategory::kMemory);
  const Timeline t = r.collect();
  ASSERT_EQ(t.tracks().size(), 2U);
  EXPECT_EQ(t.tracks()[0].kind, TrackKind::kGpuStream);
  EXPECT_EQ(t.tracks()[0].name, "stream 7");
  EXPECT_EQ(t.tracks()[0].device, "gpu0");
  const std::uint32_t k = only_span(t, "gemm");
  EXPECT_EQ(t.path_of(k), "gpu step/gemm");
  EXPECT_EQ(t.spans()[k].pass, Pass::kForward);
  EXPECT_EQ(t.spans()[only_span(t, "memcpy HtoD")].track, 1U);
  EXPECT_TRUE(r.collect().spans().empty()) << "external spans are moved out too";
}

TEST_F(RecorderTest, UnknownNameIdsAreNamedNotCrashed) {
  recorder().start();
  begin(0xFFFFFF00U);
  end();
  const Timeline t = recorder().collect();
  ASSERT_EQ(t.spans().size(), 1U);
  EXPECT_EQ(t.name(t.spans()[0].name), "[unknown name id 4294967040]");
}

TEST_F(RecorderTest, AttributesWithoutOpenSpanAreIgnored) {
  const NameId a = intern_name("later");
  recorder().start();
  annotate("orphan", "1");
  begin(a);
  end();
  const Timeline t = recorder().collect();
  ASSERT_EQ(t.spans().size(), 1U);
  EXPECT_EQ(t.spans()[0].attributes, kNoIndex);
  EXPECT_TRUE(t.attributes().empty());
}

TEST_F(RecorderTest, ReportsItsRawClock) {
  const std::string_view clock = recorder().clock_source();
  EXPECT_TRUE(clock == "tsc" || clock == "clock_gettime") << clock;
}

}  // namespace
}  // namespace jouleprof
