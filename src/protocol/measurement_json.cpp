#include "jouleprof/measurement_json.hpp"

#include <nlohmann/json.hpp>

namespace jouleprof {
namespace {

nlohmann::json header(std::string_view kind) {
  return {{"schema", "jouleprof." + std::string(kind)},
          {"schema_version", kMeasurementJsonVersion}};
}

nlohmann::json stats_json(const RepetitionStats& s) {
  return {{"n", s.n},         {"mean", s.mean},         {"median", s.median},
          {"stdev", s.stdev}, {"ci95_low", s.ci95_low}, {"ci95_high", s.ci95_high}};
}

nlohmann::json band_json(const EnergyBand& b) {
  return {{"low_j", b.low_j}, {"high_j", b.high_j}, {"dominant", to_string(b.dominant)}};
}

nlohmann::json fecom_json(const FecomAnalysis& a) {
  nlohmann::json calls = nlohmann::json::array();
  for (const FecomCallSummary& c : a.calls) {
    nlohmann::json devices;
    for (FecomDevice d : kFecomDevices) {
      const FecomDeviceSummary& s = c.devices[static_cast<int>(d)];
      devices[std::string(to_string(d))] = {{"total_j", stats_json(s.total_j)},
                                            {"net_j", stats_json(s.net_j)},
                                            {"tail_j", stats_json(s.tail_j)},
                                            {"net_plus_tail_j", stats_json(s.net_plus_tail_j)},
                                            {"skipped_shorter_than_sample", s.skipped}};
    }
    calls.push_back({{"position", c.position},
                     {"api", c.api},
                     {"experiments", c.experiments},
                     {"execution_s", stats_json(c.execution_s)},
                     {"args_size", c.args_size ? nlohmann::json(*c.args_size) : nlohmann::json()},
                     {"provenance", "measured (FECoM records: perf RAPL, nvidia-smi)"},
                     {"devices", devices}});
  }
  return {{"experiments", a.experiments}, {"calls", calls}, {"warnings", a.warnings}};
}

nlohmann::json gated_json(const GatedResult& r) {
  nlohmann::json reps = nlohmann::json::array();
  for (const GatedRepetition& rep : r.repetitions) {
    nlohmann::json gate_channels = nlohmann::json::array();
    for (const ChannelGate& g : rep.gate.channels) {
      gate_channels.push_back({{"channel", g.channel_id},
                               {g.temperature ? "temperature_c" : "cv", g.value},
                               {"threshold", g.threshold},
                               {"ok", g.ok}});
    }
    nlohmann::json channels = nlohmann::json::array();
    for (const ChannelCall& c : rep.channels) {
      channels.push_back({{"channel", c.channel_id},
                          {"provenance", to_string(c.provenance)},
                          {"provenance_detail", c.provenance_detail},
                          {"total_j", c.total_j},
                          {"baseline_power_w", c.baseline_power_w},
                          {"net_j", c.net_j},
                          {"tail_j", c.tail_j},
                          {"net_plus_tail_j", c.net_plus_tail_j},
                          {"tail_duration_ns", c.tail_duration_ns},
                          {"mean_power_w", c.mean_power_w},
                          {"median_power_w", c.median_power_w},
                          {"stdev_power_w", c.stdev_power_w}});
    }
    reps.push_back({{"gate",
                     {{"passed", rep.gate.passed},
                      {"waited_ns", rep.gate.waited_ns},
                      {"checks", rep.gate.checks},
                      {"channels", gate_channels}}},
                    {"calls", rep.calls},
                    {"window_ns", rep.window_ns},
                    {"per_call", channels}});
  }
  nlohmann::json summary = nlohmann::json::array();
  for (const GatedChannelSummary& c : r.summary) {
    summary.push_back({{"channel", c.channel_id},
                       {"total_j", stats_json(c.total_j)},
                       {"net_j", stats_json(c.net_j)},
                       {"tail_j", stats_json(c.tail_j)},
                       {"net_plus_tail_j", stats_json(c.net_plus_tail_j)},
                       {"total_band", band_json(c.total_band)},
                       {"net_band", band_json(c.net_band)},
                       {"net_plus_tail_band", band_json(c.net_plus_tail_band)}});
  }
  return {{"preset", r.profile.meta.options.gated.preset.value_or(std::string())},
          {"repetitions", reps},
          {"summary", summary},
          {"update_period_ns", r.update_period_ns},
          {"min_window_ns", r.min_window_ns},
          {"single_call_ns", r.single_call_ns},
          {"incomplete", r.incomplete},
          {"missing", r.missing},
          {"warnings", r.warnings}};
}

nlohmann::json auto_window_json(const AutoWindowResult& r) {
  nlohmann::json sweep = nlohmann::json::array();
  for (const AutoWindowSetting& s : r.sweep) {
    sweep.push_back({{"window_ns", s.window_ns},
                     {"cooldown_ns", s.cooldown_ns},
                     {"energy_j_per_call", s.energy_j_per_call},
                     {"mean_j", s.mean_j},
                     {"cv", s.cv},
                     {"drifting", s.drifting}});
  }
  return {{"stable", r.stable},
          {"window_ns", r.window_ns},
          {"cooldown_ns", r.cooldown_ns},
          {"energy_j_per_call", r.energy_j_per_call},
          {"cv", r.cv},
          {"provenance", r.provenance},
          {"missing", r.missing},
          {"sweep", sweep}};
}

}  // namespace

std::string to_json(const GatedResult& result, int indent) {
  nlohmann::json out = header("gated");
  out.update(gated_json(result));
  return out.dump(indent);
}

std::string to_json(const AutoWindowResult& result, int indent) {
  nlohmann::json out = header("auto-window");
  out.update(auto_window_json(result));
  return out.dump(indent);
}

std::string to_json(const FecomAnalysis& analysis, int indent) {
  nlohmann::json out = header("fecom-records");
  out.update(fecom_json(analysis));
  return out.dump(indent);
}

}  // namespace jouleprof
