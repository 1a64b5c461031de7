#include "predict/xgboost_library.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <string>
#include <vector>

#include "core/shared_library.hpp"

namespace jouleprof::predict {
namespace {

// Where libxgboost is looked for, in order: the environment's path, the soname Debian's
// libxgboost0 installs, the development link (an upstream build has only that name), and the
// library CMake found (JOULEPROF_XGBOOST_BUILD_LIBRARY, from cmake/dependencies.cmake).
std::vector<std::string> candidate_paths() {
  const std::string from_environment = library_path("JOULEPROF_XGBOOST_LIBRARY", "");
  if (!from_environment.empty()) return {from_environment};
  return {"libxgboost.so.0", "libxgboost.so", JOULEPROF_XGBOOST_BUILD_LIBRARY};
}

struct LoadedXgboost {
  std::unique_ptr<SharedLibrary> library;
  XgboostApi api{};
  std::string error;
};

LoadedXgboost load() {
  LoadedXgboost loaded;
  std::string tried;
  for (const std::string& path : candidate_paths()) {
    auto library = std::make_unique<SharedLibrary>(path);
    if (!library->is_open()) {
      tried += fmt::format("{}{} ({})", tried.empty() ? "" : "; ", path, library->error());
      continue;
    }
    XgboostApi& api = loaded.api;
    FunctionBinder bind(*library);
    bind.required(api.get_last_error, "XGBGetLastError");
    bind.required(api.dmatrix_create_from_mat, "XGDMatrixCreateFromMat");
    bind.required(api.dmatrix_free, "XGDMatrixFree");
    bind.required(api.dmatrix_set_float_info, "XGDMatrixSetFloatInfo");
    bind.required(api.booster_create, "XGBoosterCreate");
    bind.required(api.booster_free, "XGBoosterFree");
    bind.required(api.booster_set_param, "XGBoosterSetParam");
    bind.required(api.booster_update_one_iter, "XGBoosterUpdateOneIter");
    bind.required(api.booster_predict, "XGBoosterPredict");
    bind.required(api.booster_save_model, "XGBoosterSaveModel");
    bind.required(api.booster_load_model, "XGBoosterLoadModel");
    if (bind.missing().empty()) {
      loaded.library = std::move(library);
      return loaded;
    }
    tried += fmt::format("{}{} (lacks {})", tried.empty() ? "" : "; ", path,
                         fmt::join(bind.missing(), ", "));
  }
  loaded.error = fmt::format(
      "XGBoost, which the random-forest and boosting predictors run on, cannot be loaded (tried "
      "{}): install it (apt-get install libxgboost0) or set "
      "JOULEPROF_XGBOOST_LIBRARY=/path/to/libxgboost.so",
      tried);
  return loaded;
}

}  // namespace

Result<const XgboostApi*> xgboost_api() {
  static const LoadedXgboost loaded = load();
  if (loaded.library == nullptr) return Error(ErrorCode::kUnavailable, loaded.error);
  return &loaded.api;
}

}  // namespace jouleprof::predict
