#include "predict/xgboost_library.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace jouleprof::predict {
namespace {

bool xgboost_is_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str().find("libxgboost") != std::string::npos;
}

// First in the file: a later test of this process has loaded it.
TEST(XgboostLibrary, IsNotLoadedUntilFirstUsedThenStays) {
  EXPECT_FALSE(xgboost_is_mapped()) << "libxgboost is linked, not opened when needed";
  const Result<const XgboostApi*> api = xgboost_api();
  ASSERT_TRUE(api.ok()) << api.error().message();
  EXPECT_TRUE(xgboost_is_mapped());
  EXPECT_NE((*api)->get_last_error(), nullptr);
  EXPECT_EQ(xgboost_api().value(), *api) << "loaded once a process";
}

// The load is once a process, so each failure is tried in a child of its own: a new run of this
// binary ("threadsafe" death tests), not a fork, which would inherit a library already loaded.
void expect_load_error_in_child(const char* library, const std::string& expected) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("JOULEPROF_XGBOOST_LIBRARY", library, 1);
        const Result<const XgboostApi*> api = xgboost_api();
        const bool right = !api.ok() && api.error().code() == ErrorCode::kUnavailable &&
                           api.error().message().find('\n') == std::string::npos;
        std::cerr << (api.ok() ? std::string("loaded") : api.error().message()) << '\n';
        ::_exit(right ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), expected);
}

TEST(XgboostLibrary, AMissingLibraryIsOneLineThatSaysWhatToDo) {
  expect_load_error_in_child("/nonexistent/libxgboost.so",
                             "cannot be loaded \\(tried /nonexistent/libxgboost.so \\(.*\\)\\): "
                             "install it \\(apt-get install libxgboost0\\) or set "
                             "JOULEPROF_XGBOOST_LIBRARY=");
}

TEST(XgboostLibrary, ALibraryWithoutItsFunctionsIsRefused) {
  expect_load_error_in_child("libm.so.6", "libm.so.6 \\(lacks XGBGetLastError, XGDMatrixCreate");
}

}  // namespace
}  // namespace jouleprof::predict
