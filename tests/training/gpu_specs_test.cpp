#include "training/gpu_specs.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace jouleprof {
namespace {

TEST(GpuSpecs, FindsNamesAsToolsWriteThem) {
  const GpuSpecTable table = GpuSpecTable::built_in();
  for (const char* name : {"NVIDIA GeForce RTX 3090", "rtx3090", "RTX 3090", "GeForce RTX 3090"}) {
    const auto spec = table.find(name);
    ASSERT_TRUE(spec) << name;
    EXPECT_EQ(spec->cuda_cores, 10496);
    EXPECT_EQ(spec->tdp_w, 350);
  }
  EXPECT_EQ(table.find("NVIDIA H200")->memory_gb, 141);
  const auto missing = table.find("Voodoo 2");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("specs file"), std::string::npos);
}

TEST(GpuSpecs, AFileOverridesAndAdds) {
  testing::TempDir dir;
  auto path = dir.write("gpus.csv",
                        "name,cuda_cores,memory_gb,tdp_w,fp32_tflops\n"
                        "GeForce RTX 3070,5888,8,240,20.31\n"
                        "Lab GPU X,1000,4,100,5\n");
  GpuSpecTable table = GpuSpecTable::built_in();
  ASSERT_TRUE(table.load_overrides(path.string()));
  EXPECT_EQ(table.find("NVIDIA GeForce RTX 3070")->tdp_w, 240);
  EXPECT_EQ(table.find("Lab GPU X")->cuda_cores, 1000);
  EXPECT_NE(table.origin().find(path.string()), std::string::npos);

  path = dir.write("bad.csv", "name,cuda_cores,memory_gb,tdp_w,fp32_tflops\nY,1,2,-3,4\n");
  const Status st = table.load_overrides(path.string());
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find(path.string() + ":2"), std::string::npos);
  EXPECT_NE(st.error().message().find("tdp_w"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
