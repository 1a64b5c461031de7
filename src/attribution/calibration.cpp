// Calibration files: the one reader and writer of the "jouleprof-calibration" format.
#include "jouleprof/calibration.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/json_brief.hpp"
#include "core/text_file.hpp"

namespace jouleprof {

namespace {

using nlohmann::json;

constexpr std::string_view kFormatName = "jouleprof-calibration";
constexpr int kFormatVersion = 1;

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

// Typed access to one object's fields; errors name the origin, the field's path and its value.
class Fields {
 public:
  Fields(const json& object, const std::string& origin, std::string prefix)
      : object_(object), origin_(origin), prefix_(std::move(prefix)) {}

  bool has(const char* key) const { return object_.contains(key); }

  Result<std::string> text(const char* key, bool required) const {
    if (!has(key)) return missing_or<std::string>(key, required, {});
    const json& v = object_.at(key);
    if (!v.is_string()) return bad(key, v, "not a string");
    return v.get<std::string>();
  }
  Result<double> number(const char* key, bool required) const {
    if (!has(key)) return missing_or<double>(key, required, 0.0);
    const json& v = object_.at(key);
    if (!v.is_number()) return bad(key, v, "not a number");
    return v.get<double>();
  }
  Result<std::uint64_t> count(const char* key) const {
    if (!has(key)) return missing_or<std::uint64_t>(key, true, 0);
    const json& v = object_.at(key);
    if (!v.is_number_unsigned()) return bad(key, v, "not a non-negative integer");
    return v.get<std::uint64_t>();
  }
  Result<std::vector<std::string>> texts(const char* key) const {
    if (!has(key)) return std::vector<std::string>{};
    const json& v = object_.at(key);
    std::vector<std::string> out;
    if (!v.is_array()) return bad(key, v, "not an array of strings");
    for (const json& item : v) {
      if (!item.is_string()) return bad(key, v, "not an array of strings");
      out.push_back(item.get<std::string>());
    }
    return out;
  }
  Result<const json*> array(const char* key, bool required) const {
    if (!has(key)) return missing_or<const json*>(key, required, nullptr);
    const json& v = object_.at(key);
    if (!v.is_array()) return bad(key, v, "not an array");
    return &v;
  }
  Result<Fields> object(const char* key) const {
    if (!has(key)) return missing_or<Fields>(key, true, *this);
    const json& v = object_.at(key);
    if (!v.is_object()) return bad(key, v, "not an object");
    return Fields(v, origin_, prefix_ + key + ".");
  }
  Error bad(const char* key, const json& value, std::string_view problem) const {
    return invalid_input(origin_, prefix_ + key, json_brief(value), problem);
  }

 private:
  template <typename T>
  Result<T> missing_or(const char* key, bool required, T fallback) const {
    if (required) return invalid_input(origin_, prefix_ + key, "", "missing");
    return fallback;
  }

  const json& object_;
  const std::string& origin_;
  std::string prefix_;
};

Result<RepetitionStats> read_stats(const Fields& f) {
  RepetitionStats s;
  JP_TRY(const std::uint64_t n, f.count("n"));
  s.n = static_cast<std::uint32_t>(n);
  JP_TRY(s.mean, f.number("mean", true));
  JP_TRY(s.median, f.number("median", true));
  JP_TRY(s.stdev, f.number("stdev", true));
  JP_TRY(s.ci95_low, f.number("ci95_low", true));
  JP_TRY(s.ci95_high, f.number("ci95_high", true));
  return s;
}

Result<ClassMeasurement> read_measurement(const Fields& entry, const std::string& origin,
                                          const std::string& where) {
  ClassMeasurement m;
  JP_TRY(m.baseline_w, entry.number("baseline_w", true));
  JP_TRY(const Fields net, entry.object("net_power_w"));
  JP_TRY(m.net_power_w, read_stats(net));
  JP_TRY(m.tail_j_per_call, entry.number("tail_j_per_call", true));
  JP_TRY(m.call_s, entry.number("call_s", true));
  JP_TRY(m.calls_per_window, entry.count("calls_per_window"));
  JP_TRY(m.self_time_share, entry.number("self_time_share", true));
  JP_TRY(m.signature, entry.text("signature", false));
  JP_TRY(m.incomplete, entry.text("incomplete", false));
  JP_TRY(const json* gates, entry.array("gates", false));
  if (gates == nullptr) return m;
  for (std::size_t g = 0; g < gates->size(); ++g) {
    const json& gate = (*gates)[g];
    const std::string gate_where = fmt::format("{}gates[{}]", where, g);
    if (!gate.is_object())
      return invalid_input(origin, gate_where, json_brief(gate), "not an object");
    const Fields gf(gate, origin, gate_where + ".");
    CalibrationGate read;
    JP_TRY(read.waited_s, gf.number("waited_s", true));
    JP_TRY(const std::uint64_t checks, gf.count("checks"));
    read.checks = static_cast<std::uint32_t>(checks);
    JP_TRY(read.max_cv, gf.number("max_cv", true));
    m.gates.push_back(read);
  }
  return m;
}

Result<CalibrationClass> read_class(const json& entry, const std::string& origin,
                                    std::size_t index) {
  const std::string where = fmt::format("classes[{}]", index);
  if (!entry.is_object()) return invalid_input(origin, where, json_brief(entry), "not an object");
  const Fields f(entry, origin, where + ".");
  CalibrationClass c;
  JP_TRY(c.match, f.text("match", true));
  if (c.match.empty())
    return invalid_input(origin, where + ".match", "", "must be a non-empty string");
  if (!f.has("power_w")) return invalid_input(origin, where + ".power_w", "", "missing");
  const json& power = entry.at("power_w");
  if (!power.is_number() || !(power.get<double>() > 0.0)) {
    return invalid_input(origin, where + ".power_w", json_brief(power),
                         "must be a positive number of watts");
  }
  c.power_w = power.get<double>();
  JP_TRY(c.provenance, f.text("provenance", false));
  if (f.has("net_power_w")) {
    JP_TRY(ClassMeasurement m, read_measurement(f, origin, where + "."));
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
  if (const CalibrationClass* exact = find(class_name)) return exact->power_w;
  for (const CalibrationClass& c : classes) {
    if (c.match.find('*') != std::string::npos && glob_match(c.match, class_name)) return c.power_w;
  }
  return std::nullopt;
}

const CalibrationClass* Calibration::find(std::string_view class_name) const {
  for (const CalibrationClass& c : classes) {
    if (c.match == class_name) return &c;
  }
  return nullptr;
}

bool Calibration::applies_to_device(std::string_view channel_device) const {
  if (device.empty() || device == channel_device) return true;
  // A framework device names a kind, not one device: "cpu" covers cpu0, cpu1…; "cuda" and "gpu"
  // cover gpu0, gpu1….
  if (device == "cpu") return channel_device.starts_with("cpu");
  if (device == "cuda" || device == "gpu") return channel_device.starts_with("gpu");
  return false;
}

Result<Calibration> calibration_from_json_string(const std::string& text,
                                                 const std::string& origin) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return invalid_input(origin, "(document)", "", "not a JSON object");
  }
  const Fields f(doc, origin, "");
  JP_TRY(const std::string format, f.text("format", false));
  if (format != kFormatName) {
    return invalid_input(origin, "format", format, fmt::format("expected \"{}\"", kFormatName));
  }
  if (!doc.contains("version") || !doc["version"].is_number_integer() ||
      doc["version"].get<int>() != kFormatVersion) {
    return invalid_input(origin, "version",
                         doc.contains("version") ? json_brief(doc["version"]) : "",
                         fmt::format("expected {}", kFormatVersion));
  }
  Calibration cal;
  cal.origin = origin;
  JP_TRY(cal.device, f.text("device", false));
  JP_TRY(cal.provenance, f.text("provenance", false));
  if (cal.provenance.empty()) {
    return invalid_input(origin, "provenance", "", "missing: say how the weights were measured");
  }
  if (f.has("idle_w")) {
    const json& idle = doc["idle_w"];
    if (!idle.is_number() || idle.get<double>() < 0.0) {
      return invalid_input(origin, "idle_w", json_brief(idle), "not a non-negative number");
    }
    cal.idle_power_w = idle.get<double>();
  }
  JP_TRY(cal.model, f.text("model", false));
  JP_TRY(cal.method, f.text("method", false));
  JP_TRY(cal.channel_ids, f.texts("channels"));
  JP_TRY(cal.skipped, f.texts("skipped"));
  if (f.has("time_coverage")) {
    JP_TRY(const double coverage, f.number("time_coverage", true));
    if (!(coverage >= 0.0 && coverage <= 1.0 + 1e-9)) {
      return f.bad("time_coverage", doc["time_coverage"], "must be a share from 0 to 1");
    }
    cal.time_coverage = coverage;
  }
  if (!doc.contains("classes") || !doc["classes"].is_array() || doc["classes"].empty()) {
    return invalid_input(origin, "classes",
                         doc.contains("classes") ? json_brief(doc["classes"]) : "",
                         "must be a non-empty array");
  }
  std::size_t index = 0;
  for (const json& entry : doc["classes"]) {
    JP_TRY(CalibrationClass c, read_class(entry, origin, index++));
    cal.classes.push_back(std::move(c));
  }
  return cal;
}

Result<Calibration> read_calibration_json(const std::string& path) {
  JP_TRY(std::string text, read_text_file(path, "calibration file"));
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
  std::ofstream out(path);
  if (!out) return Error(ErrorCode::kIo, path + ": cannot open for writing");
  out << calibration_to_json_string(calibration);
  if (!out) return Error(ErrorCode::kIo, path + ": write failed");
  return Status::Ok();
}

}  // namespace jouleprof
