#include "predict/predictor_bundle.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/json_brief.hpp"
#include "core/text_file.hpp"
#include "predict/kernel_features.hpp"

namespace jouleprof::predict {
namespace {

using nlohmann::json;

json metrics_json(const AccuracyMetrics& m) {
  return {{"n", m.n},
          {"rmse_mj", m.rmse_mj},
          {"rmspe_pct", m.rmspe_pct},
          {"within_5_pct", m.within_5_pct},
          {"within_10_pct", m.within_10_pct},
          {"within_15_pct", m.within_15_pct}};
}

AccuracyMetrics metrics_from_json(const json& j) {
  AccuracyMetrics m;
  m.n = j.value("n", std::size_t{0});
  m.rmse_mj = j.value("rmse_mj", 0.0);
  m.rmspe_pct = j.value("rmspe_pct", 0.0);
  m.within_5_pct = j.value("within_5_pct", 0.0);
  m.within_10_pct = j.value("within_10_pct", 0.0);
  m.within_15_pct = j.value("within_15_pct", 0.0);
  return m;
}

std::filesystem::path model_file(const std::string& type) {
  return std::filesystem::path("models") / (type + ".json");
}

Status write_json(const std::filesystem::path& path, const json& doc) {
  std::ofstream out(path);
  out << doc.dump(2) << '\n';
  if (!out) return Error(ErrorCode::kIo, path.string() + ": cannot write");
  return Status::Ok();
}

Result<json> read_json(const std::filesystem::path& path) {
  JP_TRY(const std::string text, read_text_file(path.string(), "predictor bundle file"));
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    return invalid_input(path.string(), "JSON", "", e.what());
  }
}

Result<PredictorBundle> load_bundle_unchecked(const std::filesystem::path& dir);

}  // namespace

const KernelPredictor* PredictorBundle::find(const std::string& type) const {
  auto it = predictors.find(type);
  return it == predictors.end() ? nullptr : &it->second;
}

std::string PredictorBundle::provenance_detail() const {
  return fmt::format("{} predictor bundle {} (format v{}, target {}, seed {})",
                     to_string(regressor), origin, kBundleVersion, to_string(target), seed);
}

Status save_bundle(PredictorBundle& bundle, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir / "models", ec);
  if (ec) return Error(ErrorCode::kIo, dir.string() + ": cannot create directory: " + ec.message());
  json types = json::object();
  json spec = json::object();
  for (const auto& [type, p] : bundle.predictors) {
    JP_RETURN_IF_ERROR(p.model.save(dir / model_file(type)));
    types[type] = {{"model", model_file(type).string()},
                   {"n_train", p.n_train},
                   {"n_test", p.n_test},
                   {"test_metrics", metrics_json(p.test)},
                   {"sources", p.sources}};
    spec[type] = {{"features", p.features}};
  }
  json manifest = {{"format", kBundleFormat},
                   {"version", kBundleVersion},
                   {"jouleprof_version", JOULEPROF_VERSION},
                   {"regressor", to_string(bundle.regressor)},
                   {"target", to_string(bundle.target)},
                   {"seed", bundle.seed},
                   {"train_fraction", bundle.train_fraction},
                   {"energy_unit", "mJ"},
                   {"kernel_types", types}};
  JP_RETURN_IF_ERROR(write_json(dir / "manifest.json", manifest));
  JP_RETURN_IF_ERROR(write_json(dir / "feature_spec.json", spec));
  bundle.origin = dir.string();
  return Status::Ok();
}

namespace {
Result<PredictorBundle> load_bundle_unchecked(const std::filesystem::path& dir) {
  const std::string manifest_path = (dir / "manifest.json").string();
  JP_TRY(json manifest, read_json(dir / "manifest.json"));
  JP_TRY(json spec, read_json(dir / "feature_spec.json"));
  if (manifest.value("format", std::string()) != kBundleFormat) {
    return invalid_input(manifest_path, "format", manifest.value("format", std::string()),
                         fmt::format("expected {}", kBundleFormat));
  }
  if (!manifest.contains("version") || !manifest["version"].is_number_integer() ||
      manifest["version"].get<int>() != kBundleVersion) {
    return invalid_input(manifest_path, "version", json_brief(manifest.value("version", json())),
                         fmt::format("this jouleprof reads bundle version {}", kBundleVersion));
  }
  PredictorBundle bundle;
  JP_TRY(bundle.regressor, regressor_kind_from_string(manifest.value("regressor", std::string())));
  JP_TRY(bundle.target, target_transform_from_string(manifest.value("target", std::string())));
  bundle.seed = manifest.value("seed", std::uint64_t{0});
  bundle.train_fraction = manifest.value("train_fraction", 0.0);
  bundle.origin = dir.string();
  if (!manifest.contains("kernel_types") || !manifest["kernel_types"].is_object()) {
    return invalid_input(manifest_path, "kernel_types", "", "key missing");
  }
  for (const auto& [type, entry] : manifest["kernel_types"].items()) {
    const std::vector<std::string> expected = feature_names(feature_set_of(type));
    if (!spec.contains(type) || !spec[type].contains("features") ||
        spec[type]["features"].get<std::vector<std::string>>() != expected) {
      return invalid_input(
          (dir / "feature_spec.json").string(), type + ".features",
          spec.contains(type) ? json_brief(spec[type]) : "missing",
          fmt::format("this jouleprof computes [{}] for {}", fmt::join(expected, ", "), type));
    }
    const std::string model = entry.value("model", std::string());
    if (model.empty()) return invalid_input(manifest_path, type + ".model", "", "key missing");
    JP_TRY(XgbRegressor regressor, XgbRegressor::load(dir / model, bundle.target));
    KernelPredictor p{type,
                      expected,
                      std::move(regressor),
                      entry.value("n_train", std::size_t{0}),
                      entry.value("n_test", std::size_t{0}),
                      metrics_from_json(entry.value("test_metrics", json::object())),
                      entry.value("sources", std::vector<std::string>{})};
    bundle.predictors.emplace(type, std::move(p));
  }
  return bundle;
}
}  // namespace

Result<PredictorBundle> load_bundle(const std::filesystem::path& dir) {
  try {
    return load_bundle_unchecked(dir);
  } catch (const nlohmann::json::exception& e) {  // a field of the wrong JSON type
    return invalid_input((dir / "manifest.json").string(), "bundle", "", e.what());
  }
}

}  // namespace jouleprof::predict
