// The recording section of the C API, called as a C program would.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "jouleprof/jouleprof.h"
#include "jouleprof/span_dump.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::TempDir;

TEST(RecorderCApi, RecordsNestedSpansAndWritesThem) {
  const TempDir dir;
  const jp_name_id layer = jp_intern("encoder/layer_0");
  const jp_name_id matmul = jp_intern("matmul");
  ASSERT_NE(layer, JP_INVALID_NAME);
  jp_recorder_start();
  EXPECT_EQ(jp_recorder_enabled(), 1);
  jp_begin(layer, JP_CATEGORY_LAYER);
  jp_begin_pass(matmul, JP_CATEGORY_OP, JP_PASS_BACKWARD);
  EXPECT_EQ(jp_annotate("bytes", "4096"), JP_OK);
  jp_end();
  jp_begin(matmul, 99);  // unknown category: a region
  jp_end();
  jp_end();
  jp_mark(layer);
  jp_epoch_end();
  jp_recorder_stop();
  EXPECT_EQ(jp_recorder_enabled(), 0);
  EXPECT_EQ(jp_recorder_dropped(), 0U);

  const std::string path = (dir.path() / "spans.json").string();
  ASSERT_EQ(jp_recorder_write_spans(path.c_str()), JP_OK) << jp_last_error();
  auto dump = read_span_dump(path);
  ASSERT_TRUE(dump.ok()) << dump.error().message();
  const Timeline& t = dump->timeline;
  ASSERT_EQ(t.spans().size(), 3U);
  EXPECT_EQ(t.path_of(1), "encoder/layer_0/matmul");
  EXPECT_EQ(t.spans()[1].category, SpanCategory::kOp);
  EXPECT_EQ(t.spans()[1].pass, Pass::kBackward);
  EXPECT_EQ(t.attributes()[t.spans()[1].attributes], (Attributes{{"bytes", "4096"}}));
  EXPECT_EQ(t.spans()[2].category, SpanCategory::kRegion);
  EXPECT_EQ(t.marks().size(), 2U);
  EXPECT_EQ(dump->pid, static_cast<std::int64_t>(getpid()));
}

TEST(RecorderCApi, BadArgumentsAreErrorsNotCrashes) {
  EXPECT_EQ(jp_intern(nullptr), JP_INVALID_NAME);
  EXPECT_EQ(jp_annotate(nullptr, "v"), JP_ERR_INVALID_INPUT);
  EXPECT_NE(std::string(jp_last_error()).find("NULL"), std::string::npos);
  EXPECT_EQ(jp_recorder_write_spans(nullptr), JP_ERR_INVALID_INPUT);
  jp_recorder_start();
  jp_begin_named(nullptr);  // still begins a span, so that jp_end stays balanced
  jp_end();
  jp_recorder_stop();
  EXPECT_EQ(jp_recorder_write_spans("/nonexistent-dir/spans.json"), JP_ERR_IO);
  EXPECT_NE(std::string(jp_last_error()).find("/nonexistent-dir/spans.json"), std::string::npos);
}

// Outside `jouleprof run --spans` there is no span file to write: nothing to do, and no error.
TEST(RecorderCApi, FlushingWithoutASpansFileDoesNothing) {
  ASSERT_EQ(std::getenv("JOULEPROF_SPANS_FILE"), nullptr);
  EXPECT_EQ(jp_recorder_flush_spans_file(), JP_OK);
}

TEST(RecorderCApi, NamedBeginInternsOnTheFly) {
  const TempDir dir;
  jp_recorder_start();
  jp_begin_named("python/forward");
  jp_end();
  jp_recorder_stop();
  const std::string path = (dir.path() / "spans.json").string();
  ASSERT_EQ(jp_recorder_write_spans(path.c_str()), JP_OK);
  auto dump = read_span_dump(path);
  ASSERT_TRUE(dump.ok());
  ASSERT_EQ(dump->timeline.spans().size(), 1U);
  EXPECT_EQ(dump->timeline.name(dump->timeline.spans()[0].name), "python/forward");
}

// torch 1.13's legacy export with jouleprof's clock reference (monotonic 5 s at its 10 µs): a
// module scope around a forward op, and a backward node (no sequence numbers in this export).
constexpr const char* kSyncedLegacyTrace = R"([
  {"name": "jouleprof::clock_sync 5000000000", "ph": "X", "ts": 10, "dur": 0, "tid": 1,
   "pid": "CPU functions", "args": {}},
  {"name": "nn.Module: Net", "ph": "X", "ts": 20, "dur": 100, "tid": 1, "pid": "CPU functions",
   "args": {}},
  {"name": "aten::addmm", "ph": "X", "ts": 30, "dur": 50, "tid": 1, "pid": "CPU functions",
   "args": {}},
  {"name": "AddmmBackward0", "ph": "X", "ts": 200, "dur": 60, "tid": 1, "pid": "CPU functions",
   "args": {}}])";

TEST(RecorderCApi, AddTracePutsATracesSpansOnTracksOfTheirOwn) {
  const TempDir dir;
  const auto trace = dir.write("trace.json", kSyncedLegacyTrace);
  jp_recorder_start();
  ASSERT_EQ(jp_recorder_add_trace(trace.string().c_str()), JP_OK) << jp_last_error();
  jp_recorder_stop();
  const std::string path = (dir.path() / "spans.json").string();
  ASSERT_EQ(jp_recorder_write_spans(path.c_str()), JP_OK) << jp_last_error();
  auto dump = read_span_dump(path);
  ASSERT_TRUE(dump.ok()) << dump.error().message();
  const Timeline& t = dump->timeline;
  ASSERT_EQ(t.spans().size(), 3U) << "the clock reference is not a span";
  std::uint32_t addmm = kNoIndex;
  for (std::uint32_t i = 0; i < t.spans().size(); ++i) {
    const Span& s = t.spans()[i];
    EXPECT_EQ(t.tracks()[s.track].name.rfind("trace: ", 0), 0U) << t.tracks()[s.track].name;
    if (t.name(s.name) == "aten::addmm") addmm = i;
  }
  ASSERT_NE(addmm, kNoIndex);
  EXPECT_EQ(t.path_of(addmm), "Net/aten::addmm");
  EXPECT_EQ(t.spans()[addmm].category, SpanCategory::kOp);
  // The clock mapped from the scope: 5 s at 10 µs, so addmm begins 20 µs later.
  EXPECT_EQ(t.spans()[addmm].begin_ns, 5'000'000'000 + 20'000);
}

TEST(RecorderCApi, AddTraceRefusesATraceWithoutAClock) {
  const TempDir dir;
  const auto trace = dir.write("trace.json", R"([{"name": "aten::addmm", "ph": "X", "ts": 30,
      "dur": 50, "tid": 1, "pid": "CPU functions", "args": {}}])");
  EXPECT_EQ(jp_recorder_add_trace(trace.string().c_str()), JP_ERR_INVALID_INPUT);
  EXPECT_NE(std::string(jp_last_error()).find("clock"), std::string::npos) << jp_last_error();
  EXPECT_EQ(jp_recorder_add_trace((dir.path() / "missing.json").string().c_str()),
            JP_ERR_NOT_FOUND);
  EXPECT_NE(std::string(jp_last_error()).find("missing.json"), std::string::npos);
  EXPECT_EQ(jp_recorder_add_trace(nullptr), JP_ERR_INVALID_INPUT);
}

}  // namespace
}  // namespace jouleprof
