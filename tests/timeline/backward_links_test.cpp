#include "timeline/backward_links.hpp"

#include <gtest/gtest.h>

namespace jouleprof::timeline {
namespace {

// A trace in miniature: spans on tracks, built in the order the tests list them.
class Trace {
 public:
  std::size_t layer(std::uint32_t track, TimeNs b, TimeNs e, std::string_view name) {
    AutogradSpan s = make(track, b, e, name);
    s.layer = true;
    return add(s);
  }
  std::size_t forward_op(std::uint32_t track, TimeNs b, TimeNs e, std::int64_t sequence) {
    AutogradSpan s = make(track, b, e, "aten::op");
    s.sequence = sequence;
    return add(s);
  }
  std::size_t node(std::uint32_t track, TimeNs b, TimeNs e, std::int64_t sequence,
                   std::int64_t fwd_thread = 1) {
    AutogradSpan s = make(track, b, e, "XBackward0");
    s.backward = true;
    s.sequence = sequence;
    s.fwd_thread = fwd_thread;
    return add(s);
  }
  std::size_t accumulate_grad(std::uint32_t track, TimeNs b, TimeNs e) {
    AutogradSpan s = make(track, b, e, "torch::autograd::AccumulateGrad");
    s.backward = true;
    s.accumulate_grad = true;
    return add(s);
  }
  BackwardLinks link() const { return link_backward(spans, names); }
  std::string module_of(const BackwardLinks& links, std::size_t span) const {
    for (const BackwardModuleSpan& m : links.module_spans) {
      if (m.wraps == span) return m.module_path;
    }
    return "";
  }

  std::vector<AutogradSpan> spans;
  Timeline names;

 private:
  AutogradSpan make(std::uint32_t track, TimeNs b, TimeNs e, std::string_view name) {
    AutogradSpan s;
    s.track = track;
    s.begin_ns = b;
    s.end_ns = e;
    s.name = names.intern(name);
    return s;
  }
  std::size_t add(const AutogradSpan& s) {
    spans.push_back(s);
    return spans.size() - 1;
  }
};

TEST(BackwardLinks, NodeGoesUnderTheModuleOfTheOpThatCreatedIt) {
  Trace t;
  t.layer(0, 0, 100, "Net");
  t.layer(0, 10, 40, "big");
  t.forward_op(0, 12, 30, 7);  // aten::linear: sees 7 first
  t.forward_op(0, 14, 20, 7);  // aten::t inside it: the last to see 7, it creates node 7
  t.layer(0, 50, 90, "small");
  t.forward_op(0, 52, 60, 8);
  const std::size_t node8 = t.node(1, 200, 220, 8);  // backward runs the later node first
  const std::size_t node7 = t.node(1, 230, 300, 7);
  const BackwardLinks links = t.link();
  EXPECT_EQ(t.module_of(links, node8), "Net/small");
  EXPECT_EQ(t.module_of(links, node7), "Net/big");
  EXPECT_EQ(links.nodes, 2U);
  EXPECT_EQ(links.module_nodes, 2U);
  EXPECT_EQ(links.backward_ns, 90);
  EXPECT_EQ(links.module_ns, 90);
}

TEST(BackwardLinks, OnlyTheOutermostBackwardSpanIsLinkedAndAWrapperTakesItsNodesNumber) {
  Trace t;
  t.layer(0, 0, 50, "Net");
  t.forward_op(0, 10, 20, 3);
  // The engine's wrapper without a number of its own, the node inside with it.
  AutogradSpan wrapper;
  wrapper.track = 1;
  wrapper.begin_ns = 100;
  wrapper.end_ns = 200;
  wrapper.name = t.names.intern("autograd::engine::evaluate_function: XBackward0");
  wrapper.backward = true;
  t.spans.push_back(wrapper);
  const std::size_t inner = t.node(1, 110, 190, 3);
  const BackwardLinks links = t.link();
  ASSERT_EQ(links.module_spans.size(), 1U);
  EXPECT_EQ(links.module_spans[0].wraps, 2U);  // the wrapper, not the node inside
  EXPECT_EQ(t.module_of(links, inner), "");
  EXPECT_EQ(links.nodes, 1U);
  EXPECT_EQ(links.backward_ns, 100);
}

TEST(BackwardLinks, AccumulateGradFollowsTheNodeBeforeIt) {
  Trace t;
  t.layer(0, 0, 50, "Net");
  t.forward_op(0, 10, 20, 1);
  t.node(1, 100, 120, 1);
  const std::size_t accumulate = t.accumulate_grad(1, 121, 125);
  const std::size_t second = t.accumulate_grad(1, 126, 130);  // a chain: bias, then weight
  const BackwardLinks links = t.link();
  EXPECT_EQ(t.module_of(links, accumulate), "Net");
  EXPECT_EQ(t.module_of(links, second), "Net");
  EXPECT_EQ(links.linked_nodes, 3U);
}

TEST(BackwardLinks, UnknownNumbersAndOpsOutsideModulesAreCountedNotLinked) {
  Trace t;
  t.forward_op(0, 0, 10, 5);  // the loss: outside every module
  t.layer(0, 20, 40, "Net");
  t.forward_op(0, 25, 30, 6);
  const std::size_t loss = t.node(1, 100, 110, 5);
  const std::size_t lost = t.node(1, 120, 150, 99);  // created before the profiler started
  const std::size_t net = t.node(1, 160, 170, 6);
  const std::size_t first = t.accumulate_grad(2, 10, 20);  // nothing before it on its track
  const BackwardLinks links = t.link();
  EXPECT_EQ(t.module_of(links, loss), "");
  EXPECT_EQ(t.module_of(links, lost), "");
  EXPECT_EQ(t.module_of(links, first), "");
  EXPECT_EQ(t.module_of(links, net), "Net");
  EXPECT_EQ(links.nodes, 4U);
  EXPECT_EQ(links.linked_nodes, 2U);  // the loss's node and Net's
  EXPECT_EQ(links.module_nodes, 1U);
  EXPECT_EQ(links.backward_ns, 10 + 30 + 10 + 10);
  EXPECT_EQ(links.linked_ns, 20);
  EXPECT_EQ(links.module_ns, 10);
}

TEST(BackwardLinks, ForwardThreadsAreMatchedByTheNumbersTheirOpsShare) {
  // Two forward threads reuse the same numbers; fwd_thread 1 and 2 are the profiler's own thread
  // numbers, unrelated to the trace's track order.
  Trace t;
  t.layer(0, 0, 100, "A");
  t.forward_op(0, 10, 20, 1);
  t.forward_op(0, 30, 40, 2);
  t.layer(1, 0, 100, "B");
  t.forward_op(1, 10, 20, 1);
  t.forward_op(1, 30, 40, 3);
  const std::size_t from_b = t.node(2, 200, 210, 3, 2);  // only B created 3: thread 2 is B
  const std::size_t one_b = t.node(2, 220, 230, 1, 2);
  const std::size_t from_a = t.node(2, 240, 250, 2, 1);  // only A created 2: thread 1 is A
  const std::size_t one_a = t.node(2, 260, 270, 1, 1);
  const BackwardLinks links = t.link();
  EXPECT_EQ(t.module_of(links, from_b), "B");
  EXPECT_EQ(t.module_of(links, one_b), "B");
  EXPECT_EQ(t.module_of(links, from_a), "A");
  EXPECT_EQ(t.module_of(links, one_a), "A");
}

TEST(BackwardLinks, NoBackwardPassNoLinks) {
  Trace t;
  t.layer(0, 0, 100, "Net");
  t.forward_op(0, 10, 20, 1);
  const BackwardLinks links = t.link();
  EXPECT_TRUE(links.module_spans.empty());
  EXPECT_EQ(links.nodes, 0U);
  EXPECT_EQ(links.backward_ns, 0);
}

}  // namespace
}  // namespace jouleprof::timeline
