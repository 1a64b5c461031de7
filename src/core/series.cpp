#include "jouleprof/series.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/counter_knots.hpp"
#include "core/gap_overlap.hpp"

namespace jouleprof {

Series::Series(const Series& other)
    : channel_(other.channel_), size_(other.size_), gaps_(other.gaps_) {
  chunks_.reserve(other.chunks_.size());
  for (const auto& chunk : other.chunks_) {
    chunks_.push_back(std::make_unique<Sample[]>(kChunkSamples));
    std::copy(chunk.get(), chunk.get() + kChunkSamples, chunks_.back().get());
  }
}

Series& Series::operator=(const Series& other) {
  if (this != &other) *this = Series(other);
  return *this;
}

Status Series::append(TimeNs t_ns, double value) {
  if (!std::isfinite(value)) {
    return invalid_input(channel_.id, "value", fmt::format("{}", value), "not a finite number");
  }
  if (size_ > 0 && t_ns < back().t_ns) {
    return invalid_input(channel_.id, "t_ns", std::to_string(t_ns),
                         fmt::format("earlier than the previous sample at {}", back().t_ns));
  }
  if (size_ % kChunkSamples == 0) chunks_.push_back(std::make_unique<Sample[]>(kChunkSamples));
  chunks_.back()[size_ % kChunkSamples] = Sample{t_ns, value};
  ++size_;
  return Status::Ok();
}

std::size_t Series::lower_bound(TimeNs t) const {
  std::size_t lo = 0;
  std::size_t hi = size_;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if ((*this)[mid].t_ns < t) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

double Series::value_at(TimeNs t) const {
  if (empty()) return 0.0;
  if (t <= front().t_ns) return front().value;
  if (t >= back().t_ns) return back().value;
  const std::size_t i = lower_bound(t);
  const Sample& right = (*this)[i];
  if (right.t_ns == t) return right.value;
  const Sample& left = (*this)[i - 1];
  const double f = static_cast<double>(t - left.t_ns) / static_cast<double>(right.t_ns - left.t_ns);
  return left.value + f * (right.value - left.value);
}

bool Series::in_gap(TimeNs a, TimeNs b) const { return has_gap_in(*this, a, b); }

double Series::energy_between_j(TimeNs a, TimeNs b, IntegrationRule rule) const {
  if (empty() || b <= a) return 0.0;
  a = std::max(a, begin_ns());
  b = std::min(b, end_ns());
  if (b <= a) return 0.0;
  if (channel_.kind == ChannelKind::kEnergyCounter)
    return counter_value_at(*this, b) - counter_value_at(*this, a);
  if (channel_.kind != ChannelKind::kPower) return 0.0;

  double energy = 0.0;
  std::size_t i = lower_bound(a);
  if (i > 0 && (*this)[i].t_ns > a) --i;  // sample interval that contains a
  for (; i + 1 < size_; ++i) {
    const Sample& left = (*this)[i];
    const Sample& right = (*this)[i + 1];
    if (left.t_ns >= b) break;
    const TimeNs lo = std::max(a, left.t_ns);
    const TimeNs hi = std::min(b, right.t_ns);
    if (hi <= lo || in_gap(left.t_ns, right.t_ns)) continue;
    double mean_power_w = left.value;
    if (rule == IntegrationRule::kTrapezoid) {
      const double span = static_cast<double>(right.t_ns - left.t_ns);
      const auto power_at = [&](TimeNs t) {
        return left.value + (right.value - left.value) * static_cast<double>(t - left.t_ns) / span;
      };
      mean_power_w = 0.5 * (power_at(lo) + power_at(hi));
    }
    energy += mean_power_w * ns_to_s(hi - lo);
  }
  return energy;
}

std::vector<std::size_t> Series::update_indices() const {
  std::vector<std::size_t> updates;
  for (std::size_t i = 1; i < size_; ++i) {
    if ((*this)[i].value != (*this)[i - 1].value) updates.push_back(i);
  }
  return updates;
}

TimeNs Series::measured_update_period_ns() const {
  const std::vector<std::size_t> updates = update_indices();
  if (updates.size() < 2) return 0;
  std::vector<TimeNs> intervals;
  intervals.reserve(updates.size() - 1);
  for (std::size_t k = 1; k < updates.size(); ++k) {
    intervals.push_back((*this)[updates[k]].t_ns - (*this)[updates[k - 1]].t_ns);
  }
  const auto mid = intervals.begin() + static_cast<std::ptrdiff_t>(intervals.size() / 2);
  std::nth_element(intervals.begin(), mid, intervals.end());
  return *mid;
}

std::size_t Series::memory_bytes() const {
  return sizeof(*this) + chunks_.size() * (kChunkSamples * sizeof(Sample) + sizeof(chunks_[0])) +
         gaps_.size() * sizeof(Gap);
}

}  // namespace jouleprof
