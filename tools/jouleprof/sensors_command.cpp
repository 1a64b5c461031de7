// `jouleprof sensors`: every energy source found, its channels, and why the others are missing.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "flag_names.hpp"
#include "jouleprof/sensor_survey.hpp"
#include "number_checks.hpp"
#include "source_flags.hpp"

namespace jouleprof::cli {
namespace {

std::string_view unit_of(ChannelKind kind) {
  switch (kind) {
    case ChannelKind::kEnergyCounter:
      return "J (cumulative)";
    case ChannelKind::kPower:
      return "W";
    case ChannelKind::kTemperature:
      return "degC";
    case ChannelKind::kUtilisation:
      return "fraction";
    case ChannelKind::kBusyTime:
      return "s busy (cumulative)";
  }
  return "?";
}

std::string period_text(TimeNs ns) {
  if (ns <= 0) return "-";
  if (ns < kNsPerMs) return fmt::format("{:.0f} us", static_cast<double>(ns) / kNsPerUs);
  return fmt::format("{:.3g} ms", static_cast<double>(ns) / kNsPerMs);
}

nlohmann::json to_json(const SensorSurvey& survey) {
  nlohmann::json sources = nlohmann::json::array();
  for (const SurveyedSource& s : survey.available) {
    nlohmann::json channels = nlohmann::json::array();
    for (std::size_t i = 0; i < s.channels.size(); ++i) {
      const Channel& c = s.channels[i];
      channels.push_back({{"id", c.id},
                          {"device", c.device},
                          {"label", c.label},
                          {"domain", c.domain},
                          {"kind", to_string(c.kind)},
                          {"unit", unit_of(c.kind)},
                          {"provenance", to_string(c.provenance)},
                          {"provenance_detail", c.provenance_detail},
                          {"parent_id", c.parent_id},
                          {"nominal_period_ns", c.nominal_period_ns},
                          {"measured_period_ns", c.measured_period_ns},
                          {"samples", s.samples[i]},
                          {"last_value", s.last_values[i]}});
    }
    sources.push_back({{"name", s.name},
                       {"default_period_ns", s.default_period_ns},
                       {"survey_period_ns", s.survey_period_ns},
                       {"channels", channels},
                       {"warnings", s.warnings}});
  }
  nlohmann::json unavailable = nlohmann::json::array();
  for (const UnavailableSource& u : survey.unavailable) {
    unavailable.push_back(
        {{"name", u.name}, {"reason", u.availability.reason}, {"fix", u.availability.fix}});
  }
  return {{"survey_duration_ns", survey.duration_ns},
          {"sources", sources},
          {"unavailable", unavailable},
          {"notes", survey.notes}};
}

void print_table(const SensorSurvey& survey) {
  std::cout << fmt::format("Energy sources found ({} surveyed for {:.1f} s):\n",
                           survey.available.size(), ns_to_s(survey.duration_ns));
  if (survey.available.empty()) std::cout << "  none\n";
  for (const SurveyedSource& s : survey.available) {
    std::cout << fmt::format("\n  {}  (a run polls it every {}; surveyed every {})\n", s.name,
                             period_text(s.default_period_ns), period_text(s.survey_period_ns));
    std::cout << fmt::format("    {:<28} {:<15} {:<10} {:<14} {:>9} {:>9}  {}\n", "channel", "unit",
                             "provenance", "device/domain", "nominal", "measured", "inside");
    for (std::size_t i = 0; i < s.channels.size(); ++i) {
      const Channel& c = s.channels[i];
      std::cout << fmt::format("    {:<28} {:<15} {:<10} {:<14} {:>9} {:>9}  {}\n", c.id,
                               unit_of(c.kind), to_string(c.provenance),
                               fmt::format("{}/{}", c.device, c.domain),
                               period_text(c.nominal_period_ns), period_text(c.measured_period_ns),
                               c.parent_id.empty() ? "-" : c.parent_id);
    }
    for (const Channel& c : s.channels) {
      std::cout << fmt::format("    {}: {}\n", c.id, c.provenance_detail);
    }
    for (const std::string& w : s.warnings) std::cout << "    warning: " << w << '\n';
  }
  if (!survey.unavailable.empty()) std::cout << "\nUnavailable:\n";
  for (const UnavailableSource& u : survey.unavailable) {
    std::cout << fmt::format("  {}: {}\n", u.name, u.availability.reason);
    if (!u.availability.fix.empty())
      std::cout << fmt::format("    fix: {}\n", with_flag_names(u.availability.fix));
  }
  for (const std::string& note : survey.notes) std::cout << "\nnote: " << note << '\n';
  std::cout << "\n'measured' is the update period seen while polling at the survey period: a value "
               "near the survey period means the counter updates at least that often.\n";
}

}  // namespace

CommandRunner add_sensors_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "sensors",
      "List the energy sources found, their channels, units, provenance, nesting and "
      "measured update periods; say why the others are unavailable");
  struct Flags {
    SourceFlags sources;
    bool json = false;
    double duration_s = 1.0;
  };
  auto flags = std::make_shared<Flags>();
  flags->sources.add_to(*app);
  app->add_flag("--json", flags->json, "Print JSON instead of a table");
  app->add_option("--duration", flags->duration_s,
                  "Seconds to poll each source to measure update periods (0.01 to 60)")
      ->type_name("SECONDS")
      ->check(number_in(0.01, 60.0));
  return [flags] {
    Result<SourceOptions> options = flags->sources.to_options();
    if (!options) return report_error(options.error());
    Result<SensorSurvey> survey = survey_sensors(*options, s_to_ns(flags->duration_s));
    if (!survey) return report_error(survey.error());
    if (flags->json) {
      std::cout << to_json(*survey).dump(2) << '\n';
    } else {
      print_table(*survey);
    }
    return kExitOk;
  };
}

}  // namespace jouleprof::cli
