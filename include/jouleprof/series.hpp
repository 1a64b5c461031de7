// Series: the time-ordered readings of one channel, stored in fixed-size chunks so that long runs
// grow memory linearly without reallocating (16 bytes per sample: 57.6 MB per channel-hour at 1
// kHz).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "jouleprof/channel.hpp"
#include "jouleprof/clock.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof {

struct Sample {
  TimeNs t_ns = 0;
  double value = 0.0;  // unit given by the channel's kind: J (cumulative), W, °C or fraction
};
static_assert(sizeof(Sample) == 16);

// An interval in which a channel could not be read; nothing is fabricated inside it.
struct Gap {
  TimeNs begin_ns = 0;
  TimeNs end_ns = 0;
  std::string reason;
};

// How power readings are turned into energy (counters need no rule: they are interpolated).
enum class IntegrationRule : std::uint8_t {
  kTrapezoid = 0,  // linear between samples
  kHold = 1,       // each sample's power held until the next one (sample-and-hold)
};

class Series {
 public:
  static constexpr std::size_t kChunkSamples = 4096;

  explicit Series(Channel channel) : channel_(std::move(channel)) {}
  Series(Series&&) noexcept = default;
  Series& operator=(Series&&) noexcept = default;
  // A deep copy of every sample (a profile with a problem is copied to be reported with a note).
  Series(const Series& other);
  Series& operator=(const Series& other);
  ~Series() = default;

  const Channel& channel() const { return channel_; }
  Channel& channel() { return channel_; }

  // Rejects NaN/inf values and times earlier than the last sample (equal times are kept).
  Status append(TimeNs t_ns, double value);
  void add_gap(Gap gap) { gaps_.push_back(std::move(gap)); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Sample& operator[](std::size_t i) const {
    return chunks_[i / kChunkSamples][i % kChunkSamples];
  }
  const Sample& front() const { return (*this)[0]; }
  const Sample& back() const { return (*this)[size_ - 1]; }
  TimeNs begin_ns() const { return empty() ? 0 : front().t_ns; }
  TimeNs end_ns() const { return empty() ? 0 : back().t_ns; }
  const std::vector<Gap>& gaps() const { return gaps_; }

  // Index of the first sample with t_ns >= t (size() if none).
  std::size_t lower_bound(TimeNs t) const;

  // Value at t, linear between the neighbouring samples, clamped to the ends.
  double value_at(TimeNs t) const;

  // Energy in joules over [a, b], clipped to the series' coverage. Counters: difference of the
  // interpolated counter. Power: integral by `rule`; intervals overlapping a gap give nothing.
  // Other kinds: 0.
  double energy_between_j(TimeNs a, TimeNs b,
                          IntegrationRule rule = IntegrationRule::kTrapezoid) const;
  double total_energy_j(IntegrationRule rule = IntegrationRule::kTrapezoid) const {
    return empty() ? 0.0 : energy_between_j(begin_ns(), end_ns(), rule);
  }

  // Indices i > 0 whose value differs from sample i-1: the counter updated in (t[i-1], t[i]].
  std::vector<std::size_t> update_indices() const;

  // Median interval between counter updates; 0 when fewer than two updates were seen.
  TimeNs measured_update_period_ns() const;

  std::size_t memory_bytes() const;

 private:
  bool in_gap(TimeNs a, TimeNs b) const;

  Channel channel_;
  std::vector<std::unique_ptr<Sample[]>> chunks_;
  std::size_t size_ = 0;
  std::vector<Gap> gaps_;
};

}  // namespace jouleprof
