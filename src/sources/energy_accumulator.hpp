// Turns a raw energy counter that wraps (RAPL's 32-bit MSR field, powercap's energy_uj that wraps
// at max_energy_range_uj) into a 64-bit total since the first read. The first read is only the
// baseline; each later read adds the forward distance from the previous raw value, assuming at
// most one wrap between reads (the sampler polls far faster than the wrap time: ~262 kJ at
// package power is minutes, not milliseconds).
#pragma once

#include <cstdint>

namespace jouleprof {

class EnergyAccumulator {
 public:
  // `wrap_modulus`: the raw value after which the counter restarts at 0 (2^32 for a 32-bit
  // register; max_energy_range_uj + 1 for powercap); 0 = the counter never wraps, and a decrease
  // is reported by add() as a reset.
  explicit EnergyAccumulator(std::uint64_t wrap_modulus = 0) : wrap_modulus_(wrap_modulus) {}

  // Feeds one raw reading; false when the counter went backwards and cannot have wrapped (no
  // wrap modulus, or a raw value at or beyond it). The total is then left unchanged and the
  // reading becomes the new reference.
  bool add(std::uint64_t raw) {
    if (!has_baseline_) {
      has_baseline_ = true;
      previous_ = raw;
      return true;
    }
    bool consistent = true;
    if (raw >= previous_) {
      total_ += raw - previous_;
    } else if (wrap_modulus_ != 0 && previous_ < wrap_modulus_ && raw < wrap_modulus_) {
      total_ += (wrap_modulus_ - previous_) + raw;
      ++wraps_;
    } else {
      consistent = false;
    }
    previous_ = raw;
    return consistent;
  }

  // Takes `raw` as the new reference without adding anything: a decrease the caller has found to
  // be a reset rather than a wrap.
  void rebase(std::uint64_t raw) {
    has_baseline_ = true;
    previous_ = raw;
  }

  bool has_baseline() const { return has_baseline_; }
  // Raw units accumulated since the first reading.
  std::uint64_t total() const { return total_; }
  std::uint64_t wraps() const { return wraps_; }

 private:
  std::uint64_t wrap_modulus_;
  std::uint64_t previous_ = 0;
  std::uint64_t total_ = 0;
  std::uint64_t wraps_ = 0;
  bool has_baseline_ = false;
};

}  // namespace jouleprof
