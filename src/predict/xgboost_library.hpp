// XGBoost's C API, opened with dlopen the first time a regressor is trained or loaded, so that the
// commands that never predict do not load it: linked, libxgboost and its OpenMP runtime were 5 MB
// of every command's 17 MB and 1.7 ms of its 8 ms start-up (docs/building.md). The declarations
// come from XGBoost's header; only builds with JOULEPROF_HAS_XGBOOST include this.
#pragma once

#include <xgboost/c_api.h>

#include "jouleprof/result.hpp"

namespace jouleprof::predict {

struct XgboostApi {
  decltype(&XGBGetLastError) get_last_error;
  decltype(&XGDMatrixCreateFromMat) dmatrix_create_from_mat;
  decltype(&XGDMatrixFree) dmatrix_free;
  decltype(&XGDMatrixSetFloatInfo) dmatrix_set_float_info;
  decltype(&XGBoosterCreate) booster_create;
  decltype(&XGBoosterFree) booster_free;
  decltype(&XGBoosterSetParam) booster_set_param;
  decltype(&XGBoosterUpdateOneIter) booster_update_one_iter;
  decltype(&XGBoosterPredict) booster_predict;
  decltype(&XGBoosterSaveModel) booster_save_model;
  decltype(&XGBoosterLoadModel) booster_load_model;
};

// The API, loaded once a process and kept to its end: from $JOULEPROF_XGBOOST_LIBRARY when set,
// else libxgboost's soname, its development link, then the library the build was configured with.
// When none loads, or one lacks a function, the error names each library tried and what to do.
Result<const XgboostApi*> xgboost_api();

}  // namespace jouleprof::predict
