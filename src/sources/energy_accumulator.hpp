// Turns a raw energy counter that wraps (RAPL's 32-bit MSR field, powercap's energy_uj that wraps
// at max_energy_range_uj) into a 64-bit count since the first read. The first read is only the
// baseline; each later read adds the forward distance from the previous raw value. A decrease is
// taken for a wrap only when the distance through the wrap is energy the channel can plausibly
// have used since the previous read (sources/plausibility.hpp): a counter that resets to 0, or
// steps back by one unit, would otherwise read as a whole range (262 kJ for powercap) consumed in
// 10 ms. Any other decrease is passed on as a decrease, for the sampler to judge as a reset.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "jouleprof/clock.hpp"
#include "sources/plausibility.hpp"

namespace jouleprof {

class EnergyAccumulator {
 public:
  // A counter that never wraps: the count follows the raw value.
  EnergyAccumulator() = default;
  // `wrap_modulus`: the raw value after which the counter restarts at 0 (2^32 for a 32-bit
  // register; max_energy_range_uj + 1 for powercap). `joules_per_unit` and `ceiling` judge
  // whether a decrease can be a wrap.
  EnergyAccumulator(std::uint64_t wrap_modulus, double joules_per_unit, PowerCeiling ceiling)
      : wrap_modulus_(wrap_modulus), joules_per_unit_(joules_per_unit), ceiling_(ceiling) {}

  // Feeds one raw reading taken at t_ns.
  void add(std::uint64_t raw, TimeNs t_ns) {
    if (!has_baseline_) {
      has_baseline_ = true;
      previous_ = raw;
      previous_t_ns_ = t_ns;
      return;
    }
    if (raw >= previous_) {
      shift(raw - previous_, false);
    } else if (wrap_modulus_ != 0 && previous_ < wrap_modulus_ && raw < wrap_modulus_ &&
               plausible_energy(
                   ceiling_, t_ns - previous_t_ns_,
                   static_cast<double>(wrap_modulus_ - previous_ + raw) * joules_per_unit_)) {
      shift(wrap_modulus_ - previous_ + raw, false);
      ++wraps_;
    } else {
      shift(previous_ - raw, true);
    }
    previous_ = raw;
    previous_t_ns_ = t_ns;
  }

  // Takes `raw` as the new reference without adding anything: a decrease the caller has found to
  // be a reset rather than a wrap.
  void rebase(std::uint64_t raw) {
    has_baseline_ = true;
    previous_ = raw;
  }

  bool has_baseline() const { return has_baseline_; }
  // Raw units since the first reading; lower than before after a decrease that was no wrap.
  std::int64_t total() const { return total_; }
  std::uint64_t wraps() const { return wraps_; }

 private:
  // Saturating: a garbage raw value must not overflow the count (the sampler rejects the jump).
  void shift(std::uint64_t units, bool down) {
    const auto step = static_cast<std::int64_t>(
        std::min<std::uint64_t>(units, std::numeric_limits<std::int64_t>::max()));
    if (__builtin_add_overflow(total_, down ? -step : step, &total_)) {
      total_ = down ? std::numeric_limits<std::int64_t>::min()
                    : std::numeric_limits<std::int64_t>::max();
    }
  }

  std::uint64_t wrap_modulus_ = 0;
  double joules_per_unit_ = 0.0;
  PowerCeiling ceiling_;
  std::uint64_t previous_ = 0;
  TimeNs previous_t_ns_ = 0;
  std::int64_t total_ = 0;
  std::uint64_t wraps_ = 0;
  bool has_baseline_ = false;
};

}  // namespace jouleprof
