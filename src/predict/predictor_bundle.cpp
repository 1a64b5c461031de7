#include "predict/predictor_bundle.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/json_fields.hpp"
#include "core/json_file.hpp"
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

Result<AccuracyMetrics> metrics_from_json(const JsonFields& f, const json& j,
                                          const std::string& where) {
  AccuracyMetrics m;
  JP_TRY(m.n, f.get_or<std::size_t>(j, "n", where, 0));
  JP_TRY(m.rmse_mj, f.get_or<double>(j, "rmse_mj", where, 0.0));
  JP_TRY(m.rmspe_pct, f.get_or<double>(j, "rmspe_pct", where, 0.0));
  JP_TRY(m.within_5_pct, f.get_or<double>(j, "within_5_pct", where, 0.0));
  JP_TRY(m.within_10_pct, f.get_or<double>(j, "within_10_pct", where, 0.0));
  JP_TRY(m.within_15_pct, f.get_or<double>(j, "within_15_pct", where, 0.0));
  return m;
}

std::filesystem::path model_file(const std::string& type) {
  return std::filesystem::path("models") / (type + ".json");
}

Status write_json(const std::filesystem::path& path, const json& doc) {
  return write_text_file(path.string(), doc.dump(2) + '\n');
}

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
    if (p.interval) {
      types[type]["interval"] = {{"level", p.interval->level},
                                 {"log_half_width", p.interval->log_half_width},
                                 {"held_out_coverage_pct", p.interval->held_out_coverage_pct}};
    }
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

// One type's predictor: its entry in manifest.json (`m`) and its features in feature_spec.json.
Result<KernelPredictor> read_predictor(const std::filesystem::path& dir, TargetTransform target,
                                       const JsonFields& m, const std::string& type,
                                       const json& entry, const JsonFields& s, const json& spec) {
  const std::string where = "kernel_types." + type;
  const std::string features_at = type + ".features";
  JP_TRY(const json* features, s.member(spec, type, ""));
  JP_TRY(const json* listed, s.member(*features, "features", type));
  JP_TRY(const std::vector<std::string> names,
         s.value<std::vector<std::string>>(*listed, features_at));
  const std::vector<std::string> expected = feature_names(feature_set_of(type));
  if (names != expected) {
    return s.bad_value(features_at, *listed,
                       fmt::format("is not [{}], what this jouleprof computes for {}",
                                   fmt::join(expected, ", "), type));
  }
  JP_TRY(const std::string model,
         m.get<std::string>(
             entry, "model", where, [](const std::string& file) { return !file.empty(); },
             "is empty"));
  JP_TRY(XgbRegressor regressor, XgbRegressor::load(dir / model, target));
  JP_TRY(const std::size_t n_train, m.get_or<std::size_t>(entry, "n_train", where, 0));
  JP_TRY(const std::size_t n_test, m.get_or<std::size_t>(entry, "n_test", where, 0));
  AccuracyMetrics test;
  if (const json* metrics = JsonFields::find(entry, "test_metrics")) {
    JP_TRY(test, metrics_from_json(m, *metrics, where + ".test_metrics"));
  }
  JP_TRY(std::vector<std::string> sources,
         m.get_or<std::vector<std::string>>(entry, "sources", where, {}));
  KernelPredictor p{type,   expected, std::move(regressor), n_train,
                    n_test, test,     std::move(sources),   std::nullopt};
  if (const json* interval = JsonFields::find(entry, "interval")) {
    const std::string at = where + ".interval";
    PredictionInterval i;
    JP_TRY(i.level, m.get<double>(
                        *interval, "level", at, [](double v) { return v > 0.0 && v < 1.0; },
                        "is not between 0 and 1"));
    JP_TRY(i.log_half_width, m.get<double>(
                                 *interval, "log_half_width", at,
                                 [](double v) { return std::isfinite(v) && v >= 0.0 && v < 50.0; },
                                 "is not a half-width from 0 to 50 (in ln)"));
    JP_TRY(i.held_out_coverage_pct, m.get_or<double>(*interval, "held_out_coverage_pct", at, -1.0));
    p.interval = i;
  }
  return p;
}

}  // namespace

Result<PredictorBundle> load_bundle(const std::filesystem::path& dir) {
  const std::string manifest_path = (dir / "manifest.json").string();
  const std::string spec_path = (dir / "feature_spec.json").string();
  JP_TRY(const json manifest, read_json_file(manifest_path, "predictor bundle file"));
  JP_TRY(const json spec, read_json_file(spec_path, "predictor bundle file"));
  const JsonFields m(manifest_path);
  const JsonFields s(spec_path);
  JP_TRY(const std::string format, m.get<std::string>(manifest, "format", ""));
  if (format != kBundleFormat) {
    return m.error("format", fmt::format("is '{}', not \"{}\"", format, kBundleFormat));
  }
  JP_RETURN_IF_ERROR(m.get<int>(
      manifest, "version", "", [](int v) { return v == kBundleVersion; },
      fmt::format("is not {}, the bundle version this jouleprof reads", kBundleVersion)));
  PredictorBundle bundle;
  JP_TRY(bundle.regressor,
         m.named<RegressorKind>(manifest, "regressor", "", regressor_kind_from_string,
                                "random-forest, boosting"));
  JP_TRY(bundle.target, m.named<TargetTransform>(manifest, "target", "",
                                                 target_transform_from_string, "raw, log"));
  JP_TRY(bundle.seed, m.get_or<std::uint64_t>(manifest, "seed", "", 0));
  JP_TRY(bundle.train_fraction, m.get_or<double>(manifest, "train_fraction", "", 0.0));
  bundle.origin = dir.string();
  JP_TRY(const json* types, m.object(manifest, "kernel_types", ""));
  for (const auto& [type, entry] : types->items()) {
    JP_TRY(KernelPredictor p, read_predictor(dir, bundle.target, m, type, entry, s, spec));
    bundle.predictors.emplace(type, std::move(p));
  }
  return bundle;
}

}  // namespace jouleprof::predict
