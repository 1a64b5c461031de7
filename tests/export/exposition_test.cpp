#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "jouleprof/exporter.hpp"

namespace jouleprof {
namespace {

ExporterSnapshot sample_snapshot() {
  Channel pkg{"rapl:package-0",
              "rapl-powercap",
              "cpu0",
              "package",
              ChannelKind::kEnergyCounter,
              Provenance::kMeasured,
              "",
              "",
              0,
              0};
  Channel core = pkg;
  core.id = "rapl:package-0/core";
  core.domain = "core";
  core.parent_id = pkg.id;
  Channel odd{"sim\"x\\y\nz",         "simulated", "gpu \"0\"", "gpu", ChannelKind::kPower,
              Provenance::kSimulated, "",          "",          0,     0};
  Channel temp{"nvml:0:temp",         "nvml", "gpu0", "gpu", ChannelKind::kTemperature,
               Provenance::kMeasured, "",     "",     0,     0};
  ExporterSnapshot s;
  s.channels.push_back({pkg, 123.5, 41.25, std::nullopt});
  s.channels.push_back({core, 60.0, std::nullopt, std::nullopt});  // no power yet: no gauge sample
  s.channels.push_back({odd, 7.0, 70.0, std::nullopt});
  s.channels.push_back({temp, 0.0, std::nullopt, 55.0});
  s.sources.push_back({"rapl-powercap", true, "", ""});
  s.sources.push_back({"nvml", false, "libnvidia-ml.so.1 not found", "install the NVIDIA driver"});
  return s;
}

struct Parsed {
  std::map<std::string, std::string> types;  // family -> type
  std::map<std::string, std::string> units;
  std::map<std::string, double> samples;  // full "name{labels}" -> value
  std::vector<std::string> sample_names;
  bool eof = false;
  bool anything_after_eof = false;
};

Parsed parse(const std::string& text) {
  Parsed p;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (p.eof) p.anything_after_eof = true;
    if (line == "# EOF") {
      p.eof = true;
    } else if (line.rfind("# TYPE ", 0) == 0) {
      const auto sp = line.find(' ', 7);
      p.types[line.substr(7, sp - 7)] = line.substr(sp + 1);
    } else if (line.rfind("# UNIT ", 0) == 0) {
      const auto sp = line.find(' ', 7);
      p.units[line.substr(7, sp - 7)] = line.substr(sp + 1);
    } else if (!line.empty() && line[0] != '#') {
      const auto sp = line.rfind(' ');
      p.samples[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
      p.sample_names.push_back(line.substr(0, line.find('{')));
    }
  }
  return p;
}

TEST(Exposition, PrometheusTextFormat) {
  const std::string text = render_exposition(sample_snapshot(), ExpositionFormat::kPrometheusText);
  const Parsed p = parse(text);
  EXPECT_FALSE(p.eof);
  EXPECT_EQ(p.types.at("jouleprof_energy_joules_total"), "counter");
  EXPECT_EQ(p.types.at("jouleprof_power_watts"), "gauge");
  EXPECT_EQ(p.types.at("jouleprof_source_info"), "gauge");
  EXPECT_TRUE(p.units.empty());
  EXPECT_DOUBLE_EQ(
      p.samples.at(
          R"(jouleprof_energy_joules_total{device="cpu0",domain="package",provenance="measured",channel="rapl:package-0",top_level="true"})"),
      123.5);
  EXPECT_DOUBLE_EQ(
      p.samples.at(
          R"(jouleprof_energy_joules_total{device="cpu0",domain="core",provenance="measured",channel="rapl:package-0/core",top_level="false"})"),
      60.0);
  EXPECT_DOUBLE_EQ(
      p.samples.at(
          R"(jouleprof_power_watts{device="cpu0",domain="package",provenance="measured",channel="rapl:package-0",top_level="true"})"),
      41.25);
  // Escaped label values: backslash, quote and newline.
  EXPECT_TRUE(p.samples.contains(
      R"(jouleprof_power_watts{device="gpu \"0\"",domain="gpu",provenance="simulated",channel="sim\"x\\y\nz",top_level="true"})"))
      << text;
  EXPECT_DOUBLE_EQ(
      p.samples.at(
          R"(jouleprof_temperature_celsius{device="gpu0",domain="gpu",provenance="measured",channel="nvml:0:temp",top_level="true"})"),
      55.0);
  EXPECT_DOUBLE_EQ(p.samples.at(R"(jouleprof_source_up{source="rapl-powercap"})"), 1.0);
  EXPECT_DOUBLE_EQ(p.samples.at(R"(jouleprof_source_up{source="nvml"})"), 0.0);
  EXPECT_TRUE(p.samples.contains(
      R"(jouleprof_source_info{source="nvml",reason="libnvidia-ml.so.1 not found",fix="install the NVIDIA driver"})"));
  EXPECT_EQ(std::count(p.sample_names.begin(), p.sample_names.end(), "jouleprof_power_watts"),
            2);  // core has none
  EXPECT_FALSE(p.samples.contains(
      R"(jouleprof_energy_joules_total{device="gpu0",domain="gpu",provenance="measured",channel="nvml:0:temp",top_level="true"})"));
}

TEST(Exposition, OpenMetricsFormat) {
  const std::string text = render_exposition(sample_snapshot(), ExpositionFormat::kOpenMetrics);
  const Parsed p = parse(text);
  EXPECT_TRUE(p.eof);
  EXPECT_FALSE(p.anything_after_eof);
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
  EXPECT_EQ(p.types.at("jouleprof_energy_joules"), "counter");  // family without _total
  EXPECT_EQ(p.units.at("jouleprof_energy_joules"), "joules");
  EXPECT_EQ(p.units.at("jouleprof_power_watts"), "watts");
  EXPECT_EQ(p.types.at("jouleprof_source"), "info");
  for (const std::string& name : p.sample_names) {
    // Every sample belongs to a declared family (counter samples carry _total, info samples _info).
    const bool declared =
        p.types.contains(name) ||
        (name.ends_with("_total") && p.types.contains(name.substr(0, name.size() - 6))) ||
        (name.ends_with("_info") && p.types.contains(name.substr(0, name.size() - 5)));
    EXPECT_TRUE(declared) << name;
  }
}

TEST(Exposition, ProcessSharesBesideTheMachinesCounters) {
  ExporterSnapshot s = sample_snapshot();
  Channel busy{"processes:cpu:cpu-time", "processes", "cpu", "cpu-time", ChannelKind::kBusyTime,
               Provenance::kMeasured,    "",          "",    0,          0};
  s.channels.push_back({busy, 0.0, std::nullopt, 1.25});
  s.process_shares.push_back({0, 61.5, 0.5, "cpu-time"});
  s.observed = "pid 7 and its descendants";
  for (const ExpositionFormat format :
       {ExpositionFormat::kPrometheusText, ExpositionFormat::kOpenMetrics}) {
    const std::string text = render_exposition(s, format);
    EXPECT_NE(text.find("jouleprof_process_energy_joules_total{device=\"cpu0\",domain=\"package\","
                        "provenance=\"attributed\",channel=\"rapl:package-0\",top_level=\"true\","
                        "rule=\"cpu-time\",observed=\"pid 7 and its descendants\"} 61.5"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("jouleprof_process_share_ratio{"), std::string::npos);
    EXPECT_NE(text.find("jouleprof_busy_seconds_total{device=\"cpu\",domain=\"cpu-time\""),
              std::string::npos)
        << text;
    // The machine's counter keeps its own provenance.
    EXPECT_NE(text.find("jouleprof_energy_joules_total{device=\"cpu0\",domain=\"package\","
                        "provenance=\"measured\""),
              std::string::npos);
  }
  EXPECT_NE(render_exposition(s, ExpositionFormat::kOpenMetrics)
                .find("# TYPE jouleprof_process_energy_joules counter"),
            std::string::npos);
}

TEST(Exposition, NegotiatesFromTheAcceptHeader) {
  EXPECT_EQ(negotiate_exposition_format(""), ExpositionFormat::kPrometheusText);
  EXPECT_EQ(negotiate_exposition_format("text/plain"), ExpositionFormat::kPrometheusText);
  // What Prometheus 2.x sends.
  EXPECT_EQ(negotiate_exposition_format(
                "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
            ExpositionFormat::kOpenMetrics);
  EXPECT_EQ(negotiate_exposition_format("application/openmetrics-text;q=0,text/plain"),
            ExpositionFormat::kPrometheusText);
  EXPECT_NE(exposition_content_type(ExpositionFormat::kOpenMetrics)
                .find("application/openmetrics-text; version=1.0.0"),
            std::string_view::npos);
  EXPECT_NE(exposition_content_type(ExpositionFormat::kPrometheusText).find("version=0.0.4"),
            std::string_view::npos);
}

}  // namespace
}  // namespace jouleprof
