// Calibration files: the one reader and writer of the "jouleprof-calibration" format.
#include "jouleprof/calibration.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/json_brief.hpp"
#include "core/json_fields.hpp"
#include "core/json_file.hpp"
#include "core/text_file.hpp"
#include "jouleprof/device_names.hpp"

namespace jouleprof {

namespace {

using nlohmann::json;

constexpr std::string_view kFormatName = "jouleprof-calibration";
constexpr int kFormatVersion = 1;

// A calibration holds a few figures per device and span pattern: kilobytes. 64 MiB is thousands of
// times more than any real one.
constexpr std::uint64_t kMaxCalibrationBytes = std::uint64_t{64} << 20;

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative '*' matching with one backtrack point: linear in practice.
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

Result<RepetitionStats> read_stats(const JsonFields& f, const json& j, const std::string& where) {
  RepetitionStats s;
  JP_TRY(s.n, f.get<std::uint32_t>(j, "n", where));
  JP_TRY(s.mean, f.get<double>(j, "mean", where));
  JP_TRY(s.median, f.get<double>(j, "median", where));
  JP_TRY(s.stdev, f.get<double>(j, "stdev", where));
  JP_TRY(s.ci95_low, f.get<double>(j, "ci95_low", where));
  JP_TRY(s.ci95_high, f.get<double>(j, "ci95_high", where));
  return s;
}

Result<ClassMeasurement> read_measurement(const JsonFields& f, const json& entry,
                                          const std::string& where) {
  ClassMeasurement m;
  JP_TRY(m.baseline_w, f.get<double>(entry, "baseline_w", where));
  JP_TRY(const json* net, f.member(entry, "net_power_w", where));
  JP_TRY(m.net_power_w, read_stats(f, *net, where + ".net_power_w"));
  JP_TRY(m.tail_j_per_call, f.get<double>(entry, "tail_j_per_call", where));
  JP_TRY(m.call_s, f.get<double>(entry, "call_s", where));
  JP_TRY(m.calls_per_window, f.get<std::uint64_t>(entry, "calls_per_window", where));
  JP_TRY(m.self_time_share, f.get<double>(entry, "self_time_share", where));
  JP_TRY(const std::optional<std::string> signature,
         f.optional<std::string>(entry, "signature", where));
  m.signature = signature.value_or("");
  JP_TRY(const std::optional<std::string> incomplete,
         f.optional<std::string>(entry, "incomplete", where));
  m.incomplete = incomplete.value_or("");
  if (!entry.contains("gates")) return m;
  JP_TRY(const json* gates, f.array(entry, "gates", where));
  for (std::size_t g = 0; g < gates->size(); ++g) {
    const json& gate = (*gates)[g];
    const std::string gate_where = fmt::format("{}.gates[{}]", where, g);
    CalibrationGate read;
    JP_TRY(read.waited_s, f.get<double>(gate, "waited_s", gate_where));
    JP_TRY(read.checks, f.get<std::uint32_t>(gate, "checks", gate_where));
    JP_TRY(read.max_cv, f.get<double>(gate, "max_cv", gate_where));
    m.gates.push_back(read);
  }
  return m;
}

Result<CalibrationClass> read_class(const JsonFields& f, const json& entry, std::size_t index) {
  const std::string where = fmt::format("classes[{}]", index);
  CalibrationClass c;
  JP_TRY(c.match,
         f.get<std::string>(
             entry, "match", where, [](const std::string& m) { return !m.empty(); }, "is empty"));
  JP_TRY(c.power_w, f.get<double>(
                        entry, "power_w", where, [](double w) { return w > 0.0; },
                        "is not a positive number of watts"));
  JP_TRY(const std::optional<std::string> provenance,
         f.optional<std::string>(entry, "provenance", where));
  c.provenance = provenance.value_or("");
  if (entry.contains("net_power_w")) {
    JP_TRY(ClassMeasurement m, read_measurement(f, entry, where));
    c.measurement = std::move(m);
  }
  return c;
}

json measurement_to_json(const ClassMeasurement& m) {
  json gates = json::array();
  for (const CalibrationGate& g : m.gates) {
    gates.push_back(json{{"waited_s", g.waited_s}, {"checks", g.checks}, {"max_cv", g.max_cv}});
  }
  const RepetitionStats& net = m.net_power_w;
  return json{{"baseline_w", m.baseline_w},
              {"net_power_w", json{{"n", net.n},
                                   {"mean", net.mean},
                                   {"median", net.median},
                                   {"stdev", net.stdev},
                                   {"ci95_low", net.ci95_low},
                                   {"ci95_high", net.ci95_high}}},
              {"tail_j_per_call", m.tail_j_per_call},
              {"call_s", m.call_s},
              {"calls_per_window", m.calls_per_window},
              {"self_time_share", m.self_time_share},
              {"signature", m.signature},
              {"gates", gates},
              {"incomplete", m.incomplete}};
}

}  // namespace

std::optional<double> Calibration::power_for(std::string_view class_name) const {
  const CalibrationClass* c = match(class_name);
  return c != nullptr ? std::optional<double>(c->power_w) : std::nullopt;
}

const CalibrationClass* Calibration::match(std::string_view class_name) const {
  if (const CalibrationClass* exact = find(class_name)) return exact;
  for (const CalibrationClass& c : classes) {
    if (c.match.find('*') != std::string::npos && glob_match(c.match, class_name)) return &c;
  }
  return nullptr;
}

double CalibrationClass::relative_error() const {
  if (!measurement || measurement->net_power_w.n < 2 || !(power_w > 0.0))
    return kDefaultCalibrationError;
  const RepetitionStats& net = measurement->net_power_w;
  return 0.5 * (net.ci95_high - net.ci95_low) / power_w;
}

const CalibrationClass* Calibration::find(std::string_view class_name) const {
  for (const CalibrationClass& c : classes) {
    if (c.match == class_name) return &c;
  }
  return nullptr;
}

bool Calibration::applies_to_device(std::string_view channel_device) const {
  return device_selects(device, channel_device);
}

Result<Calibration> calibration_from_json_string(const std::string& text,
                                                 const std::string& origin) {
  JP_TRY(const json doc, parse_json(text, origin));
  const JsonFields f(origin);
  const char* top = "";  // the document's own fields are named without a prefix
  JP_RETURN_IF_ERROR(f.object(doc, "(document)"));
  JP_TRY(const std::optional<std::string> format, f.optional<std::string>(doc, "format", top));
  if (format != kFormatName) {
    return f.error("format", fmt::format("is '{}', not \"{}\"", format.value_or(""), kFormatName));
  }
  JP_TRY(const std::optional<int> version, f.optional<int>(doc, "version", top));
  if (version != kFormatVersion) {
    return f.error("version",
                   fmt::format("is {}, not {}", version ? std::to_string(*version) : "missing",
                               kFormatVersion));
  }
  Calibration cal;
  cal.origin = origin;
  JP_TRY(const std::optional<std::string> device, f.optional<std::string>(doc, "device", top));
  cal.device = device.value_or("");
  JP_TRY(const std::optional<std::string> provenance,
         f.optional<std::string>(doc, "provenance", top));
  cal.provenance = provenance.value_or("");
  if (cal.provenance.empty()) {
    return f.error("provenance", "missing: say how the weights were measured");
  }
  JP_TRY(cal.idle_power_w, f.optional<double>(doc, "idle_w", top));
  if (cal.idle_power_w && !(*cal.idle_power_w >= 0.0)) {
    return f.error("idle_w", fmt::format("is {}, not a non-negative number", *cal.idle_power_w));
  }
  JP_TRY(const std::optional<std::string> model, f.optional<std::string>(doc, "model", top));
  cal.model = model.value_or("");
  JP_TRY(const std::optional<std::string> method, f.optional<std::string>(doc, "method", top));
  cal.method = method.value_or("");
  JP_TRY(const auto channels, f.optional<std::vector<std::string>>(doc, "channels", top));
  cal.channel_ids = channels.value_or(std::vector<std::string>{});
  JP_TRY(const auto skipped, f.optional<std::vector<std::string>>(doc, "skipped", top));
  cal.skipped = skipped.value_or(std::vector<std::string>{});
  JP_TRY(const std::optional<double> coverage, f.optional<double>(doc, "time_coverage", top));
  if (coverage && !(*coverage >= 0.0 && *coverage <= 1.0 + 1e-9)) {
    return f.error("time_coverage", fmt::format("is {}, not a share from 0 to 1", *coverage));
  }
  cal.time_coverage = coverage;
  JP_TRY(const json* classes, f.array(doc, "classes", top));
  if (classes->empty()) return f.error("classes", "must be a non-empty array");
  for (std::size_t index = 0; index < classes->size(); ++index) {
    JP_TRY(CalibrationClass c, read_class(f, (*classes)[index], index));
    cal.classes.push_back(std::move(c));
  }
  return cal;
}

Result<Calibration> read_calibration_json(const std::string& path) {
  JP_TRY(std::string text, read_text_file(path, "calibration file", kMaxCalibrationBytes));
  return calibration_from_json_string(text, path);
}

std::string calibration_to_json_string(const Calibration& calibration) {
  json classes = json::array();
  for (const CalibrationClass& c : calibration.classes) {
    json entry{{"match", c.match}, {"power_w", c.power_w}};
    if (!c.provenance.empty()) entry["provenance"] = c.provenance;
    if (c.measurement) entry.update(measurement_to_json(*c.measurement));
    classes.push_back(std::move(entry));
  }
  json doc{{"format", kFormatName},
           {"version", kFormatVersion},
           {"device", calibration.device},
           {"provenance", calibration.provenance}};
  if (calibration.idle_power_w) doc["idle_w"] = *calibration.idle_power_w;
  if (!calibration.model.empty()) doc["model"] = calibration.model;
  if (!calibration.method.empty()) doc["method"] = calibration.method;
  if (!calibration.channel_ids.empty()) doc["channels"] = calibration.channel_ids;
  if (calibration.time_coverage) doc["time_coverage"] = *calibration.time_coverage;
  doc["classes"] = std::move(classes);
  if (!calibration.skipped.empty()) doc["skipped"] = calibration.skipped;
  return doc.dump(2) + '\n';
}

Status write_calibration_json(const Calibration& calibration, const std::string& path) {
  return write_text_file(path, calibration_to_json_string(calibration));
}

}  // namespace jouleprof
