#include "jouleprof/progress.hpp"

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

namespace jouleprof {

ProgressReporter::ProgressReporter(ProgressCallback callback, ProgressClock clock,
                                   TimeNs tick_period_ns)
    : callback_(std::move(callback)),
      clock_(clock ? std::move(clock) : ProgressClock(monotonic_now_ns)),
      tick_period_ns_(tick_period_ns) {
  began_ns_ = clock_();
  last_emit_ns_ = began_ns_;
}

TimeNs ProgressReporter::elapsed_ns() const { return clock_() - began_ns_; }

void ProgressReporter::begin(std::string task, std::size_t items, TimeNs estimate_ns) {
  began_ns_ = clock_();
  state_ = ProgressEvent{};
  state_.task = std::move(task);
  state_.items = items;
  state_.estimate_ns = estimate_ns;
  emit(ProgressEventKind::kBegin);
}

void ProgressReporter::item(std::size_t index, std::string name) {
  state_.item = index;
  state_.item_name = std::move(name);
  state_.step = 0;
  state_.steps = 0;
  state_.phase.clear();
  state_.gate.reset();
  emit(ProgressEventKind::kItem);
}

void ProgressReporter::step(std::size_t index, std::size_t steps) {
  state_.step = index;
  state_.steps = steps;
  state_.phase.clear();
  state_.gate.reset();
  emit(ProgressEventKind::kStep);
}

void ProgressReporter::phase(std::string name) {
  state_.phase = std::move(name);
  state_.gate.reset();
  emit(ProgressEventKind::kPhase);
}

void ProgressReporter::gate(GateState state) {
  state_.gate = std::move(state);
  emit(ProgressEventKind::kGate);
}

void ProgressReporter::tick() {
  if (clock_() - last_emit_ns_ >= tick_period_ns_) emit(ProgressEventKind::kTick);
}

void ProgressReporter::end() {
  state_.phase.clear();
  state_.gate.reset();
  emit(ProgressEventKind::kEnd);
}

void ProgressReporter::emit(ProgressEventKind kind) {
  const TimeNs now = clock_();
  last_emit_ns_ = now;
  state_.kind = kind;
  state_.elapsed_ns = now - began_ns_;
  state_.stop_requested = stop_requested();
  // The share done counts finished steps and items only: the one under way adds nothing yet.
  const double step_share =
      state_.steps > 0 && state_.step > 0
          ? static_cast<double>(state_.step - 1) / static_cast<double>(state_.steps)
          : 0.0;
  if (kind == ProgressEventKind::kEnd && !state_.stop_requested) {
    state_.done = 1.0;
  } else if (state_.items > 0) {
    const double items_done = state_.item > 0 ? static_cast<double>(state_.item - 1) : 0.0;
    state_.done = std::min(1.0, (items_done + step_share) / static_cast<double>(state_.items));
  } else {
    state_.done = step_share;
  }
  if (kind == ProgressEventKind::kEnd) {
    state_.eta_ns = 0;
  } else if (state_.done > 0.0) {
    state_.eta_ns = static_cast<TimeNs>(static_cast<double>(state_.elapsed_ns) *
                                        (1.0 - state_.done) / state_.done);
  } else if (state_.estimate_ns > 0) {
    state_.eta_ns = std::max<TimeNs>(0, state_.estimate_ns - state_.elapsed_ns);
  } else {
    state_.eta_ns.reset();
  }
  if (callback_) callback_(state_);
}

bool wait_until(TimeNs t_ns, ProgressReporter& progress) {
  constexpr TimeNs kSliceNs = 200 * kNsPerMs;
  for (TimeNs now = monotonic_now_ns(); now < t_ns; now = monotonic_now_ns()) {
    if (progress.stop_requested()) return false;
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min(t_ns - now, kSliceNs)));
    progress.tick();
  }
  return !progress.stop_requested();
}

}  // namespace jouleprof
