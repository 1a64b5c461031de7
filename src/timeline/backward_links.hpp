// Backward → module links in imported torch.profiler traces: every autograd node the engine ran
// goes under the module whose forward op created it, the way the libtorch observer records it
// live (src/torch/observer.cpp).
//
// The profiler records, on each op that feeds autograd, the number of the node it creates
// ("Sequence number"; the last op to see a number before autograd takes it is the creator) and,
// on the node when the engine evaluates it, the same number with the forward thread's id ("Fwd
// thread id": the profiler's own thread number, not the trace's tid, so forward threads are
// matched by the numbers their ops share). AccumulateGrad has no number: the engine runs it as
// soon as its gradient is ready (it has the highest priority of the ready queue), right after the
// node that produced that gradient, and is charged to that node's module.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/timeline.hpp"

namespace jouleprof::timeline {

// What the linking reads of one host-track span of the trace, before parents are known.
struct AutogradSpan {
  TimeNs begin_ns = 0;
  TimeNs end_ns = 0;
  std::uint32_t track = 0;       // the importer's track index
  std::uint32_t name = 0;        // timeline name id; a module's name for layers
  bool layer = false;            // an nn.Module scope
  bool backward = false;         // evidence of the backward pass (a node or the engine's wrapper)
  bool accumulate_grad = false;  // torch::autograd::AccumulateGrad
  std::int64_t sequence = -1;    // "Sequence number", -1 when absent
  std::int64_t fwd_thread = 0;   // "Fwd thread id"
};

// A kLayer span with the pass kBackward to insert around `wraps` (an index into the spans given):
// same begin and end, so that containment makes it the wrapped span's parent.
struct BackwardModuleSpan {
  std::size_t wraps = 0;
  std::string module_path;  // "TinyNet/encoder/encoder.0": the forward op's enclosing modules
};

struct BackwardLinks {
  std::vector<BackwardModuleSpan> module_spans;
  // Outermost spans with backward evidence (the engine's evaluate_function wrappers, or the
  // nodes themselves where the trace has no wrapper): their time and how much of it was linked.
  std::uint64_t nodes = 0;
  std::uint64_t linked_nodes = 0;  // to the forward op that created them
  std::uint64_t module_nodes = 0;  // … and that op ran inside a module
  TimeNs backward_ns = 0;
  TimeNs linked_ns = 0;
  TimeNs module_ns = 0;
};

BackwardLinks link_backward(const std::vector<AutogradSpan>& spans, const Timeline& names);

}  // namespace jouleprof::timeline
