// A machine shared by two processes, with ground truth, for the process-share rule's known-answer
// test (docs/sharing.md): every scheduler tick each CPU runs process A, process B or nothing, at
// random with A's given share of the busy ticks and a load that changes from phase to phase; the
// package draws idle power plus a power per busy CPU (per process, so that the rule's blind spot,
// processes that draw differently per CPU-second, can be shown too). Out come what a run records:
// a RAPL-like energy counter and the process source's busy-time series (A's CPU time, all CPUs'
// busy and idle time) in whole ticks, read with a poller's jitter. Seeded.
#pragma once

#include <cstdint>

#include "jouleprof/clock.hpp"
#include "jouleprof/series.hpp"

namespace jouleprof::attribution {

struct SharedCpuOptions {
  std::uint64_t seed = 1;
  int cpus = 4;
  TimeNs run_ns = 20 * kNsPerS;
  TimeNs tick_ns = 10 * kNsPerMs;  // USER_HZ = 100
  TimeNs phase_ns = 2 * kNsPerS;   // the load changes this often
  double a_share_of_busy = 0.75;
  double idle_power_w = 20.0;
  double cpu_power_a_w = 10.0;  // per busy CPU
  double cpu_power_b_w = 10.0;
  TimeNs activity_period_ns = 100 * kNsPerMs;
  TimeNs max_read_delay_ns = 2 * kNsPerMs;
};

struct SharedCpuRun {
  Series energy{Channel{}};      // "sim:package", device cpu0, cumulative J (61 µJ unit, 1 ms)
  Series a_cpu_time{Channel{}};  // "processes:cpu:cpu-time": A's CPU time, whole ticks
  Series busy{Channel{}};        // "processes:cpu:busy"
  Series idle{Channel{}};        // "processes:cpu:idle"
  TimeNs begin_ns = 0;
  TimeNs end_ns = 0;
  double a_dynamic_j = 0.0;  // the truth: A's busy CPUs × its per-CPU power
  double b_dynamic_j = 0.0;
  double static_j = 0.0;  // idle power × run time
  std::uint64_t a_ticks = 0;
  std::uint64_t busy_ticks = 0;
};

SharedCpuRun simulate_shared_cpu(const SharedCpuOptions& options);

}  // namespace jouleprof::attribution
