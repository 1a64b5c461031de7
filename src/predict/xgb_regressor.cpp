#include "predict/xgb_regressor.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#ifdef JOULEPROF_HAS_XGBOOST
#include "predict/xgboost_library.hpp"
#endif

namespace jouleprof::predict {

std::string_view to_string(RegressorKind kind) {
  return kind == RegressorKind::kRandomForest ? "random-forest" : "boosting";
}

Result<RegressorKind> regressor_kind_from_string(std::string_view s) {
  if (s == "random-forest" || s == "forest") return RegressorKind::kRandomForest;
  if (s == "boosting") return RegressorKind::kBoosting;
  return invalid_input("regressor", "regressor", std::string(s),
                       "expected random-forest or boosting");
}

std::string_view to_string(TargetTransform t) { return t == TargetTransform::kRaw ? "raw" : "log"; }

Result<TargetTransform> target_transform_from_string(std::string_view s) {
  if (s == "raw") return TargetTransform::kRaw;
  if (s == "log") return TargetTransform::kLog;
  return invalid_input("target", "target", std::string(s), "expected raw or log");
}

void FeatureMatrix::add_row(std::span<const double> row) {
  if (columns == 0) columns = row.size();
  for (double v : row) values.push_back(static_cast<float>(v));
}

#ifdef JOULEPROF_HAS_XGBOOST
namespace {

// The API where a handle exists, which only a loaded API made.
const XgboostApi& loaded_xgboost() { return *xgboost_api().value(); }

// XGBoost's last error without the native stack trace (addresses and mangled names) that it
// appends: "[10:01:02] …/io.cc:63: Opening foo failed: No such file or directory".
std::string xgb_last_error() {
  std::string_view text = loaded_xgboost().get_last_error();
  if (const std::size_t trace = text.find("Stack trace:"); trace != std::string_view::npos) {
    text = text.substr(0, trace);
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  return std::string(text);
}

Error xgb_error(std::string_view what) {
  return Error(ErrorCode::kInternal, fmt::format("XGBoost {}: {}", what, xgb_last_error()));
}

// Owns a DMatrix for the duration of one call.
class DMatrix {
 public:
  ~DMatrix() {
    if (handle_ != nullptr) loaded_xgboost().dmatrix_free(handle_);
  }
  static Result<std::unique_ptr<DMatrix>> from(const FeatureMatrix& x) {
    JP_TRY(const XgboostApi* xgb, xgboost_api());
    auto m = std::make_unique<DMatrix>();
    if (xgb->dmatrix_create_from_mat(x.values.data(), x.rows(), x.columns, std::nanf(""),
                                     &m->handle_) != 0) {
      return xgb_error("DMatrix");
    }
    return m;
  }
  DMatrixHandle handle_ = nullptr;
};

Status set(BoosterHandle booster, const char* name, const std::string& value) {
  if (loaded_xgboost().booster_set_param(booster, name, value.c_str()) != 0)
    return xgb_error(std::string("parameter ") + name);
  return Status::Ok();
}

Status configure(BoosterHandle b, const RegressorOptions& o) {
  JP_RETURN_IF_ERROR(set(b, "objective", "reg:squarederror"));
  JP_RETURN_IF_ERROR(set(b, "booster", "gbtree"));
  // Exact greedy splits: the data sets are small and the result does not depend on binning.
  JP_RETURN_IF_ERROR(set(b, "tree_method", "exact"));
  JP_RETURN_IF_ERROR(set(b, "seed", std::to_string(o.seed)));
  JP_RETURN_IF_ERROR(set(b, "nthread", std::to_string(o.threads)));
  JP_RETURN_IF_ERROR(set(b, "verbosity", "0"));
  if (o.kind == RegressorKind::kRandomForest) {
    JP_RETURN_IF_ERROR(set(b, "num_parallel_tree", std::to_string(o.forest.trees)));
    JP_RETURN_IF_ERROR(set(b, "learning_rate", "1"));
    JP_RETURN_IF_ERROR(set(b, "subsample", fmt::format("{}", o.forest.row_subsample)));
    JP_RETURN_IF_ERROR(set(b, "colsample_bynode", fmt::format("{}", o.forest.colsample_bynode)));
    JP_RETURN_IF_ERROR(set(b, "max_depth", std::to_string(o.forest.max_depth)));
    JP_RETURN_IF_ERROR(set(b, "min_child_weight", fmt::format("{}", o.forest.min_child_weight)));
    // No L2 shrinkage of leaf values: a forest's leaf is the mean of its samples.
    JP_RETURN_IF_ERROR(set(b, "reg_lambda", "0"));
  } else {
    JP_RETURN_IF_ERROR(set(b, "learning_rate", fmt::format("{}", o.boosting.learning_rate)));
    JP_RETURN_IF_ERROR(set(b, "max_depth", std::to_string(o.boosting.max_depth)));
    JP_RETURN_IF_ERROR(set(b, "subsample", fmt::format("{}", o.boosting.row_subsample)));
    JP_RETURN_IF_ERROR(set(b, "colsample_bytree", fmt::format("{}", o.boosting.colsample_bytree)));
  }
  return Status::Ok();
}

}  // namespace

XgbRegressor::XgbRegressor(XgbRegressor&& other) noexcept
    : booster_(std::exchange(other.booster_, nullptr)), target_(other.target_) {}

XgbRegressor& XgbRegressor::operator=(XgbRegressor&& other) noexcept {
  if (this != &other) {
    if (booster_ != nullptr) loaded_xgboost().booster_free(booster_);
    booster_ = std::exchange(other.booster_, nullptr);
    target_ = other.target_;
  }
  return *this;
}

XgbRegressor::~XgbRegressor() {
  if (booster_ != nullptr) loaded_xgboost().booster_free(booster_);
}

Result<XgbRegressor> XgbRegressor::train(const FeatureMatrix& x, std::span<const double> y_mj,
                                         const RegressorOptions& options) {
  if (x.rows() == 0 || x.rows() != y_mj.size()) {
    return invalid_input(
        "training set", "rows", std::to_string(x.rows()),
        fmt::format("needs at least one row and one target per row ({} targets)", y_mj.size()));
  }
  JP_TRY(auto dtrain, DMatrix::from(x));
  std::vector<float> labels;
  labels.reserve(y_mj.size());
  for (double y : y_mj) {
    labels.push_back(static_cast<float>(options.target == TargetTransform::kLog ? std::log(y) : y));
  }
  const XgboostApi& xgb = loaded_xgboost();
  if (xgb.dmatrix_set_float_info(dtrain->handle_, "label", labels.data(), labels.size()) != 0) {
    return xgb_error("labels");
  }
  BoosterHandle booster = nullptr;
  if (xgb.booster_create(&dtrain->handle_, 1, &booster) != 0) return xgb_error("booster");
  XgbRegressor model(booster, options.target);
  JP_RETURN_IF_ERROR(configure(booster, options));
  const int rounds = options.kind == RegressorKind::kRandomForest ? 1 : options.boosting.rounds;
  for (int round = 0; round < rounds; ++round) {
    if (xgb.booster_update_one_iter(booster, round, dtrain->handle_) != 0) {
      return xgb_error("training");
    }
  }
  return model;
}

Result<XgbRegressor> XgbRegressor::load(const std::filesystem::path& path, TargetTransform target) {
  JP_TRY(const XgboostApi* xgb, xgboost_api());
  BoosterHandle booster = nullptr;
  if (xgb->booster_create(nullptr, 0, &booster) != 0) return xgb_error("booster");
  XgbRegressor model(booster, target);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Error(ErrorCode::kNotFound,
                 fmt::format("{}: the predictor's model file is missing (the bundle is "
                             "incomplete: train it again with jouleprof train-predictor)",
                             path.string()));
  }
  if (xgb->booster_load_model(booster, path.c_str()) != 0) {
    return invalid_input(path.string(), "model", "", "XGBoost cannot load it: " + xgb_last_error());
  }
  return model;
}

Result<std::vector<double>> XgbRegressor::predict_mj(const FeatureMatrix& x) const {
  if (x.rows() == 0) return std::vector<double>{};
  JP_TRY(auto dmat, DMatrix::from(x));
  bst_ulong length = 0;
  const float* out = nullptr;
  if (loaded_xgboost().booster_predict(booster_, dmat->handle_, 0, 0, 0, &length, &out) != 0)
    return xgb_error("predict");
  std::vector<double> mj;
  mj.reserve(length);
  for (bst_ulong i = 0; i < length; ++i) {
    const double v = out[i];
    mj.push_back(target_ == TargetTransform::kLog ? std::exp(v) : v);
  }
  return mj;
}

Status XgbRegressor::save(const std::filesystem::path& path) const {
  if (loaded_xgboost().booster_save_model(booster_, path.c_str()) != 0) {
    return xgb_error("save " + path.string());
  }
  return Status::Ok();
}

#else

namespace {
Error no_xgboost() {
  return Error(ErrorCode::kUnsupported,
               "this jouleprof was built without XGBoost (apt-get install libxgboost-dev and "
               "rebuild with -DJOULEPROF_WITH_XGBOOST=ON)");
}
}  // namespace

XgbRegressor::XgbRegressor(XgbRegressor&& other) noexcept
    : booster_(std::exchange(other.booster_, nullptr)), target_(other.target_) {}
XgbRegressor& XgbRegressor::operator=(XgbRegressor&& other) noexcept {
  booster_ = std::exchange(other.booster_, nullptr);
  target_ = other.target_;
  return *this;
}
XgbRegressor::~XgbRegressor() = default;
Result<XgbRegressor> XgbRegressor::train(const FeatureMatrix&, std::span<const double>,
                                         const RegressorOptions&) {
  return no_xgboost();
}
Result<XgbRegressor> XgbRegressor::load(const std::filesystem::path&, TargetTransform) {
  return no_xgboost();
}
Result<std::vector<double>> XgbRegressor::predict_mj(const FeatureMatrix&) const {
  return no_xgboost();
}
Status XgbRegressor::save(const std::filesystem::path&) const { return no_xgboost(); }

#endif

}  // namespace jouleprof::predict
