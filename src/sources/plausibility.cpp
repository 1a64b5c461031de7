#include "sources/plausibility.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace jouleprof {

PowerCeiling power_ceiling(std::string_view domain) {
  // Each a little over twice the largest part of its class in 2025 (500 W server CPUs, 1.2 kW
  // GPUs, ~250 W of DRAM on a 24-DIMM socket, 200 W laptop chargers): a reading above it is a
  // broken counter, not a busy machine.
  if (domain == "package" || domain == "core" || domain == "uncore" || domain == "die") {
    return {1000.0, "CPU package"};
  }
  if (domain == "dram") return {500.0, "DRAM domain"};
  if (domain == "gpu") return {2000.0, "GPU"};
  if (domain == "battery") return {500.0, "battery"};
  if (domain == "psys") return {5000.0, "platform (psys)"};
  // Rails, wall meters and imported channels of unknown class: a whole 8-GPU node at the wall.
  return {20000.0, "node or unknown device"};
}

bool is_signed_channel(const Channel& channel) { return channel.domain == "battery"; }

bool plausible_energy(const PowerCeiling& ceiling, TimeNs dt_ns, double energy_j) {
  if (!std::isfinite(energy_j) || energy_j < 0.0) return false;
  const double allowed_j =
      ceiling.watts * ns_to_s(std::max<TimeNs>(0, dt_ns) + kCounterUpdateSlackNs);
  return energy_j <= allowed_j;
}

ReadingJudge::ReadingJudge(const Channel& channel)
    : kind_(channel.kind), ceiling_(power_ceiling(channel)), signed_(is_signed_channel(channel)) {}

ReadingJudge::Verdict ReadingJudge::judge(TimeNs t_ns, double value) {
  if (!std::isfinite(value)) {
    return {false, 0.0, fmt::format("read a non-finite value ({})", value)};
  }
  if (kind_ == ChannelKind::kEnergyCounter) return judge_counter(t_ns, value);
  return judge_level(value);
}

ReadingJudge::Verdict ReadingJudge::judge_counter(TimeNs t_ns, double value) {
  if (std::fabs(value) > kAbsurdCounterJ) {
    // The value quoted as read input is: it is no figure, and must not look like one.
    return {false, 0.0,
            fmt::format("read an absurd counter value ('{}' J, beyond {:g} J)", value,
                        kAbsurdCounterJ)};
  }
  if (!reference_) {
    reference_ = Point{t_ns, value};
    last_stored_ = value;
    return {true, value, {}};
  }
  const auto advance_from = [&](const Point& from) {
    return plausible_energy(ceiling_, t_ns - from.t_ns, value - from.raw);
  };
  if (advance_from(*reference_)) {
    // From the last good reading: a suspect read in between was stale or corrupt.
  } else if (suspect_ && advance_from(*suspect_)) {
    // The counter really moved to the suspect's level (a reset): count on from there, so that
    // the suspect's level is stored as the last good reading's.
    offset_ = (reference_->raw + offset_) - suspect_->raw;
  } else {
    const Point& from = *reference_;
    const double delta_j = value - from.raw;
    std::string problem;
    if (delta_j < 0.0) {
      problem = fmt::format("counter went backwards ({} J after {} J)", value, from.raw);
    } else {
      const double dt_s = ns_to_s(t_ns - from.t_ns);
      problem = fmt::format(
          "counter jumped by {:.6g} J in {:.6g} s, more than the {:.0f} W ceiling of a {} allows",
          delta_j, dt_s, ceiling_.watts, ceiling_.device_class);
    }
    suspect_ = Point{t_ns, value};
    return {false, 0.0, std::move(problem)};
  }
  reference_ = Point{t_ns, value};
  suspect_.reset();
  // After a reset, reading + offset_ can round a hair below the last stored value (found by
  // fuzz/nvml_poll_log_fuzz.cpp: 353.181 J stored as 353.18099999999959 J after it).
  last_stored_ = std::max(last_stored_, value + offset_);
  return {true, last_stored_, {}};
}

ReadingJudge::Verdict ReadingJudge::judge_level(double value) const {
  switch (kind_) {
    case ChannelKind::kPower:
      if (value < 0.0 && !signed_) return {false, 0.0, fmt::format("negative power ({} W)", value)};
      if (std::fabs(value) > ceiling_.watts) {
        return {false, 0.0,
                fmt::format("power of {} W, above the {:.0f} W ceiling of a {}", value,
                            ceiling_.watts, ceiling_.device_class)};
      }
      break;
    case ChannelKind::kUtilisation:
      if (value < 0.0 || value > 1.0) {
        return {false, 0.0, fmt::format("utilisation {} outside [0, 1]", value)};
      }
      break;
    case ChannelKind::kTemperature:
      if (value < -273.15 || value > 1000.0) {
        return {false, 0.0, fmt::format("temperature {} °C is not physical", value)};
      }
      break;
    case ChannelKind::kBusyTime:  // seconds of work since the start: never negative
      if (value < 0.0) return {false, 0.0, fmt::format("negative busy time ({} s)", value)};
      break;
    case ChannelKind::kEnergyCounter:
      break;
  }
  return {true, value, {}};
}

std::optional<std::string> enforce_plausibility(Series& series, std::string_view origin) {
  ReadingJudge judge(series.channel());
  Series judged(series.channel());
  for (const Gap& gap : series.gaps()) judged.add_gap(gap);
  std::size_t left_out = 0;
  std::string first_problem;
  TimeNs first_t_ns = 0;
  std::optional<Gap> open;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const Sample& sample = series[i];
    ReadingJudge::Verdict verdict = judge.judge(sample.t_ns, sample.value);
    if (!verdict.problem.empty()) {
      if (left_out++ == 0) {
        first_problem = verdict.problem;
        first_t_ns = sample.t_ns;
      }
      if (!open) {
        open = Gap{judged.empty() ? sample.t_ns : judged.end_ns(), sample.t_ns, verdict.problem};
      }
      open->end_ns = sample.t_ns;
    }
    if (!verdict.keep) continue;
    if (open) {
      open->end_ns = sample.t_ns;
      judged.add_gap(std::move(*open));
      open.reset();
    }
    (void)judged.append(sample.t_ns, verdict.value);  // finite, in time order like the input
  }
  if (open) judged.add_gap(std::move(*open));
  if (left_out == 0) return std::nullopt;
  series = std::move(judged);
  return fmt::format(
      "{}: channel {}: {} implausible reading{} left out (first at t_ns {}: {}); their intervals "
      "are "
      "gaps",
      origin, series.channel().id, left_out, left_out == 1 ? "" : "s", first_t_ns, first_problem);
}

std::vector<std::string> enforce_plausibility(std::vector<Series>& series,
                                              std::string_view origin) {
  std::vector<std::string> warnings;
  for (Series& s : series) {
    if (auto warning = enforce_plausibility(s, origin)) warnings.push_back(std::move(*warning));
  }
  return warnings;
}

}  // namespace jouleprof
