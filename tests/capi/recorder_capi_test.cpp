// The recording section of the C API, called as a C program would.
#include <gtest/gtest.h>
#include <unistd.h>

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

}  // namespace
}  // namespace jouleprof
