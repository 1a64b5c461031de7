// Prometheus text format 0.0.4 and OpenMetrics 1.0 text. The two differ in the counter's
// family name (OpenMetrics names the family without `_total` and its sample with it), the `# UNIT`
// lines, the info type, the content type and the closing `# EOF`.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "core/parse.hpp"
#include "jouleprof/exporter.hpp"

namespace jouleprof {
namespace {

// Label values escape backslash, double quote and newline (both formats).
std::string label_value(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string channel_labels(const Channel& c) {
  return fmt::format(R"(device="{}",domain="{}",provenance="{}",channel="{}",top_level="{}")",
                     label_value(c.device), label_value(c.domain), to_string(c.provenance),
                     label_value(c.id), c.is_top_level() ? "true" : "false");
}

std::string number(double v) { return fmt::format("{:.17g}", v); }

void family(std::ostringstream& out, ExpositionFormat format, std::string_view name,
            std::string_view type, std::string_view unit, std::string_view help) {
  out << "# HELP " << name << ' ' << help << '\n';
  out << "# TYPE " << name << ' ' << type << '\n';
  if (format == ExpositionFormat::kOpenMetrics && !unit.empty())
    out << "# UNIT " << name << ' ' << unit << '\n';
}

}  // namespace

ExpositionFormat negotiate_exposition_format(std::string_view accept) {
  std::size_t at = 0;
  while (at <= accept.size()) {
    const std::size_t comma = std::min(accept.find(',', at), accept.size());
    const std::string_view item = accept.substr(at, comma - at);
    if (item.find("application/openmetrics-text") != std::string_view::npos) {
      const std::size_t q = item.find("q=");
      // The weight runs to the next parameter; one that is not a number ("q=x") refuses the
      // format, as a zero weight does.
      const std::string_view weight =
          q == std::string_view::npos ? std::string_view() : item.substr(q + 2);
      if (q == std::string_view::npos ||
          to_number(weight.substr(0, weight.find(';'))).value_or(0.0) > 0.0) {
        return ExpositionFormat::kOpenMetrics;
      }
    }
    at = comma + 1;
  }
  return ExpositionFormat::kPrometheusText;
}

std::string_view exposition_content_type(ExpositionFormat format) {
  return format == ExpositionFormat::kOpenMetrics
             ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
             : "text/plain; version=0.0.4; charset=utf-8";
}

std::string render_exposition(const ExporterSnapshot& snapshot, ExpositionFormat format) {
  const bool om = format == ExpositionFormat::kOpenMetrics;
  std::ostringstream out;
  auto each = [&](auto predicate, auto write) {
    for (const ExportedChannel& c : snapshot.channels) {
      if (predicate(c)) write(c);
    }
  };
  auto carries_energy = [](const ExportedChannel& c) { return c.channel.carries_energy(); };

  family(out, format, om ? "jouleprof_energy_joules" : "jouleprof_energy_joules_total", "counter",
         "joules", "Energy measured on the channel since the exporter started.");
  each(carries_energy, [&](const ExportedChannel& c) {
    out << "jouleprof_energy_joules_total{" << channel_labels(c.channel) << "} "
        << number(c.energy_j) << '\n';
  });
  family(out, format, "jouleprof_power_watts", "gauge", "watts",
         "Power over the last poll interval (counters) or the latest reading (power channels).");
  each([](const ExportedChannel& c) { return c.channel.carries_energy() && c.power_w.has_value(); },
       [&](const ExportedChannel& c) {
         out << "jouleprof_power_watts{" << channel_labels(c.channel) << "} " << number(*c.power_w)
             << '\n';
       });
  auto reading_family = [&](ChannelKind kind, std::string_view name, std::string_view unit,
                            std::string_view help) {
    const bool any = std::any_of(
        snapshot.channels.begin(), snapshot.channels.end(),
        [&](const ExportedChannel& c) { return c.channel.kind == kind && c.value.has_value(); });
    if (!any) return;
    family(out, format, name, "gauge", unit, help);
    each([&](const ExportedChannel& c) { return c.channel.kind == kind && c.value.has_value(); },
         [&](const ExportedChannel& c) {
           out << name << '{' << channel_labels(c.channel) << "} " << number(*c.value) << '\n';
         });
  };
  reading_family(ChannelKind::kTemperature, "jouleprof_temperature_celsius", "celsius",
                 "Latest temperature reading.");
  reading_family(ChannelKind::kUtilisation, "jouleprof_utilisation_ratio", "ratio",
                 "Latest utilisation, 0..1.");

  const auto busy_time = [](const ExportedChannel& c) {
    return c.channel.kind == ChannelKind::kBusyTime && c.value.has_value();
  };
  if (std::any_of(snapshot.channels.begin(), snapshot.channels.end(), busy_time)) {
    family(out, format, om ? "jouleprof_busy_seconds" : "jouleprof_busy_seconds_total", "counter",
           "seconds",
           "Busy time since the exporter started: the observed processes' (domain names the "
           "rule), every process's (busy) and the device's idle time (idle).");
    each(busy_time, [&](const ExportedChannel& c) {
      out << "jouleprof_busy_seconds_total{" << channel_labels(c.channel) << "} "
          << number(*c.value) << '\n';
    });
  }
  if (!snapshot.process_shares.empty()) {
    // The machine's labels, with the figure's own provenance: a share is attributed.
    const auto labels = [&](const ExportedProcessShare& p) {
      Channel attributed = snapshot.channels[p.channel].channel;
      attributed.provenance = Provenance::kAttributed;
      return fmt::format(R"({},rule="{}",observed="{}")", channel_labels(attributed),
                         label_value(p.rule), label_value(snapshot.observed));
    };
    family(out, format,
           om ? "jouleprof_process_energy_joules" : "jouleprof_process_energy_joules_total",
           "counter", "joules",
           "The observed processes' attributed share of the channel's energy since the exporter "
           "started (docs/sharing.md).");
    for (const ExportedProcessShare& p : snapshot.process_shares) {
      out << "jouleprof_process_energy_joules_total{" << labels(p) << "} " << number(p.energy_j)
          << '\n';
    }
    const auto with_share = [](const ExportedProcessShare& p) { return p.share.has_value(); };
    if (std::any_of(snapshot.process_shares.begin(), snapshot.process_shares.end(), with_share)) {
      family(out, format, "jouleprof_process_share_ratio", "gauge", "ratio",
             "The observed processes' share of the channel's energy over the last poll "
             "interval, 0..1.");
      for (const ExportedProcessShare& p : snapshot.process_shares) {
        if (!p.share) continue;
        out << "jouleprof_process_share_ratio{" << labels(p) << "} " << number(*p.share) << '\n';
      }
    }
  }

  family(out, format, "jouleprof_source_up", "gauge", "",
         "1 when the energy source is available and its last read succeeded, else 0.");
  for (const SourceHealth& s : snapshot.sources) {
    out << "jouleprof_source_up{source=\"" << label_value(s.source) << "\"} " << (s.up ? 1 : 0)
        << '\n';
  }
  family(out, format, om ? "jouleprof_source" : "jouleprof_source_info", om ? "info" : "gauge", "",
         "Why an energy source is down and what to do about it (empty when up).");
  for (const SourceHealth& s : snapshot.sources) {
    out << "jouleprof_source_info{source=\"" << label_value(s.source) << "\",reason=\""
        << label_value(s.reason) << "\",fix=\"" << label_value(s.fix) << "\"} 1\n";
  }
  if (om) out << "# EOF\n";
  return out.str();
}

}  // namespace jouleprof
