// Calibration file <-> JSON: the "jouleprof-calibration" format, version 1, that the calibrated
// attribution method reads (docs/attribution.md): top-level device, provenance and idle_w, and an
// array of classes each with match (here: the operator class name) and power_w. The replay's own
// figures (dynamic power, duration, iterations, the shapes replayed) ride along in each class;
// readers that do not know them ignore them.
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "jouleprof/torch.hpp"

namespace jouleprof::torch_adapter {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "jouleprof-calibration";
constexpr int kVersion = 1;

struct FieldError {
  std::string field;
  std::string problem;
};

template <typename T>
T get_field(const json& j, const std::string& key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw FieldError{where + key, "missing"};
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    throw FieldError{where + key, "has the wrong type (" + j.at(key).dump() + ")"};
  }
}

}  // namespace

Status write_calibration_json(const Calibration& calibration, const std::string& path) {
  json classes = json::array();
  for (const ClassCalibration& c : calibration.classes) {
    classes.push_back(json{{"match", c.op_class},
                           {"power_w", c.power_w},
                           {"provenance", calibration.provenance + ": replayed alone, " +
                                              std::to_string(c.iterations) + " iterations"},
                           {"dynamic_power_w", c.dynamic_power_w},
                           {"duration_s", c.duration_s},
                           {"iterations", c.iterations},
                           {"signature", c.signature}});
  }
  const json document{{"format", kFormat},
                      {"version", calibration.version},
                      {"device", calibration.device},
                      {"model", calibration.model},
                      {"method", calibration.method},
                      {"channels", calibration.channel_ids},
                      {"provenance", calibration.provenance},
                      {"idle_w", calibration.idle_power_w},
                      {"classes", classes},
                      {"skipped", calibration.skipped}};
  std::ofstream out(path);
  if (!out) return Error(ErrorCode::kIo, path + ": cannot open for writing");
  out << document.dump(2) << '\n';
  if (!out) return Error(ErrorCode::kIo, path + ": write failed");
  return Status::Ok();
}

Result<Calibration> read_calibration_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error(ErrorCode::kNotFound, path + ": cannot open");
  std::stringstream text;
  text << in.rdbuf();
  json document;
  try {
    document = json::parse(text.str());
  } catch (const json::parse_error& e) {
    return invalid_input(path, "(document)", "", std::string("is not JSON: ") + e.what());
  }
  try {
    if (get_field<std::string>(document, "format", "") != kFormat) {
      return invalid_input(path, "format", document.at("format").dump(), std::string("must be \"") + kFormat + "\"");
    }
    Calibration c;
    c.version = get_field<int>(document, "version", "");
    if (c.version != kVersion) {
      return invalid_input(path, "version", std::to_string(c.version), "is not supported (expected 1)");
    }
    c.device = get_field<std::string>(document, "device", "");
    c.model = get_field<std::string>(document, "model", "");
    c.method = get_field<std::string>(document, "method", "");
    c.channel_ids = get_field<std::vector<std::string>>(document, "channels", "");
    c.provenance = get_field<std::string>(document, "provenance", "");
    c.idle_power_w = get_field<double>(document, "idle_w", "");
    c.skipped = get_field<std::vector<std::string>>(document, "skipped", "");
    const json& classes = document.at("classes");
    if (!classes.is_array()) return invalid_input(path, "classes", classes.dump(), "must be an array");
    for (std::size_t i = 0; i < classes.size(); ++i) {
      const json& entry = classes[i];
      const std::string where = "classes[" + std::to_string(i) + "].";
      ClassCalibration k;
      k.op_class = get_field<std::string>(entry, "match", where);
      k.power_w = get_field<double>(entry, "power_w", where);
      k.dynamic_power_w = get_field<double>(entry, "dynamic_power_w", where);
      k.duration_s = get_field<double>(entry, "duration_s", where);
      k.iterations = get_field<std::uint64_t>(entry, "iterations", where);
      k.signature = get_field<std::string>(entry, "signature", where);
      if (k.power_w < 0.0) return invalid_input(path, where + "power_w", std::to_string(k.power_w), "is negative");
      c.classes.push_back(std::move(k));
    }
    return c;
  } catch (const FieldError& e) {
    return invalid_input(path, e.field, "", e.problem);
  }
}

}  // namespace jouleprof::torch_adapter
