#include "core/shared_library.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <string>
#include <vector>

namespace jouleprof {
namespace {

TEST(SharedLibrary, OpensALibraryAndFindsItsFunctions) {
  const SharedLibrary math("libm.so.6");
  ASSERT_TRUE(math.is_open()) << math.error();
  EXPECT_EQ(math.path(), "libm.so.6");
  using Cosine = double (*)(double);
  const auto cosine = math.function<Cosine>("cos");
  ASSERT_NE(cosine, nullptr);
  EXPECT_DOUBLE_EQ(cosine(0.0), 1.0);
  EXPECT_EQ(math.function<Cosine>("no_such_function"), nullptr);
}

TEST(SharedLibrary, AMissingLibraryIsNotOpenAndSaysWhy) {
  const SharedLibrary missing("/nonexistent/libvendor.so.1");
  EXPECT_FALSE(missing.is_open());
  EXPECT_NE(missing.error().find("/nonexistent/libvendor.so.1"), std::string::npos)
      << missing.error();
  EXPECT_EQ(missing.function<void (*)()>("anything"), nullptr);
}

TEST(FunctionBinder, NamesEveryRequiredFunctionTheLibraryLacks) {
  const SharedLibrary math("libm.so.6");
  using Unary = double (*)(double);
  Unary cosine = nullptr;
  Unary sine = nullptr;
  Unary missing_optional = &std::abs;  // an optional one the library lacks ends up null too
  Unary first_missing = nullptr;
  Unary second_missing = nullptr;
  FunctionBinder bind(math);
  bind.required(cosine, "cos");
  bind.required(first_missing, "no_such_function");
  bind.optional(sine, "sin");
  bind.optional(missing_optional, "no_such_optional_function");
  bind.required(second_missing, "nor_this_one");
  ASSERT_NE(cosine, nullptr);
  EXPECT_DOUBLE_EQ(cosine(0.0), 1.0);
  EXPECT_NE(sine, nullptr);
  EXPECT_EQ(missing_optional, nullptr);
  EXPECT_EQ(first_missing, nullptr);
  EXPECT_EQ(bind.missing(), (std::vector<std::string>{"no_such_function", "nor_this_one"}));
}

TEST(SharedLibrary, ThePathComesFromTheEnvironmentWhenSet) {
  ::unsetenv("JOULEPROF_TEST_LIBRARY");
  EXPECT_EQ(library_path("JOULEPROF_TEST_LIBRARY", "libvendor.so.1"), "libvendor.so.1");
  ::setenv("JOULEPROF_TEST_LIBRARY", "", 1);
  EXPECT_EQ(library_path("JOULEPROF_TEST_LIBRARY", "libvendor.so.1"), "libvendor.so.1");
  ::setenv("JOULEPROF_TEST_LIBRARY", "/opt/vendor/lib/libvendor.so.1", 1);
  EXPECT_EQ(library_path("JOULEPROF_TEST_LIBRARY", "libvendor.so.1"),
            "/opt/vendor/lib/libvendor.so.1");
  ::unsetenv("JOULEPROF_TEST_LIBRARY");
}

}  // namespace
}  // namespace jouleprof
