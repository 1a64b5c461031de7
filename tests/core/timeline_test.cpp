#include "jouleprof/timeline.hpp"

#include <gtest/gtest.h>

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
  t.shift(1000);
  EXPECT_EQ(t.spans()[op_id].begin_ns, 1020);
}

}  // namespace
}  // namespace jouleprof
