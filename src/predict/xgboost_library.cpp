#include "predict/xgboost_library.hpp"

#include <fmt/format.h>

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

template <typename Fn>
void bind_function(const SharedLibrary& library, const char* name, Fn& slot, std::string& missing) {
  slot = library.function<Fn>(name);
  if (slot == nullptr) missing += missing.empty() ? name : fmt::format(", {}", name);
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
    std::string missing;
    XgboostApi& api = loaded.api;
    bind_function(*library, "XGBGetLastError", api.get_last_error, missing);
    bind_function(*library, "XGDMatrixCreateFromMat", api.dmatrix_create_from_mat, missing);
    bind_function(*library, "XGDMatrixFree", api.dmatrix_free, missing);
    bind_function(*library, "XGDMatrixSetFloatInfo", api.dmatrix_set_float_info, missing);
    bind_function(*library, "XGBoosterCreate", api.booster_create, missing);
    bind_function(*library, "XGBoosterFree", api.booster_free, missing);
    bind_function(*library, "XGBoosterSetParam", api.booster_set_param, missing);
    bind_function(*library, "XGBoosterUpdateOneIter", api.booster_update_one_iter, missing);
    bind_function(*library, "XGBoosterPredict", api.booster_predict, missing);
    bind_function(*library, "XGBoosterSaveModel", api.booster_save_model, missing);
    bind_function(*library, "XGBoosterLoadModel", api.booster_load_model, missing);
    if (missing.empty()) {
      loaded.library = std::move(library);
      return loaded;
    }
    tried += fmt::format("{}{} (lacks {})", tried.empty() ? "" : "; ", path, missing);
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
