// Calibration file <-> JSON: the "jouleprof-calibration" format, version 1, that the calibrated
// attribution method reads (docs/attribution.md): top-level device, provenance and idle_w, and an
// array of classes each with match (here: the operator class name) and power_w. The gated
// measurement's own figures (baseline, net power over the repetitions, tail, time per call, the
// gates' log, the shapes replayed) ride along in each class; readers that do not know them ignore
// them.
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
    json gates = json::array();
    for (const CalibrationGate& g : c.gates) {
      gates.push_back(json{{"waited_s", g.waited_s}, {"checks", g.checks}, {"max_cv", g.max_cv}});
    }
    const RepetitionStats& net = c.net_power_w;
    classes.push_back(json{{"match", c.op_class},
                           {"power_w", c.power_w},
                           {"provenance", calibration.provenance + ": replayed alone through the gated protocol, " +
                                              std::to_string(net.n) + " repetitions"},
                           {"baseline_w", c.baseline_w},
                           {"net_power_w", json{{"n", net.n}, {"mean", net.mean}, {"median", net.median},
                                                {"stdev", net.stdev}, {"ci95_low", net.ci95_low},
                                                {"ci95_high", net.ci95_high}}},
                           {"tail_j_per_call", c.tail_j_per_call},
                           {"call_s", c.call_s},
                           {"calls_per_window", c.calls_per_window},
                           {"self_time_share", c.self_time_share},
                           {"signature", c.signature},
                           {"gates", gates},
                           {"incomplete", c.incomplete}});
  }
  const json document{{"format", kFormat},
                      {"version", calibration.version},
                      {"device", calibration.device},
                      {"model", calibration.model},
                      {"method", calibration.method},
                      {"channels", calibration.channel_ids},
                      {"provenance", calibration.provenance},
                      {"idle_w", calibration.idle_power_w},
                      {"time_coverage", calibration.time_coverage},
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
    c.time_coverage = get_field<double>(document, "time_coverage", "");
    c.skipped = get_field<std::vector<std::string>>(document, "skipped", "");
    const json& classes = document.at("classes");
    if (!classes.is_array()) return invalid_input(path, "classes", classes.dump(), "must be an array");
    for (std::size_t i = 0; i < classes.size(); ++i) {
      const json& entry = classes[i];
      const std::string where = "classes[" + std::to_string(i) + "].";
      ClassCalibration k;
      k.op_class = get_field<std::string>(entry, "match", where);
      k.power_w = get_field<double>(entry, "power_w", where);
      k.baseline_w = get_field<double>(entry, "baseline_w", where);
      const json net = get_field<json>(entry, "net_power_w", where);
      const std::string net_where = where + "net_power_w.";
      k.net_power_w.n = get_field<std::uint32_t>(net, "n", net_where);
      k.net_power_w.mean = get_field<double>(net, "mean", net_where);
      k.net_power_w.median = get_field<double>(net, "median", net_where);
      k.net_power_w.stdev = get_field<double>(net, "stdev", net_where);
      k.net_power_w.ci95_low = get_field<double>(net, "ci95_low", net_where);
      k.net_power_w.ci95_high = get_field<double>(net, "ci95_high", net_where);
      k.tail_j_per_call = get_field<double>(entry, "tail_j_per_call", where);
      k.call_s = get_field<double>(entry, "call_s", where);
      k.calls_per_window = get_field<std::uint64_t>(entry, "calls_per_window", where);
      k.self_time_share = get_field<double>(entry, "self_time_share", where);
      k.signature = get_field<std::string>(entry, "signature", where);
      k.incomplete = get_field<std::string>(entry, "incomplete", where);
      const json gates = get_field<json>(entry, "gates", where);
      if (!gates.is_array()) return invalid_input(path, where + "gates", gates.dump(), "must be an array");
      for (std::size_t g = 0; g < gates.size(); ++g) {
        const std::string gate_where = where + "gates[" + std::to_string(g) + "].";
        k.gates.push_back({get_field<double>(gates[g], "waited_s", gate_where),
                           get_field<std::uint32_t>(gates[g], "checks", gate_where),
                           get_field<double>(gates[g], "max_cv", gate_where)});
      }
      if (k.power_w < 0.0) return invalid_input(path, where + "power_w", std::to_string(k.power_w), "is negative");
      c.classes.push_back(std::move(k));
    }
    return c;
  } catch (const FieldError& e) {
    return invalid_input(path, e.field, "", e.problem);
  }
}

}  // namespace jouleprof::torch_adapter
