#include "training/epoch_energy.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>
#include <utility>

#include "core/csv.hpp"
#include "core/gap_overlap.hpp"
#include "core/line_reader.hpp"
#include "core/parse.hpp"
#include "sources/trace_text.hpp"

namespace jouleprof {

namespace {

// Seconds of [a, b] outside the series' gaps (gaps may overlap one another).
double covered_seconds(const Series& s, TimeNs a, TimeNs b) {
  std::vector<std::pair<TimeNs, TimeNs>> lost;
  for (const Gap& g : s.gaps()) {
    if (gap_overlaps(g, a, b)) lost.emplace_back(std::max(a, g.begin_ns), std::min(b, g.end_ns));
  }
  std::sort(lost.begin(), lost.end());
  TimeNs lost_ns = 0;
  TimeNs reached = a;
  for (const auto& [begin, end] : lost) {
    const TimeNs from = std::max(begin, reached);
    if (end > from) lost_ns += end - from;
    reached = std::max(reached, end);
  }
  return ns_to_s(b - a - lost_ns);
}

}  // namespace

double mean_power_outside_gaps_w(const Series& s, IntegrationRule rule) {
  if (s.empty()) return 0.0;
  const double covered_s = covered_seconds(s, s.begin_ns(), s.end_ns());
  return covered_s > 0.0 ? s.energy_between_j(s.begin_ns(), s.end_ns(), rule) / covered_s : 0.0;
}

GapFilledEnergy energy_with_gaps_filled(const Series& s, TimeNs a, TimeNs b, double fallback_w,
                                        IntegrationRule rule) {
  GapFilledEnergy out;
  out.energy_j = s.energy_between_j(a, b, rule);
  const TimeNs in_a = std::max(a, s.begin_ns());
  const TimeNs in_b = std::min(b, s.end_ns());
  // A counter's reading after a gap still holds the energy spent in it (or, after a reset, the
  // plausibility judge has said what was lost): only power is integrated around gaps.
  if (s.channel().kind != ChannelKind::kPower || in_b <= in_a || !has_gap_in(s, in_a, in_b)) {
    return out;
  }
  const double covered_s = covered_seconds(s, in_a, in_b);
  out.gap_s = std::max(0.0, ns_to_s(in_b - in_a) - covered_s);
  out.filled_j = out.gap_s * (covered_s > 0.0 ? out.energy_j / covered_s : fallback_w);
  out.energy_j += out.filled_j;
  return out;
}

double EpochEnergies::total_j() const {
  return std::accumulate(energy_j.begin(), energy_j.end(), 0.0);
}

Result<EpochEnergies> epoch_energies(const std::vector<const Series*>& series, const EpochLog& log,
                                     IntegrationRule rule) {
  if (log.size() == 0) return invalid_input("epoch log", "epochs", "0", "no epochs to measure");
  EpochEnergies out;
  out.energy_j.assign(log.size(), 0.0);
  out.filled_j.assign(log.size(), 0.0);
  for (std::size_t e = 0; e < log.size(); ++e) out.duration_s.push_back(log.epoch_duration_s(e));
  for (const Series* s : series) {
    if (s == nullptr || !s->channel().carries_energy()) {
      return invalid_input("epoch energies", "series", s ? s->channel().id : "null",
                           "not an energy counter or a power series");
    }
    if (s->empty()) {
      return invalid_input("epoch energies", "series", s->channel().id, "has no samples");
    }
    out.channels.push_back(fmt::format("{} ({}: {})", s->channel().id,
                                       to_string(s->channel().provenance),
                                       s->channel().provenance_detail));
    std::size_t uncovered = 0;
    std::size_t with_gaps = 0;
    double lost_s = 0.0;
    double filled_j = 0.0;
    const double series_mean_w = mean_power_outside_gaps_w(*s, rule);
    for (std::size_t e = 0; e < log.size(); ++e) {
      const TimeNs a = log.epoch_begin_ns(e);
      const TimeNs b = log.end_ns[e];
      if (a < s->begin_ns() || b > s->end_ns()) ++uncovered;
      const GapFilledEnergy energy = energy_with_gaps_filled(*s, a, b, series_mean_w, rule);
      out.energy_j[e] += energy.energy_j;
      out.filled_j[e] += energy.filled_j;
      if (energy.gap_s <= 0.0) continue;
      ++with_gaps;
      lost_s += energy.gap_s;
      filled_j += energy.filled_j;
    }
    if (uncovered > 0) {
      out.warnings.push_back(
          fmt::format("{}: {} of {} epochs lie partly outside the series (it covers {:.1f} s, "
                      "starting {:+.1f} s "
                      "from the start of epoch 1): their energy counts only the covered part",
                      s->channel().id, uncovered, log.size(), ns_to_s(s->end_ns() - s->begin_ns()),
                      ns_to_s(s->begin_ns() - log.begin_ns)));
    }
    if (with_gaps > 0) {
      out.warnings.push_back(fmt::format(
          "{}: {} of {} epochs overlap the series' {} gap(s), {:.1f} s without readings: that "
          "time is given the mean power of the rest of its epoch (of the whole series where a gap "
          "covers the epoch), {:.4g} J in all (the measured figure leaves it out), by which the "
          "projections' bands widen",
          s->channel().id, with_gaps, log.size(), s->gaps().size(), lost_s, filled_j));
    }
  }
  return out;
}

Result<Series> read_ram_power_log(const std::string& path, const PowerLogOptions& options,
                                  double watts_per_gb) {
  JP_TRY(LineReader lines, LineReader::open(path, "file"));
  std::optional<std::size_t> time_col, memory_col;
  std::vector<trace_text::RawSample> raw;
  std::vector<std::string> warnings;
  JP_RETURN_IF_ERROR(for_each_line(lines, [&](const TextLine& line) -> Status {
    if (!trace_text::has_content(line.text)) return Status::Ok();
    const auto fields = split_fields(line.text, ',');
    if (!time_col) {
      for (std::size_t i = 0; i < fields.size(); ++i) {
        if (fields[i] == "timestamp") time_col = i;
        if (fields[i].starts_with("memory usage (MB)")) memory_col = i;
      }
      if (!time_col || !memory_col) {
        return invalid_input(trace_text::where(path, line.number), "header", line.text,
                             "expected 'timestamp' and 'memory usage (MB)' columns");
      }
      return Status::Ok();
    }
    const std::string where = trace_text::where(path, line.number);
    const auto t = fields.size() > *time_col
                       ? parse_wall_clock_ns(fields[*time_col], options.utc_offset_s)
                       : std::nullopt;
    const auto mb = fields.size() > *memory_col ? to_number(fields[*memory_col]) : std::nullopt;
    if (!t || !mb || *mb < 0.0) {
      // Spelled out before reading on moves the line's text.
      Error error = invalid_input(where, !t ? "timestamp" : "memory usage (MB)",
                                  fields.size() > (!t ? *time_col : *memory_col)
                                      ? fields[!t ? *time_col : *memory_col]
                                      : "",
                                  "not a valid value");
      JP_TRY(const bool last, lines.nothing_follows(trace_text::has_content));
      if (!last) return error;
      warnings.push_back(fmt::format("{}: last line dropped as truncated", where));
      return Status::Ok();
    }
    raw.push_back(trace_text::RawSample{*t, *mb / 1024.0 * watts_per_gb, line.number});
    return Status::Ok();
  }));
  if (raw.empty()) return invalid_input(path, "rows", "", "no memory samples");
  const TimeNs offset = trace_text::resolve_offset(options, raw.front().t_ns);
  for (auto& s : raw) s.t_ns += offset;
  Channel channel;
  channel.id = "ram:modelled-power";
  channel.source = "process-usage-log";
  channel.device = "ram";
  channel.domain = "dram";
  channel.kind = ChannelKind::kPower;
  channel.provenance = Provenance::kEstimated;
  trace_text::SeriesRules rules;
  JP_TRY(Series series, trace_text::build_series(channel, raw, path, options.gap_factor,
                                                 options.min_gap_ns, rules));
  if (rules.implausible) warnings.push_back(*rules.implausible);
  series.channel().provenance_detail =
      fmt::format("RAM power = {} W/GB x resident memory (memory usage (MB) / 1024) from {}: {}{}",
                  watts_per_gb, path, trace_text::describe_rules(options, offset, rules, ""),
                  warnings.empty() ? "" : fmt::format("; {}", fmt::join(warnings, "; ")));
  return series;
}

}  // namespace jouleprof
