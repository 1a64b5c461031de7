#include "timeline/collectives.hpp"

#include <gtest/gtest.h>

#include <string>

#include "jouleprof/trace_import.hpp"

namespace jouleprof::timeline {
namespace {

// DDP on gloo, as torch.profiler records it: the step on the training thread, the all-reduce
// started by a gradient hook inside AccumulateGrad, and gloo's own part on its worker thread,
// outside every step; before the steps, the broadcast of DDP's construction.
constexpr std::string_view kDdpTrace = R"([
  {"name": "gloo:broadcast", "cat": "user_annotation", "ph": "X", "ts": 500, "dur": 100,
   "pid": 1, "tid": 2, "args": {}},
  {"name": "ProfilerStep#0", "cat": "user_annotation", "ph": "X", "ts": 1000, "dur": 100000,
   "pid": 1, "tid": 1, "args": {}},
  {"name": "torch::autograd::AccumulateGrad", "cat": "cpu_op", "ph": "X", "ts": 40000,
   "dur": 20000, "pid": 1, "tid": 1, "args": {"Sequence number": 5, "Fwd thread id": 1}},
  {"name": "c10d::allreduce_", "cat": "cpu_op", "ph": "X", "ts": 45000, "dur": 5000,
   "pid": 1, "tid": 1, "args": {}},
  {"name": "aten::empty", "cat": "cpu_op", "ph": "X", "ts": 46000, "dur": 1000,
   "pid": 1, "tid": 1, "args": {}},
  {"name": "gloo:all_reduce", "cat": "user_annotation", "ph": "X", "ts": 50000, "dur": 30000,
   "pid": 1, "tid": 2, "args": {}},
  {"name": "aten::add_", "cat": "cpu_op", "ph": "X", "ts": 55000, "dur": 1000,
   "pid": 1, "tid": 2, "args": {}}
])";

std::uint32_t only_span(const Timeline& t, std::string_view name) {
  std::uint32_t found = kNoIndex;
  for (std::uint32_t s = 0; s < t.spans().size(); ++s) {
    if (t.name(t.spans()[s].name) != name) continue;
    EXPECT_EQ(found, kNoIndex) << "two spans named " << name;
    found = s;
  }
  EXPECT_NE(found, kNoIndex) << "no span named " << name;
  return found;
}

TEST(Collectives, KnowsTorchDistributedsAndNcclsNames) {
  for (const std::string_view name :
       {"c10d::allreduce_", "gloo:all_reduce", "nccl:all_reduce", "ncclKernel_AllReduce_RING_LL",
        "ncclDevKernel_AllGather_RING_LL", "mpi:broadcast", "ucc:all_to_all",
        "record_param_comms"}) {
    EXPECT_TRUE(is_collective(name)) << name;
  }
  for (const std::string_view name :
       {"aten::add_", "torch.distributed.ddp.reducer::copy_bucket_to_grad", "Optimizer.step",
        "DistributedDataParallel.forward"}) {
    EXPECT_FALSE(is_collective(name)) << name;
  }
}

TEST(Collectives, ImportMarksThemAndPutsAnotherThreadsUnderTheRunningStep) {
  auto imported = import_trace_text(std::string(kDdpTrace), "ddp.json");
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const Timeline& t = imported->timeline;
  const auto& spans = t.spans();
  const std::uint32_t step = only_span(t, "step");  // ProfilerStep#N, named as a step
  const std::uint32_t hook_reduce = only_span(t, "c10d::allreduce_");
  const std::uint32_t gloo_reduce = only_span(t, "gloo:all_reduce");
  EXPECT_EQ(spans[hook_reduce].pass, Pass::kCommunication);
  EXPECT_EQ(spans[only_span(t, "aten::empty")].pass, Pass::kCommunication) << "inside it";
  EXPECT_EQ(spans[only_span(t, "aten::add_")].pass, Pass::kCommunication) << "inside gloo's";
  EXPECT_EQ(spans[only_span(t, "torch::autograd::AccumulateGrad")].pass, Pass::kBackward);
  // On its own thread the hook's all-reduce keeps its parent (its time stays carved out of the
  // hook's); the tree lifts it. gloo's part had none: it gets the step that was running.
  EXPECT_EQ(spans[hook_reduce].parent, only_span(t, "torch::autograd::AccumulateGrad"));
  EXPECT_EQ(spans[gloo_reduce].parent, step);
  EXPECT_EQ(spans[only_span(t, "gloo:broadcast")].parent, kNoIndex) << "before every step";
  EXPECT_FALSE(t.find_parent_cycle().has_value());
}

}  // namespace
}  // namespace jouleprof::timeline
