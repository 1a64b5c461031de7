#include "core/shared_library.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

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
