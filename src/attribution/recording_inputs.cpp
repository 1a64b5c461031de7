#include "attribution/recording_inputs.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/csv.hpp"
#include "core/json_fields.hpp"
#include "core/json_file.hpp"
#include "core/line_reader.hpp"
#include "core/parse.hpp"
#include "jouleprof/samples_csv.hpp"
#include "sources/plausibility.hpp"

namespace jouleprof::attribution {

namespace {

constexpr std::string_view kNvmlHeader = "t_ns,instant_mw,instant_nvml_ts_us,avg_mw,energy_mj";

}  // namespace

Result<std::vector<Series>> read_nvml_poll_csv(const std::string& path, const std::string& device,
                                               std::vector<std::string>* warnings) {
  JP_TRY(LineReader lines, LineReader::open(path, "NVML poll log"));
  JP_TRY(const std::optional<TextLine> first, lines.next());
  const std::string_view header = first ? first->text : std::string_view();
  if (header != kNvmlHeader) {
    return invalid_input(path, "header", header, fmt::format("expected \"{}\"", kNvmlHeader));
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
  JP_RETURN_IF_ERROR(for_each_line(lines, [&](const TextLine& text_line) -> Status {
    const std::string_view line = text_line.text;
    if (line.empty()) return Status::Ok();
    std::vector<std::string_view> fields = split_fields(line, ',');
    const std::string where = fmt::format("line {}", text_line.number);
    if (fields.size() > 5) {
      return invalid_input(path, where, line.substr(0, 80),
                           "more than the 5 fields t_ns,instant_mw,instant_nvml_ts_us,avg_mw,"
                           "energy_mj");
    }
    fields.resize(5);  // a missing field reads as empty, which its parser refuses by name
    JP_TRY(const TimeNs t, parse_int64(path, where + " t_ns", fields[0]));
    JP_TRY(const double instant_mw, parse_number(path, where + " instant_mw", fields[1]));
    JP_TRY(const double avg_mw, parse_number(path, where + " avg_mw", fields[3]));
    JP_TRY(const double energy_mj, parse_number(path, where + " energy_mj", fields[4]));
    if (energy_mj >= 0.0) {
      if (Status s = out[0].append(t, energy_mj / 1000.0); !s) return s.error().with_context(where);
    }
    if (Status s = out[1].append(t, instant_mw / 1000.0); !s) return s.error().with_context(where);
    if (Status s = out[2].append(t, avg_mw / 1000.0); !s) return s.error().with_context(where);
    return Status::Ok();
  }));
  // A counter read that steps back, a reading above what a GPU can draw: gaps, not energy.
  std::vector<std::string> implausible = enforce_plausibility(out, path);
  if (warnings != nullptr)
    warnings->insert(warnings->end(), implausible.begin(), implausible.end());
  for (Series& s : out) s.channel().measured_period_ns = s.measured_update_period_ns();
  return out;
}

Result<std::vector<Series>> read_energy_samples(const std::string& path,
                                                std::vector<std::string>* warnings) {
  JP_TRY(LineReader lines, LineReader::open(path, "samples file"));
  JP_TRY(const std::optional<TextLine> first, lines.next());
  if (first && first->text == kNvmlHeader) return read_nvml_poll_csv(path, "gpu0", warnings);
  return read_samples_csv(path, warnings);
}

Result<RecordingMeta> read_recording_meta(const std::string& path) {
  using nlohmann::json;
  JP_TRY(const json doc, read_json_file(path, "recording metadata"));
  const JsonFields f(path);
  JP_TRY(const json* meta_doc, f.object(doc, "(document)"));
  RecordingMeta meta;
  JP_TRY(const std::optional<TimeNs> realtime,
         f.optional<TimeNs>(*meta_doc, "anchor_realtime_ns", ""));
  JP_TRY(const std::optional<TimeNs> monotonic,
         f.optional<TimeNs>(*meta_doc, "anchor_monotonic_ns", ""));
  if (realtime.has_value() != monotonic.has_value()) {
    return f.error(realtime ? "anchor_monotonic_ns" : "anchor_realtime_ns",
                   "missing (an anchor is a reading of both clocks)");
  }
  if (realtime) meta.anchor = ClockAnchor{*monotonic, *realtime};
  if (const json* marks = JsonFields::find(*meta_doc, "marks")) {
    JP_TRY(const json* list, f.array(*marks, "marks"));
    for (std::size_t i = 0; i < list->size(); ++i) {
      const json& mark = (*list)[i];
      const auto at = [i] { return fmt::format("marks[{}]", i); };
      if (!mark.is_array() || mark.size() != 2) return f.bad_value(at, mark, "is not [name, t_ns]");
      JP_TRY(std::string name, f.value<std::string>(mark[0], [&] { return at() + "[0]"; }));
      JP_TRY(const TimeNs t, f.value<TimeNs>(mark[1], [&] { return at() + "[1]"; }));
      meta.marks.emplace_back(std::move(name), t);
    }
  }
  return meta;
}

}  // namespace jouleprof::attribution
