#include "attribution/recording_inputs.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/json_brief.hpp"
#include "core/parse.hpp"
#include "core/text_file.hpp"
#include "jouleprof/samples_csv.hpp"
#include "sources/plausibility.hpp"

namespace jouleprof::attribution {

namespace {

constexpr std::string_view kNvmlHeader = "t_ns,instant_mw,instant_nvml_ts_us,avg_mw,energy_mj";

}  // namespace

Result<std::vector<Series>> read_nvml_poll_csv(const std::string& path, const std::string& device) {
  JP_TRY(const std::string text, read_text_file(path, "NVML poll log"));
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line != kNvmlHeader) {
    return invalid_input(path, "header", line, fmt::format("expected \"{}\"", kNvmlHeader));
  }
  const std::string energy_id = fmt::format("nvml:{}:energy", device);
  std::vector<Series> out;
  out.emplace_back(
      Channel{energy_id, "nvml", device, "gpu", ChannelKind::kEnergyCounter, Provenance::kImported,
              path + ": nvmlDeviceGetTotalEnergyConsumption (energy_mj)", "", 100 * kNsPerMs, 0});
  out.emplace_back(Channel{fmt::format("nvml:{}:instant", device), "nvml", device, "gpu",
                           ChannelKind::kPower, Provenance::kImported,
                           path + ": NVML_FI_DEV_POWER_INSTANT (instant_mw)", energy_id,
                           100 * kNsPerMs, 0});
  out.emplace_back(Channel{fmt::format("nvml:{}:average", device), "nvml", device, "gpu",
                           ChannelKind::kPower, Provenance::kImported,
                           path + ": nvmlDeviceGetPowerUsage, 1 s average (avg_mw)", energy_id,
                           100 * kNsPerMs, 0});
  std::size_t line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::string_view rest(line);
    std::string_view fields[5];
    for (int f = 0; f < 5; ++f) {
      const std::size_t comma = rest.find(',');
      fields[f] = rest.substr(0, comma);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    const std::string where = fmt::format("line {}", line_no);
    if (!rest.empty()) {
      return invalid_input(path, where, line.substr(0, 80),
                           "more than the 5 fields t_ns,instant_mw,instant_nvml_ts_us,avg_mw,"
                           "energy_mj");
    }
    JP_TRY(const TimeNs t, parse_int64(path, where + " t_ns", fields[0]));
    JP_TRY(const double instant_mw, parse_number(path, where + " instant_mw", fields[1]));
    JP_TRY(const double avg_mw, parse_number(path, where + " avg_mw", fields[3]));
    JP_TRY(const double energy_mj, parse_number(path, where + " energy_mj", fields[4]));
    if (energy_mj >= 0.0) {
      if (Status s = out[0].append(t, energy_mj / 1000.0); !s) return s.error().with_context(where);
    }
    if (Status s = out[1].append(t, instant_mw / 1000.0); !s) return s.error().with_context(where);
    if (Status s = out[2].append(t, avg_mw / 1000.0); !s) return s.error().with_context(where);
  }
  // A counter read that steps back, a reading above what a GPU can draw: gaps, not energy.
  (void)enforce_plausibility(out, path);
  for (Series& s : out) s.channel().measured_period_ns = s.measured_update_period_ns();
  return out;
}

Result<std::vector<Series>> read_energy_samples(const std::string& path) {
  JP_TRY(const std::string text, read_text_file(path, "samples file"));
  std::string_view first = std::string_view(text).substr(0, text.find('\n'));
  if (!first.empty() && first.back() == '\r') first.remove_suffix(1);
  if (first == kNvmlHeader) return read_nvml_poll_csv(path);
  return parse_samples_csv(text, path);
}

Result<RecordingMeta> read_recording_meta(const std::string& path) {
  JP_TRY(const std::string text, read_text_file(path, "recording metadata"));
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return invalid_input(path, "(document)", "", "not a JSON object");
  RecordingMeta meta;
  if (doc.contains("anchor_realtime_ns") || doc.contains("anchor_monotonic_ns")) {
    const auto& r = doc.value("anchor_realtime_ns", nlohmann::json());
    const auto& m = doc.value("anchor_monotonic_ns", nlohmann::json());
    if (!r.is_number_integer() || !m.is_number_integer()) {
      return invalid_input(path, "anchor_realtime_ns/anchor_monotonic_ns",
                           json_brief(r) + "/" + json_brief(m), "both must be integers");
    }
    meta.anchor = ClockAnchor{m.get<TimeNs>(), r.get<TimeNs>()};
  }
  if (doc.contains("marks")) {
    if (!doc["marks"].is_array())
      return invalid_input(path, "marks", json_brief(doc["marks"]), "not an array");
    std::size_t i = 0;
    for (const auto& mark : doc["marks"]) {
      if (!mark.is_array() || mark.size() != 2 || !mark[0].is_string() ||
          !mark[1].is_number_integer()) {
        return invalid_input(path, fmt::format("marks[{}]", i), json_brief(mark),
                             "expected [name, t_ns]");
      }
      meta.marks.emplace_back(mark[0].get<std::string>(), mark[1].get<TimeNs>());
      ++i;
    }
  }
  return meta;
}

}  // namespace jouleprof::attribution
