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

TEST(GpuSpecs, NamesMatchOnWholeWordsOnly) {
  const GpuSpecTable table = GpuSpecTable::built_in();
  // The first whole words of one entry are enough…
  EXPECT_EQ(table.find("Tesla V100")->name, "Tesla V100-SXM2-32GB");
  EXPECT_EQ(table.find("NVIDIA A100-SXM4-80GB")->memory_gb, 80);
  // …but part of a word is not: an A100 is no A10, an RTX 3080 Ti no RTX 3080.
  const auto pcie = table.find("NVIDIA A100 PCIe 40GB");
  ASSERT_FALSE(pcie);
  EXPECT_EQ(pcie.error().code(), ErrorCode::kNotFound);
  const auto ti = table.find("NVIDIA GeForce RTX 3080 Ti");
  ASSERT_FALSE(ti);
  EXPECT_NE(ti.error().message().find("similar: GeForce RTX 2080 Ti"), std::string::npos)
      << ti.error().message();
  // Two entries begin with "A100": refused, with both named.
  const auto ambiguous = table.find("A100");
  ASSERT_FALSE(ambiguous);
  EXPECT_NE(ambiguous.error().message().find("A100-SXM4-40GB, A100-SXM4-80GB"), std::string::npos)
      << ambiguous.error().message();
  EXPECT_FALSE(table.find("NVIDIA"));
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
  EXPECT_TRUE(st.error().message().ends_with("(line 2 starts at byte 44)")) << st.error().message();
}

}  // namespace
}  // namespace jouleprof
