// Progress of long work (gated measurements, kernel benches, calibrations, random searches),
// handed to a callback as events. Library code never prints: the CLI renders the events on the
// terminal, a C or Python caller gets them through its own callback (jp_progress_fn).
//
//   ProgressReporter progress([](const ProgressEvent& e) { show(e); });
//   progress.begin("kernel-bench", kernels.size(), estimate_ns);
//   measure_kernels(kernels, make_call, options, on_outcome, &progress);
//   progress.end();
//
// The work reports where it is: the item (kernel, input size, op class) k of N, the step
// (repetition) r of R inside it, the phase (warm-up, gate, calls, tail), and while the stability
// gate waits, the channel furthest from passing with its CV and threshold (or its temperature and
// cap). Each event carries the elapsed time and an ETA: from the share of the work done once some
// is, from the up-front estimate before that.
//
// Events come on the thread doing the work. request_stop() asks the work to end at its next
// checkpoint (it is async-signal-safe, for a SIGINT handler); the work then keeps what it
// finished, as after a failure, and says what it did not measure.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "jouleprof/clock.hpp"

namespace jouleprof {

// Fixed values: the C API passes them on as integers (JP_PROGRESS_*).
enum class ProgressEventKind : int {
  kBegin = 0,  // the work starts: task, items, estimate
  kItem = 1,   // item k of N starts
  kStep = 2,   // step r of R of the current item starts
  kPhase = 3,  // the current step enters a phase
  kGate = 4,   // the stability gate checked the machine
  kTick = 5,   // time passes inside a phase (at most once per tick period)
  kEnd = 6,    // the work ended (finished or stopped)
};

// The stability gate at its last check.
struct GateState {
  std::string channel_id;  // the channel furthest from passing ("" when none was checked)
  double value = 0.0;      // its CV, or its mean temperature in °C
  double threshold = 0.0;  // the CV threshold, or the temperature cap
  bool temperature = false;
  bool passed = false;
  std::uint32_t checks = 0;
  TimeNs waited_ns = 0;
  TimeNs timeout_ns = 0;
  std::string note;  // why a channel cannot be judged yet ("4 of the 10 samples needed so far")
};

struct ProgressEvent {
  ProgressEventKind kind = ProgressEventKind::kBegin;
  std::string task;       // "measure", "kernel-bench", "calibrate", "pre search" …
  std::size_t item = 0;   // 1-based; 0 before the first item
  std::size_t items = 0;  // 0: the work has no items (one measurement)
  std::string item_name;
  std::size_t step = 0;  // 1-based; 0 before the first step
  std::size_t steps = 0;
  std::string phase;
  std::optional<GateState> gate;  // while the current phase is the gate
  TimeNs elapsed_ns = 0;
  TimeNs estimate_ns = 0;        // the whole work, as estimated up front (0: none)
  std::optional<TimeNs> eta_ns;  // time left; none when neither an estimate nor a share is known
  double done = 0.0;             // share of the work done, 0 … 1
  bool stop_requested = false;
};

using ProgressCallback = std::function<void(const ProgressEvent&)>;
using ProgressClock = std::function<TimeNs()>;

class ProgressReporter {
 public:
  // An empty callback makes a reporter that only tracks state and stop requests.
  explicit ProgressReporter(ProgressCallback callback = {}, ProgressClock clock = {},
                            TimeNs tick_period_ns = kNsPerS);
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  // items = 0 when the work is one measurement (its steps then give the share done).
  void begin(std::string task, std::size_t items, TimeNs estimate_ns);
  void item(std::size_t index, std::string name);   // 1-based index
  void step(std::size_t index, std::size_t steps);  // 1-based index
  void phase(std::string name);
  void gate(GateState state);
  // Called often by waiting and looping code; forwards an event at most once per tick period.
  void tick();
  void end();

  // Async-signal-safe: a lock-free atomic store.
  void request_stop() { stop_.store(true, std::memory_order_relaxed); }
  bool stop_requested() const { return stop_.load(std::memory_order_relaxed); }

  TimeNs elapsed_ns() const;
  const ProgressEvent& last() const { return state_; }

 private:
  void emit(ProgressEventKind kind);

  ProgressCallback callback_;
  ProgressClock clock_;
  TimeNs tick_period_ns_;
  TimeNs began_ns_ = 0;
  TimeNs last_emit_ns_ = 0;
  ProgressEvent state_;
  std::atomic<bool> stop_{false};
  static_assert(std::atomic<bool>::is_always_lock_free);
};

// The reporter a library function uses when its caller passed none: it tracks, reports nothing.
class ProgressOrSilent {
 public:
  explicit ProgressOrSilent(ProgressReporter* progress) : p_(progress ? *progress : silent_) {}
  ProgressReporter* operator->() { return &p_; }
  ProgressReporter& operator*() { return p_; }

 private:
  ProgressReporter silent_;
  ProgressReporter& p_;
};

// Sleeps until t_ns (monotonic) in slices of at most 200 ms, ticking `progress` after each, so that
// the progress line keeps moving and a stop is heard within one slice. false when a stop was
// asked before t_ns.
bool wait_until(TimeNs t_ns, ProgressReporter& progress);

}  // namespace jouleprof
