// Collective communication in a training step: all-reduce, broadcast, all-gather... of
// torch.distributed (c10d::*, gloo:*, nccl:*, mpi:*, ucc:*, record_param_comms) and NCCL's
// kernels (nccl*). The profiler leaves them where they happen to start, which is not where a
// reader looks for them: DDP starts its all-reduce from a gradient hook, so the collective nests
// under the module whose AccumulateGrad fired, and gloo runs its part on a thread of its own,
// outside every step. Both belong to the step that waits for them.
#pragma once

#include <cstdint>
#include <string_view>

#include "jouleprof/timeline.hpp"

namespace jouleprof::timeline {

bool is_collective(std::string_view name);

struct CollectiveMarks {
  std::uint64_t spans = 0;       // spans marked Pass::kCommunication (collectives and inside them)
  std::uint64_t into_steps = 0;  // collectives without a parent, given the step they ran in
};

// Marks every collective span and the spans inside it (on its track) Pass::kCommunication. A
// collective without a parent span (another thread's, a GPU stream's) gets, as its parent, the
// step span (SpanCategory::kStep, on any track) that was running when it began. The tree then
// holds them in a [communication] node under their step (attribution/profile_tree.cpp); only
// parents across tracks are set, so no span's own time changes.
CollectiveMarks mark_collectives(Timeline& timeline);

}  // namespace jouleprof::timeline
