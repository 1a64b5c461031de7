// The simulated source's pieces, exposed for tests and benchmarks: the scripted power profile
// (whose exact integral is the ground truth) and the settings parsed from SourceOptions.
#pragma once

#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "jouleprof/channel.hpp"
#include "jouleprof/clock.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof {

// Piecewise-linear power over time since the source started. Text form (settings key
// `simulate.profile`): segments separated by ';', each `W:S` (W watts for S seconds), `A->B:S`
// (a ramp from A to B watts over S seconds) or, for the last segment only, `W` (W watts forever).
// Example: "20:1;80:2;80->20:1.5;30". After a finite profile ends, the power holds the last
// segment's end value, or the profile starts over when `repeat` is set.
class PowerProfile {
 public:
  struct Segment {
    double start_w = 0.0;
    double end_w = 0.0;
    double duration_s = std::numeric_limits<double>::infinity();
  };

  static Result<PowerProfile> parse(const std::string& text, bool repeat);
  static PowerProfile constant(double watts);

  // Power at t_s seconds after the start (t_s >= 0).
  double power_w(double t_s) const;
  // Exact integral of power_w over [a_s, b_s].
  double energy_between_j(double a_s, double b_s) const;
  const std::vector<Segment>& segments() const { return segments_; }

 private:
  double energy_until_j(double t_s) const;        // integral over [0, t_s]
  double cycle_energy_until_j(double t_s) const;  // within one pass, t_s <= cycle length

  std::vector<Segment> segments_;
  bool repeat_ = false;
  double cycle_s_ = std::numeric_limits<double>::infinity();
  double cycle_energy_j_ = 0.0;
};

enum class SimulatedChannels : std::uint8_t { kEnergy, kPower, kEnergyAndPower };

// Every knob of the simulator; keys are documented in docs/sources.md "## Simulated source".
struct SimulationSettings {
  PowerProfile profile = PowerProfile::constant(0.0);
  std::string profile_text;
  double noise_w = 0.0;                // simulate.noise_w: Gaussian s.d. added per counter update
  std::uint64_t seed = 1;              // simulate.seed
  TimeNs update_period_ns = kNsPerMs;  // simulate.update_period_ms: the counter's update period
  TimeNs average_window_ns = 0;        // simulate.average_window_ms: power channel averaging window
  double wrap_j = 0.0;                 // simulate.wrap_j: counter range before it wraps; 0 = never
  SimulatedChannels channels = SimulatedChannels::kEnergy;  // simulate.channels
  TimeNs poll_period_ns = 10 * kNsPerMs;  // simulate.poll_period_ms: default sampler period
  std::string device = "cpu0";            // simulate.device
};

// The simulated hardware without a clock: updates are applied by index (update k covers
// [(k-1)P, kP] of the profile), so tests can drive it deterministically. The source maps the real
// monotonic clock onto update indices.
class SimulatedCounter {
 public:
  explicit SimulatedCounter(const SimulationSettings& settings);

  // Applies every update up to and including k (k never goes back).
  void advance_to(std::uint64_t k);
  // What a backend reading the wrapping register now reports: the unwrapped total, which loses
  // whole wraps when reads are further apart than the wrap time (as on real hardware).
  double read_unwrapped_j();
  // Mean power over the averaging window (at least one update) ending at the last update.
  double window_power_w() const;
  // The true cumulative energy (ground truth, including noise).
  double true_counter_j() const { return counter_j_; }
  std::uint64_t updates() const { return updates_; }

 private:
  std::size_t window_updates() const;

  const SimulationSettings* settings_;
  std::uint64_t updates_ = 0;
  double counter_j_ = 0.0;
  double raw_j_ = 0.0;       // the register, wrapping at settings.wrap_j
  double last_raw_j_ = 0.0;  // register value at the previous read
  double unwrapped_j_ = 0.0;
  std::vector<double> recent_counter_j_;  // ring of the counter after the last window+1 updates
  std::size_t ring_next_ = 0;
};

// The monotonic time at which a simulated channel's profile started, read back from the channel's
// provenance detail (which records it so that the ground truth can be recomputed from a profile
// alone); nullopt for a channel that is not the simulator's.
std::optional<TimeNs> simulated_origin_ns(const Channel& channel);

// Reads the `simulate.*` keys of settings; errors name the key and value.
Result<SimulationSettings> parse_simulation_settings(
    const std::map<std::string, std::string>& settings);

}  // namespace jouleprof
