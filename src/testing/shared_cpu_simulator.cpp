#include "testing/shared_cpu_simulator.hpp"

#include <fmt/format.h>

#include <cmath>
#include <random>
#include <vector>

namespace jouleprof::attribution {
namespace {

Channel busy_channel(std::string domain, std::string detail) {
  Channel c;
  c.id = "processes:cpu:" + domain;
  c.source = "simulator";
  c.device = "cpu";
  c.domain = std::move(domain);
  c.kind = ChannelKind::kBusyTime;
  c.provenance = Provenance::kSimulated;
  c.provenance_detail = std::move(detail);
  c.nominal_period_ns = 10 * kNsPerMs;
  return c;
}

}  // namespace

SharedCpuRun simulate_shared_cpu(const SharedCpuOptions& o) {
  SharedCpuRun run;
  Channel energy;
  energy.id = "sim:package";
  energy.source = "simulator";
  energy.device = "cpu0";
  energy.domain = "package";
  energy.kind = ChannelKind::kEnergyCounter;
  energy.provenance = Provenance::kSimulated;
  energy.provenance_detail = "RAPL-like counter of a package shared by two processes";
  energy.nominal_period_ns = kNsPerMs;
  run.energy = Series(energy);
  run.a_cpu_time = Series(busy_channel("cpu-time", "process A's CPU time, in ticks"));
  run.busy = Series(busy_channel("busy", "every CPU's busy time, in ticks"));
  run.idle = Series(busy_channel("idle", "every CPU's idle time, in ticks"));

  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<TimeNs> delay(0, o.max_read_delay_ns);
  const std::size_t ticks = static_cast<std::size_t>(o.run_ns / o.tick_ns);
  // Per tick: A's busy CPUs, B's.
  std::vector<int> a_cpus(ticks, 0);
  std::vector<int> b_cpus(ticks, 0);
  double load = 0.5;
  for (std::size_t k = 0; k < ticks; ++k) {
    if (static_cast<TimeNs>(k) * o.tick_ns % o.phase_ns == 0) load = 0.2 + 0.75 * unit(rng);
    for (int c = 0; c < o.cpus; ++c) {
      if (unit(rng) >= load) continue;
      (unit(rng) < o.a_share_of_busy ? a_cpus[k] : b_cpus[k]) += 1;
    }
  }
  const double tick_s = ns_to_s(o.tick_ns);
  const auto power_at = [&](std::size_t k) {
    return o.idle_power_w + o.cpu_power_a_w * a_cpus[k] + o.cpu_power_b_w * b_cpus[k];
  };
  // The true cumulative energy at t (power is constant within a tick).
  std::vector<double> energy_at_tick(ticks + 1, 0.0);
  for (std::size_t k = 0; k < ticks; ++k) {
    energy_at_tick[k + 1] = energy_at_tick[k] + power_at(k) * tick_s;
    run.a_dynamic_j += o.cpu_power_a_w * a_cpus[k] * tick_s;
    run.b_dynamic_j += o.cpu_power_b_w * b_cpus[k] * tick_s;
    run.a_ticks += static_cast<std::uint64_t>(a_cpus[k]);
    run.busy_ticks += static_cast<std::uint64_t>(a_cpus[k] + b_cpus[k]);
  }
  run.static_j = o.idle_power_w * ns_to_s(o.run_ns);
  const auto true_energy = [&](TimeNs t) {
    const auto k = std::min<std::size_t>(static_cast<std::size_t>(t / o.tick_ns), ticks);
    const double within =
        k < ticks ? power_at(k) * ns_to_s(t - static_cast<TimeNs>(k) * o.tick_ns) : 0.0;
    return energy_at_tick[k] + within;
  };

  constexpr double kUnitJ = 61.035e-6;  // 2^-14 J, the common RAPL energy unit
  for (TimeNs t = 0; t <= o.run_ns; t += kNsPerMs) {
    (void)run.energy.append(t, std::floor(true_energy(t) / kUnitJ) * kUnitJ);
  }
  // Tick counts are whole: a reading at t sees the ticks that ended before it.
  std::uint64_t a = 0;
  std::uint64_t busy = 0;
  std::uint64_t idle = 0;
  std::size_t counted = 0;
  TimeNs last = -1;
  for (TimeNs due = 0; due <= o.run_ns; due += o.activity_period_ns) {
    const TimeNs t = std::max(last + 1, std::min(o.run_ns, due + delay(rng)));
    const auto done = std::min<std::size_t>(static_cast<std::size_t>(t / o.tick_ns), ticks);
    for (; counted < done; ++counted) {
      a += static_cast<std::uint64_t>(a_cpus[counted]);
      busy += static_cast<std::uint64_t>(a_cpus[counted] + b_cpus[counted]);
      idle += static_cast<std::uint64_t>(o.cpus - a_cpus[counted] - b_cpus[counted]);
    }
    (void)run.a_cpu_time.append(t, static_cast<double>(a) * tick_s);
    (void)run.busy.append(t, static_cast<double>(busy) * tick_s);
    (void)run.idle.append(t, static_cast<double>(idle) * tick_s);
    last = t;
  }
  run.begin_ns = 0;
  run.end_ns = o.run_ns;
  return run;
}

}  // namespace jouleprof::attribution
