#include <gtest/gtest.h>

#include "jouleprof/torch.hpp"

namespace jouleprof::torch_adapter {
namespace {

// aten::linear [0, 100) ⊃ aten::addmm [10, 90) with shapes; a layer span above does not count.
TEST(OpTimes, SelfTimeLeavesOutNestedOpsAndIsKeptPerSignature) {
  Timeline tl;
  const auto track = tl.add_track(Track{TrackKind::kCpuThread, "main", "cpu0"});
  const auto layer = tl.add_span(
      Span{0, 200, track, tl.intern("encoder"), kNoIndex, kNoIndex, SpanCategory::kLayer});
  const auto linear = tl.add_span(
      Span{0, 100, track, tl.intern("aten::linear"), layer, kNoIndex, SpanCategory::kOp});
  const auto shapes = tl.add_attributes({{"shapes", "f32[8,4], f32[4,4]"}});
  tl.add_span(Span{10, 90, track, tl.intern("aten::addmm"), linear, shapes, SpanCategory::kOp});
  tl.add_span(Span{120, 150, track, tl.intern("aten::addmm"), layer, kNoIndex, SpanCategory::kOp});

  const OpTimes times = op_self_times(tl);
  EXPECT_EQ(times.total_ns, 20 + 80 + 30);
  EXPECT_EQ(times.by_class.at("aten::linear"), 20);
  EXPECT_EQ(times.by_class.at("aten::addmm"), 110);
  EXPECT_EQ(times.by_signature.at({"aten::addmm", "f32[8,4], f32[4,4]"}), 80);
  EXPECT_EQ(times.by_signature.at({"aten::addmm", ""}), 30);
  EXPECT_EQ(times.by_class.count("encoder"), 0u);
}

}  // namespace
}  // namespace jouleprof::torch_adapter
