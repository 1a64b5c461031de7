#include "jouleprof/timeline.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace jouleprof {
namespace {

TEST(Timeline, InternsNamesAndBuildsPaths) {
  Timeline t;
  const auto track = t.add_track(Track{TrackKind::kCpuThread, "main", "cpu0"});
  EXPECT_EQ(t.intern("bert"), t.intern("bert"));
  const auto model = t.add_span(Span{0, 100, track, t.intern("bert")});
  Span layer{10, 50, track, t.intern("encoder/layer_3")};
  layer.parent = model;
  const auto layer_id = t.add_span(layer);
  Span op{20, 30, track, t.intern("aten::addmm")};
  op.parent = layer_id;
  const auto op_id = t.add_span(op);
  EXPECT_EQ(t.path_of(op_id), "bert/encoder/layer_3/aten::addmm");
  EXPECT_EQ(t.extent(), (std::pair<TimeNs, TimeNs>{0, 100}));
  EXPECT_TRUE(t.shift(1000));
  EXPECT_EQ(t.spans()[op_id].begin_ns, 1020);
  // An offset that would wrap a time moves nothing.
  EXPECT_FALSE(t.shift(std::numeric_limits<TimeNs>::max() - 1000));
  EXPECT_EQ(t.spans()[op_id].begin_ns, 1020);
}

TEST(Timeline, ParentCyclesAreFound) {
  Timeline t;
  const auto track = t.add_track(Track{TrackKind::kCpuThread, "main", "cpu0"});
  const auto name = t.intern("s");
  for (int i = 0; i < 4; ++i) t.add_span(Span{0, 1, track, name});
  t.spans()[1].parent = 0;
  t.spans()[2].parent = 1;
  EXPECT_FALSE(t.find_parent_cycle());
  t.spans()[0].parent = 2;  // 0 → 2 → 1 → 0
  ASSERT_TRUE(t.find_parent_cycle());
  EXPECT_LT(*t.find_parent_cycle(), 3u);
  t.spans()[0].parent = kNoIndex;
  t.spans()[3].parent = 3;  // its own parent
  EXPECT_EQ(t.find_parent_cycle(), std::optional<std::uint32_t>(3));
  t.spans()[3].parent = 99;  // past the end: no parent
  EXPECT_FALSE(t.find_parent_cycle());
}

}  // namespace
}  // namespace jouleprof
