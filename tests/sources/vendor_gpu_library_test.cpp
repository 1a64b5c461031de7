#include "sources/vendor_gpu_library.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

namespace jouleprof {
namespace {

constexpr VendorLibrary kVendor{"JOULEPROF_TEST_VENDOR_LIBRARY", "/nonexistent/libvendor.so.1",
                                "install the vendor's driver", "the driver is too old",
                                "update the driver"};

using Unary = double (*)(double);

class VendorGpuLibraryTest : public ::testing::Test {
 protected:
  void TearDown() override { ::unsetenv("JOULEPROF_TEST_VENDOR_LIBRARY"); }
};

TEST_F(VendorGpuLibraryTest, AMissingLibraryNamesItsPathAndTheVariableThatMovesIt) {
  const VendorGpuLibrary library(kVendor);
  EXPECT_EQ(library.path(), "/nonexistent/libvendor.so.1");
  bool asked = false;
  const Availability bound = library.bind([&](FunctionBinder&) { asked = true; });
  EXPECT_FALSE(asked);
  EXPECT_FALSE(bound.available);
  EXPECT_EQ(bound.reason.find("cannot load /nonexistent/libvendor.so.1: "), 0U) << bound.reason;
  EXPECT_EQ(bound.fix,
            "install the vendor's driver; if the library lives elsewhere, set "
            "JOULEPROF_TEST_VENDOR_LIBRARY=/path/to//nonexistent/libvendor.so.1");
}

TEST_F(VendorGpuLibraryTest, TheVariableReplacesTheDefaultAndEveryMissingFunctionIsNamed) {
  ::setenv("JOULEPROF_TEST_VENDOR_LIBRARY", "libm.so.6", 1);
  const VendorGpuLibrary library(kVendor);
  EXPECT_EQ(library.path(), "libm.so.6");
  Unary cosine = nullptr;
  Unary missing = nullptr;
  const Availability lacking = library.bind([&](FunctionBinder& bind) {
    bind.required(cosine, "cos");
    bind.required(missing, "vendorInit");
    bind.optional(missing, "vendorOptional");
    bind.required(missing, "vendorShutdown");
    bind.required(missing, "vendorGetCount");
  });
  EXPECT_FALSE(lacking.available);
  EXPECT_EQ(lacking.reason,
            "libm.so.6 has no symbol vendorInit (nor vendorShutdown, vendorGetCount): the driver "
            "is too old");
  EXPECT_EQ(lacking.fix,
            "update the driver, or point JOULEPROF_TEST_VENDOR_LIBRARY at its "
            "/nonexistent/libvendor.so.1");

  const Availability one = library.bind([&](FunctionBinder& bind) {
    bind.required(cosine, "cos");
    bind.required(missing, "vendorInit");
  });
  EXPECT_EQ(one.reason, "libm.so.6 has no symbol vendorInit: the driver is too old");

  const Availability bound = library.bind([&](FunctionBinder& bind) {
    bind.required(cosine, "cos");
    bind.optional(missing, "vendorOptional");
  });
  EXPECT_TRUE(bound.available);
  EXPECT_EQ(bound.reason, "");
  ASSERT_NE(cosine, nullptr);
  EXPECT_DOUBLE_EQ(cosine(0.0), 1.0);
  EXPECT_EQ(missing, nullptr);
}

}  // namespace
}  // namespace jouleprof
