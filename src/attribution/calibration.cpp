// Calibration files: per-class power weights measured separately, with their provenance.
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jouleprof/attribution.hpp"

namespace jouleprof {

namespace {

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

}  // namespace

std::optional<double> Calibration::power_for(std::string_view class_name) const {
  for (const CalibrationClass& c : classes) {
    if (c.match == class_name) return c.power_w;
  }
  for (const CalibrationClass& c : classes) {
    if (c.match.find('*') != std::string::npos && glob_match(c.match, class_name)) return c.power_w;
  }
  return std::nullopt;
}

Result<Calibration> calibration_from_json_string(const std::string& text, const std::string& origin) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return invalid_input(origin, "(document)", "", "not a JSON object");
  }
  if (doc.value("format", std::string()) != kFormatName) {
    return invalid_input(origin, "format", doc.value("format", std::string()),
                         fmt::format("expected \"{}\"", kFormatName));
  }
  if (!doc.contains("version") || !doc["version"].is_number_integer() || doc["version"].get<int>() != kFormatVersion) {
    return invalid_input(origin, "version", doc.contains("version") ? doc["version"].dump() : "",
                         fmt::format("expected {}", kFormatVersion));
  }
  Calibration cal;
  cal.origin = origin;
  if (doc.contains("device")) {
    if (!doc["device"].is_string()) return invalid_input(origin, "device", doc["device"].dump(), "not a string");
    cal.device = doc["device"].get<std::string>();
  }
  if (doc.contains("provenance")) {
    if (!doc["provenance"].is_string()) {
      return invalid_input(origin, "provenance", doc["provenance"].dump(), "not a string");
    }
    cal.provenance = doc["provenance"].get<std::string>();
  }
  if (cal.provenance.empty()) {
    return invalid_input(origin, "provenance", "", "missing: say how the weights were measured");
  }
  if (doc.contains("idle_w")) {
    if (!doc["idle_w"].is_number() || doc["idle_w"].get<double>() < 0.0) {
      return invalid_input(origin, "idle_w", doc["idle_w"].dump(), "not a non-negative number");
    }
    cal.idle_power_w = doc["idle_w"].get<double>();
  }
  if (!doc.contains("classes") || !doc["classes"].is_array() || doc["classes"].empty()) {
    return invalid_input(origin, "classes", doc.contains("classes") ? doc["classes"].dump() : "",
                         "must be a non-empty array");
  }
  std::size_t index = 0;
  for (const nlohmann::json& entry : doc["classes"]) {
    const std::string where = fmt::format("classes[{}]", index++);
    if (!entry.is_object()) return invalid_input(origin, where, entry.dump(), "not an object");
    if (!entry.contains("match") || !entry["match"].is_string() || entry["match"].get<std::string>().empty()) {
      return invalid_input(origin, where + ".match", entry.value("match", nlohmann::json()).dump(),
                           "must be a non-empty string");
    }
    if (!entry.contains("power_w") || !entry["power_w"].is_number() || !(entry["power_w"].get<double>() > 0.0)) {
      return invalid_input(origin, where + ".power_w", entry.value("power_w", nlohmann::json()).dump(),
                           "must be a positive number of watts");
    }
    CalibrationClass c;
    c.match = entry["match"].get<std::string>();
    c.power_w = entry["power_w"].get<double>();
    if (entry.contains("provenance") && entry["provenance"].is_string()) {
      c.provenance = entry["provenance"].get<std::string>();
    }
    cal.classes.push_back(std::move(c));
  }
  return cal;
}

Result<Calibration> read_calibration_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error(ErrorCode::kNotFound, fmt::format("{}: cannot open calibration file", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return calibration_from_json_string(buffer.str(), path);
}

}  // namespace jouleprof
