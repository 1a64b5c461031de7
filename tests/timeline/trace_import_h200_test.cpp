// The real PyTorch profiler traces of BERT-base training on an H200 (../shared/data/h200).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "jouleprof/trace_import.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::shared_data;

struct Counts {
  std::size_t kernels = 0;
  std::size_t memory_ops = 0;
  std::size_t cpu_ops = 0;
  std::size_t runtime_calls = 0;
  std::map<Pass, std::size_t> kernels_by_pass;
};

Counts count(const Timeline& t) {
  Counts c;
  for (const Span& s : t.spans()) {
    switch (s.category) {
      case SpanCategory::kKernel:
        ++c.kernels;
        ++c.kernels_by_pass[s.pass];
        break;
      case SpanCategory::kMemory:
        ++c.memory_ops;
        break;
      case SpanCategory::kOp:
        ++c.cpu_ops;
        break;
      case SpanCategory::kCall:
        ++c.runtime_calls;
        break;
      default:
        break;
    }
  }
  return c;
}

TEST(H200Traces, CpuAndCudaTraceHasEveryActivity) {
  JP_REQUIRE_SHARED_DATA("h200/bert_cpu_cuda_short.json.gz");
  auto imported = import_trace((shared_data() / "h200/bert_cpu_cuda_short.json.gz").string());
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const Timeline& t = imported->timeline;
  EXPECT_EQ(imported->format, TraceFormat::kKineto);
  Counts c = count(t);
  // Counted independently from the file (Python's json module): 29 720 kernels, 5 160 memsets,
  // 267 520 cpu_op events, 41 683 runtime + 3 480 driver calls.
  EXPECT_EQ(c.kernels, 29'720U);
  EXPECT_EQ(c.memory_ops, 5'160U);
  EXPECT_EQ(c.cpu_ops, 267'520U);
  EXPECT_EQ(c.runtime_calls, 41'683U + 3'480U);
  EXPECT_EQ(imported->gpu_spans, c.kernels + c.memory_ops + 40U) << "plus 40 GPU annotations";
  EXPECT_EQ(imported->gpu_spans_linked, c.kernels + c.memory_ops)
      << "every kernel finds its launch";

  std::set<std::string> gpu_tracks;
  std::size_t cpu_tracks = 0;
  for (const Track& tr : t.tracks()) {
    if (tr.kind == TrackKind::kGpuStream) {
      gpu_tracks.insert(tr.name + "@" + tr.device);
    } else {
      ++cpu_tracks;
    }
  }
  EXPECT_EQ(gpu_tracks, std::set<std::string>{"stream 7@gpu0"});
  EXPECT_EQ(cpu_tracks, 2U) << "the main thread and the autograd thread";

  // The training step's structure: forward, backward and optimizer kernels are all there.
  EXPECT_GT(c.kernels_by_pass[Pass::kForward], 0U);
  EXPECT_GT(c.kernels_by_pass[Pass::kBackward], 0U);
  EXPECT_GT(c.kernels_by_pass[Pass::kOptimizer], 0U);
  // Parents from containment: an addmm sits under its linear.
  bool addmm_under_linear = false;
  for (std::uint32_t i = 0; i < t.spans().size() && !addmm_under_linear; ++i) {
    const Span& s = t.spans()[i];
    addmm_under_linear = t.name(s.name) == "aten::addmm" && s.parent != kNoIndex &&
                         t.name(t.spans()[s.parent].name) == "aten::linear";
  }
  EXPECT_TRUE(addmm_under_linear);
}

TEST(H200Traces, BackwardNodesAreLinkedToTheForwardOpsThatCreatedThem) {
  JP_REQUIRE_SHARED_DATA("h200/bert_cpu_cuda_short.json.gz");
  auto imported = import_trace((shared_data() / "h200/bert_cpu_cuda_short.json.gz").string());
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const BackwardLinkStats& b = imported->backward;
  // Counted independently (Python's json module): 27 920 outermost cpu_op spans on the autograd
  // thread (pt_autograd_0), 1.170 s; those with a Sequence number hold 94.5 % of that time and
  // all have their creating op on the main thread; the other 5.5 % are the 8 040 AccumulateGrad
  // nodes, which follow the node that produced their gradient.
  EXPECT_EQ(b.nodes, 27'920U);
  EXPECT_NEAR(ns_to_s(b.backward_ns), 1.16994, 1e-4);
  const double linked = static_cast<double>(b.linked_ns) / static_cast<double>(b.backward_ns);
  EXPECT_GE(linked, 0.95);
  EXPECT_EQ(b.linked_nodes, b.nodes);
  // The trace has no module scopes (recorded without with_stack and without jouleprof's hooks):
  // no node can go under a module, and the importer's numbers say so.
  EXPECT_EQ(b.module_nodes, 0U);
  EXPECT_DOUBLE_EQ(b.unlinked_share(), 1.0);
}

TEST(H200Traces, EveryKernelFallsInsideTheRunMarksAfterClockMapping) {
  JP_REQUIRE_SHARED_DATA("h200/bert_fold.json.gz");
  const auto meta =
      nlohmann::json::parse(testing::read_file(shared_data() / "h200/meta_fold.json"));
  TraceImportOptions options;
  options.anchor = ClockAnchor{meta.at("anchor_monotonic_ns").get<TimeNs>(),
                               meta.at("anchor_realtime_ns").get<TimeNs>()};
  TimeNs train_begin = 0;
  TimeNs train_end = 0;
  for (const auto& mark : meta.at("marks")) {
    if (mark.at(0) == "train_begin") train_begin = mark.at(1).get<TimeNs>();
    if (mark.at(0) == "train_end") train_end = mark.at(1).get<TimeNs>();
  }
  ASSERT_LT(train_begin, train_end);

  auto imported = import_trace((shared_data() / "h200/bert_fold.json.gz").string(), options);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const Timeline& t = imported->timeline;
  EXPECT_EQ(imported->offset_ns, options.anchor->monotonic_ns - options.anchor->realtime_ns);
  EXPECT_NE(imported->clock_mapping.find("baseTimeNanoseconds"), std::string::npos);

  std::size_t kernels = 0;
  TimeNs first = std::numeric_limits<TimeNs>::max();
  TimeNs last = std::numeric_limits<TimeNs>::min();
  for (const Span& s : t.spans()) {
    if (s.category != SpanCategory::kKernel) continue;
    ++kernels;
    first = std::min(first, s.begin_ns);
    last = std::max(last, s.end_ns);
  }
  EXPECT_EQ(kernels, 190'208U);
  EXPECT_GE(first, train_begin);
  EXPECT_LE(last, train_end);
  // And tightly: the run is the kernels (within a millisecond at either end).
  EXPECT_LT(first - train_begin, kNsPerMs);
  EXPECT_LT(train_end - last, kNsPerMs);
}

}  // namespace
}  // namespace jouleprof
