// Welch's interval for the difference of two groups' mean energies, each group's variance
// floored by its runs' own error bars (a 95 % half-width is 1.96 standard deviations).
#include "jouleprof/noise_budget.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "jouleprof/statistics.hpp"

namespace jouleprof {
namespace {

constexpr double kZ95 = 1.959964;

struct Side {
  double mean = 0.0;
  double variance_of_mean = 0.0;
  std::optional<double> dof;  // nullopt: rests on the runs' error bars alone (normal)
};

Result<Side> side_of(std::span<const RunSample> runs, std::string_view which) {
  if (runs.empty()) {
    return Error(ErrorCode::kInvalidInput,
                 fmt::format("the {} has no runs to compare (check the branch or label and "
                             "--last)",
                             which));
  }
  const auto n = static_cast<double>(runs.size());
  Side side;
  for (const RunSample& r : runs) side.mean += r.energy_j / n;
  double error_bar_variance = 0.0;  // the mean of the runs' own variances, where they have one
  std::size_t with_error_bar = 0;
  for (const RunSample& r : runs) {
    if (!r.low_j || !r.high_j) continue;
    const double sigma = (*r.high_j - *r.low_j) / (2.0 * kZ95);
    error_bar_variance += sigma * sigma;
    ++with_error_bar;
  }
  if (with_error_bar > 0) error_bar_variance /= static_cast<double>(with_error_bar);
  if (runs.size() == 1) {
    if (with_error_bar == 0) {
      return Error(ErrorCode::kInvalidInput,
                   fmt::format("the {} is one run ({}) without an error bar: there is no spread "
                               "to judge a difference by; give more runs",
                               which, runs.front().label));
    }
    side.variance_of_mean = error_bar_variance;
    return side;
  }
  double spread = 0.0;
  for (const RunSample& r : runs) spread += (r.energy_j - side.mean) * (r.energy_j - side.mean);
  spread /= n - 1.0;
  // Runs that agree more closely than their own error bars allow are lucky, not precise.
  side.variance_of_mean = std::max(spread, error_bar_variance) / n;
  side.dof = n - 1.0;
  return side;
}

std::optional<double> relative_to(double value_j, double base_j) {
  return base_j > 0.0 ? std::optional<double>(value_j / base_j) : std::nullopt;
}

}  // namespace

RunSample run_sample_of(const RunRecord& run) {
  return RunSample{fmt::format("run {}", run.id), run.total_energy_j, run.total_energy_low_j,
                   run.total_energy_high_j,       run.provenance,     run.channels};
}

RunSample run_sample_of(const Profile& profile, std::string label) {
  RunSample sample{
      std::move(label), energy_total_of(profile), {}, {}, profile.total_provenance(), ""};
  if (const std::optional<EnergyBand> band = profile.total_energy_band()) {
    sample.low_j = band->low_j;
    sample.high_j = band->high_j;
  }
  std::vector<std::string> top_level;
  for (const ChannelSummary& c : profile.channels) {
    const Series* series = profile.find_series(c.channel_id);
    if (series == nullptr || series->channel().parent_id.empty()) top_level.push_back(c.channel_id);
  }
  std::sort(top_level.begin(), top_level.end());
  top_level.erase(std::unique(top_level.begin(), top_level.end()), top_level.end());
  for (const std::string& id : top_level)
    sample.channels += (sample.channels.empty() ? "" : ",") + id;
  return sample;
}

std::optional<double> GroupComparison::relative() const {
  return relative_to(difference_j, baseline_mean_j);
}
std::optional<double> GroupComparison::relative_low() const {
  return relative_to(low_j, baseline_mean_j);
}
std::optional<double> GroupComparison::relative_high() const {
  return relative_to(high_j, baseline_mean_j);
}

Result<GroupComparison> compare_run_groups(std::span<const RunSample> baseline,
                                           std::span<const RunSample> candidate) {
  JP_TRY(const Side before, side_of(baseline, "baseline"));
  JP_TRY(const Side after, side_of(candidate, "candidate"));
  GroupComparison c;
  c.baseline_runs = baseline.size();
  c.candidate_runs = candidate.size();
  c.baseline_mean_j = before.mean;
  c.candidate_mean_j = after.mean;
  c.difference_j = after.mean - before.mean;
  const double variance = before.variance_of_mean + after.variance_of_mean;
  // Welch–Satterthwaite; a side without degrees of freedom adds nothing to the denominator.
  double denominator = 0.0;
  for (const Side* s : {&before, &after}) {
    if (s->dof && *s->dof > 0.0) denominator += s->variance_of_mean * s->variance_of_mean / *s->dof;
  }
  double t = kZ95;
  if (denominator > 0.0) {
    const double dof = variance * variance / denominator;
    c.degrees_of_freedom = static_cast<unsigned>(std::max(1.0, std::floor(dof)));
    t = student_t_95(c.degrees_of_freedom);
  }
  const double half_width = t * std::sqrt(variance);
  c.low_j = c.difference_j - half_width;
  c.high_j = c.difference_j + half_width;
  return c;
}

Status check_comparable_groups(std::span<const RunSample> baseline,
                               std::span<const RunSample> candidate) {
  if (baseline.empty() || candidate.empty()) return Status::Ok();
  const RunSample& reference = baseline.front();
  for (std::span<const RunSample> side : {baseline, candidate}) {
    for (const RunSample& r : side) {
      if (r.provenance != reference.provenance) {
        return Error(ErrorCode::kInvalidInput,
                     fmt::format("cannot hold {} ({}) to a budget against {} ({}): a {} total "
                                 "against a {} one measures the methods, not the code "
                                 "(--allow-mixed compares them anyway)",
                                 r.label, to_string(r.provenance), reference.label,
                                 to_string(reference.provenance), to_string(r.provenance),
                                 to_string(reference.provenance)));
      }
      if (r.channels != reference.channels) {
        return Error(ErrorCode::kInvalidInput,
                     fmt::format("cannot hold {} to a budget against {}: they were measured by "
                                 "different sources or devices ([{}] vs [{}]), so the difference "
                                 "is the machines' (--allow-mixed compares them anyway)",
                                 r.label, reference.label, r.channels, reference.channels));
      }
    }
  }
  return Status::Ok();
}

NoiseVerdict check_noise_budget(const GroupComparison& c, const EnergyBudget& budget) {
  NoiseVerdict v;
  v.allowed_increase_j = budget.kind == EnergyBudget::Kind::kRelative
                             ? budget.value * c.baseline_mean_j
                             : budget.value;
  v.within_noise = c.within_noise();
  v.exceeded = c.low_j > v.allowed_increase_j;
  const auto percent = [](std::optional<double> f) {
    return f ? fmt::format("{:+.2f} %", *f * 100.0) : std::string("n/a");
  };
  const std::string budget_text =
      budget.kind == EnergyBudget::Kind::kRelative
          ? fmt::format("{:g} % = {:.6g} J", budget.value * 100.0, v.allowed_increase_j)
          : fmt::format("{:.6g} J", v.allowed_increase_j);
  const char* verdict = v.exceeded       ? "REGRESSION: above the budget with 95 % confidence"
                        : v.within_noise ? "within noise (the interval includes 0)"
                        : c.high_j < 0.0 ? "an improvement, with 95 % confidence"
                        : c.high_j > v.allowed_increase_j
                            ? "within budget: the budget lies inside the interval, so the "
                              "increase is not above it with 95 % confidence"
                            : "within budget";
  v.explanation = fmt::format(
      "mean of {} candidate run(s) {:.6g} J vs {} baseline run(s) {:.6g} J: {:+.6g} J ({}), 95 % "
      "interval [{:+.6g}, {:+.6g}] J ([{}, {}]) against a budget of {}: {}",
      c.candidate_runs, c.candidate_mean_j, c.baseline_runs, c.baseline_mean_j, c.difference_j,
      percent(c.relative()), c.low_j, c.high_j, percent(c.relative_low()),
      percent(c.relative_high()), budget_text, verdict);
  return v;
}

}  // namespace jouleprof
