#include "jouleprof/attribution_diagnostics.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string_view>

namespace jouleprof {
namespace {

constexpr std::string_view kClassPowerPrefix = "power_w:";
constexpr std::string_view kStandardErrorPrefix = "se_w:";

double count(std::uint64_t n) { return static_cast<double>(n); }

// The flat map read by name: absent numbers read as absent, counts are checked.
class NamedNumbers {
 public:
  explicit NamedNumbers(const std::map<std::string, double>& named) : named_(named) {}

  bool has(const std::string& name) const { return named_.count(name) != 0; }

  std::optional<double> number(const std::string& name) const {
    const auto it = named_.find(name);
    if (it == named_.end()) return std::nullopt;
    return it->second;
  }

  // A count: a whole number from 0 to 2^53 (a double holds every such integer exactly).
  Result<std::uint64_t> whole(const std::string& name) const {
    const double v = number(name).value_or(0.0);
    if (!(v >= 0.0 && v <= 9007199254740992.0 && std::floor(v) == v)) {
      return Error(ErrorCode::kInvalidInput,
                   fmt::format("holds '{}' = {}, not a whole number from 0 to 2^53", name, v));
    }
    return static_cast<std::uint64_t>(v);
  }

  std::map<std::string, double> with_prefix(std::string_view prefix) const {
    std::map<std::string, double> out;
    for (const auto& [name, value] : named_) {
      if (name.starts_with(prefix)) out.emplace(name.substr(prefix.size()), value);
    }
    return out;
  }

 private:
  const std::map<std::string, double>& named_;
};

void add_with_prefix(std::map<std::string, double>& out, std::string_view prefix,
                     const std::map<std::string, double>& values) {
  for (const auto& [name, value] : values) out[std::string(prefix) + name] = value;
}

Result<RefinementDiagnostics> refinement_from(const NamedNumbers& n) {
  RefinementDiagnostics r;
  JP_TRY(r.refined_classes, n.whole("refined_classes"));
  JP_TRY(r.windows, n.whole("refine_windows"));
  JP_TRY(r.classes, n.whole("refine_classes"));
  if (n.has("refine_calibrated_classes")) {
    JP_TRY(r.calibrated_classes, n.whole("refine_calibrated_classes"));
  }
  r.condition_number = n.number("refine_condition_number");
  r.idle_power_w = n.number("refine_idle_power_w");
  r.read_delay_us = n.number("refine_read_delay_us");
  return r;
}

Result<RegressionDiagnostics> regression_from(const NamedNumbers& n) {
  RegressionDiagnostics r;
  JP_TRY(r.windows, n.whole("windows"));
  JP_TRY(r.classes, n.whole("classes"));
  JP_TRY(r.min_windows, n.whole("min_windows"));
  r.identifiable = n.number("identifiable").value_or(0.0) != 0.0;
  if (n.has("rank")) {
    RegressionFit fit;
    JP_TRY(const std::uint64_t rank, n.whole("rank"));
    fit.rank = static_cast<int>(std::min<std::uint64_t>(rank, 1u << 30));
    JP_TRY(fit.columns, n.whole("columns"));
    JP_TRY(fit.identified_classes, n.whole("identified_classes"));
    fit.condition_number = n.number("condition_number").value_or(0.0);
    fit.residual_rms_j = n.number("residual_rms_j").value_or(0.0);
    fit.idle_power_w = n.number("idle_power_w").value_or(0.0);
    fit.standard_error_w = n.with_prefix(kStandardErrorPrefix);
    r.fit = std::move(fit);
  }
  return r;
}

}  // namespace

std::map<std::string, double> diagnostics_by_name(const AttributionDiagnostics& d) {
  std::map<std::string, double> out{{"update_period_ms", d.update_period_ms},
                                    {"typical_span_ms", d.typical_span_ms},
                                    {"segments", count(d.segments)},
                                    {"measured_energy_j", d.measured_energy_j},
                                    {"attributed_energy_j", d.attributed_energy_j},
                                    {"busy_s", d.busy_s}};
  if (d.threads_weighed_by_cpu_time) {
    out["threads_weighed_by_cpu_time"] = count(*d.threads_weighed_by_cpu_time);
  }
  add_with_prefix(out, kClassPowerPrefix, d.class_power_w);
  if (const auto& r = d.refinement) {
    out["refined_classes"] = count(r->refined_classes);
    out["refine_windows"] = count(r->windows);
    out["refine_classes"] = count(r->classes);
    if (r->calibrated_classes > 0) out["refine_calibrated_classes"] = count(r->calibrated_classes);
    if (r->condition_number) out["refine_condition_number"] = *r->condition_number;
    if (r->idle_power_w) out["refine_idle_power_w"] = *r->idle_power_w;
    if (r->read_delay_us) out["refine_read_delay_us"] = *r->read_delay_us;
  }
  if (const auto& r = d.regression) {
    out["windows"] = count(r->windows);
    out["classes"] = count(r->classes);
    out["min_windows"] = count(r->min_windows);
    out["identifiable"] = r->identifiable ? 1.0 : 0.0;
    if (const auto& fit = r->fit) {
      out["rank"] = fit->rank;
      out["columns"] = count(fit->columns);
      out["condition_number"] = fit->condition_number;
      out["residual_rms_j"] = fit->residual_rms_j;
      out["idle_power_w"] = fit->idle_power_w;
      out["identified_classes"] = count(fit->identified_classes);
      add_with_prefix(out, kStandardErrorPrefix, fit->standard_error_w);
    }
  }
  if (const auto& c = d.calibration) {
    out["calibrated_classes"] = count(c->calibrated_classes);
    out["uncalibrated_classes"] = count(c->uncalibrated_classes);
    out["idle_weight_w"] = c->idle_weight_w;
  }
  return out;
}

Result<AttributionDiagnostics> diagnostics_from_names(const std::map<std::string, double>& named) {
  const NamedNumbers n(named);
  AttributionDiagnostics d;
  d.update_period_ms = n.number("update_period_ms").value_or(0.0);
  d.typical_span_ms = n.number("typical_span_ms").value_or(0.0);
  JP_TRY(d.segments, n.whole("segments"));
  d.measured_energy_j = n.number("measured_energy_j").value_or(0.0);
  d.attributed_energy_j = n.number("attributed_energy_j").value_or(0.0);
  d.busy_s = n.number("busy_s").value_or(0.0);
  if (n.has("threads_weighed_by_cpu_time")) {
    JP_TRY(d.threads_weighed_by_cpu_time, n.whole("threads_weighed_by_cpu_time"));
  }
  d.class_power_w = n.with_prefix(kClassPowerPrefix);
  if (n.has("refined_classes")) {
    JP_TRY(d.refinement, refinement_from(n));
  }
  if (n.has("identifiable")) {
    JP_TRY(d.regression, regression_from(n));
  }
  if (n.has("calibrated_classes")) {
    CalibrationDiagnostics c;
    JP_TRY(c.calibrated_classes, n.whole("calibrated_classes"));
    JP_TRY(c.uncalibrated_classes, n.whole("uncalibrated_classes"));
    c.idle_weight_w = n.number("idle_weight_w").value_or(0.0);
    d.calibration = c;
  }
  return d;
}

}  // namespace jouleprof
