#include "predict/kernel_space.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "test_support.hpp"

namespace jouleprof::predict {
namespace {

using jouleprof::testing::TempDir;

bool contains(const std::vector<int>& list, int v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

TEST(KernelSpace, SamplingIsSeededAndStaysInsideTheSpace) {
  const auto spaces = default_kernel_spaces();
  for (const KernelType known : benchable_kernel_types()) {
    const std::string type(to_string(known));
    const KernelSpace& space = spaces.at(type);
    auto a = sample_kernels(space, 200, 7);
    auto b = sample_kernels(space, 200, 7);
    auto c = sample_kernels(space, 200, 8);
    ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << type;
    std::set<std::string> names_a, names_c;
    for (std::size_t i = 0; i < a->size(); ++i) {
      const KernelConfig& k = (*a)[i];
      EXPECT_EQ(k.name, (*b)[i].name) << type;
      names_a.insert(k.name.substr(k.name.find('_', type.size() + 1)));
      names_c.insert((*c)[i].name.substr((*c)[i].name.find('_', type.size() + 1)));
      EXPECT_EQ(k.op, type);
      EXPECT_GE(k.cin, space.cin.min) << k.name;
      EXPECT_LE(k.cin, space.cin.max + (type == "channelshuffle" ? 1 : 0)) << k.name;
      const KernelShapeFields has = shape_fields(type);
      if (has.hw) {
        EXPECT_TRUE(contains(space.hw, k.hw)) << k.name;
      }
      if (has.cout) {
        EXPECT_GE(k.cout, space.cout.min) << k.name;
        EXPECT_LE(k.cout, space.cout.max) << k.name;
      } else {
        EXPECT_EQ(k.cout, k.cin) << k.name;
      }
      if (has.kernel) {
        EXPECT_TRUE(contains(space.kernel_sizes, k.kernel_size)) << k.name;
        EXPECT_TRUE(contains(space.strides, k.stride)) << k.name;
      }
      if (space.max_mflops > 0 && kernel_flops(k)) {
        EXPECT_LE(*kernel_flops(k) / 1e6, space.max_mflops) << k.name;
      }
      EXPECT_TRUE(features_of(k).ok()) << k.name;
    }
    EXPECT_NE(names_a, names_c) << type << ": another seed must draw other kernels";
  }
}

TEST(KernelSpace, ChannelsCoverTheirRangeOnALogScale) {
  KernelSpace space = default_kernel_spaces().at("relu");
  space.cin = {1, 1000};
  auto kernels = sample_kernels(space, 2000, 1);
  ASSERT_TRUE(kernels.ok());
  int below_32 = 0;
  for (const KernelConfig& k : *kernels) below_32 += k.cin < 32 ? 1 : 0;
  // log-uniform on [1, 1001): P(cin < 32) = ln 32 / ln 1001 ≈ 0.50
  EXPECT_NEAR(below_32 / 2000.0, 0.50, 0.05);
}

TEST(KernelSpace, OverridesFromAFileAndShowsThemBack) {
  TempDir dir;
  auto path =
      dir.write("space.json", R"({"conv-bn-relu": {"HW": [7, 14], "CIN": {"min": 16, "max": 32},
      "KERNEL_SIZE": [3], "STRIDES": [2], "MAX_MFLOPS": 0}})");
  auto spaces = read_kernel_spaces(path);
  ASSERT_TRUE(spaces.ok()) << spaces.error().message();
  const KernelSpace& conv = spaces->at("conv-bn-relu");
  EXPECT_EQ(conv.hw, (std::vector<int>{7, 14}));
  EXPECT_EQ(conv.cin.min, 16);
  EXPECT_EQ(conv.cout.max, default_kernel_spaces().at("conv-bn-relu").cout.max);  // not overridden
  EXPECT_EQ(spaces->at("fc").cin.max, default_kernel_spaces().at("fc").cin.max);
  auto kernels = sample_kernels(conv, 50, 3);
  ASSERT_TRUE(kernels.ok());
  for (const KernelConfig& k : *kernels) {
    EXPECT_TRUE(k.hw == 7 || k.hw == 14);
    EXPECT_EQ(k.kernel_size, 3);
    EXPECT_EQ(k.stride, 2);
  }
  // What --show-space prints reads back to the same spaces.
  auto shown = read_kernel_spaces(dir.write("shown.json", kernel_spaces_json(*spaces)));
  ASSERT_TRUE(shown.ok()) << shown.error().message();
  EXPECT_EQ(kernel_spaces_json(*shown), kernel_spaces_json(*spaces));
}

void expect_error(const std::string& content, const std::vector<std::string>& parts) {
  TempDir dir;
  auto path = dir.write("bad-space.json", content);
  auto spaces = read_kernel_spaces(path);
  ASSERT_FALSE(spaces.ok()) << content;
  const std::string m = spaces.error().message();
  EXPECT_NE(m.find("bad-space.json"), std::string::npos) << m;
  for (const std::string& p : parts)
    EXPECT_NE(m.find(p), std::string::npos) << "'" << p << "' not in: " << m;
}

TEST(KernelSpace, BadFilesNameFileFieldAndValue) {
  expect_error(R"({"conv-bn-relu": {"HW": [7, -1]}})", {"conv-bn-relu.HW[1]", "-1"});
  expect_error(R"({"conv-bn-relu": {"HW": []}})", {"conv-bn-relu", "HW", "[]"});
  expect_error(R"({"conv-bn-relu": {"CIN": {"min": 64, "max": 8}}})", {"CIN", "max is below min"});
  expect_error(R"({"conv-bn-relu": {"CIN": {"min": 0, "max": 8}}})", {"CIN.min", "0"});
  expect_error(R"({"conv-bn-relu": {"CIN": [1, 8]}})", {"CIN", "[1,8]"});
  expect_error(R"({"relu": {"KERNEL_SIZE": [3]}})",
               {"relu.KERNEL_SIZE", "[3]", "is not a field of a relu kernel"});
  expect_error(R"({"fc": {"HW": [7]}})", {"fc", "HW"});
  expect_error(R"({"conv-bn-relu": {"PADDING": 1}})", {"conv-bn-relu.PADDING", "is unknown"});
  expect_error(R"({"transformer": {}})", {"'transformer' is not a kernel type"});
  expect_error(R"({"conv-bn-relu": {"MAX_MFLOPS": "lots"}})", {"MAX_MFLOPS", "lots"});
  expect_error(R"({"conv-bn-relu": {"HW": [7)", {"JSON"});
}

TEST(KernelSpace, KernelsLargerThanTheirPaddedInputAreRedrawn) {
  KernelSpace space = default_kernel_spaces().at("maxpool");
  space.hw = {1, 7};
  space.kernel_sizes = {2, 3};
  auto kernels = sample_kernels(space, 100, 2);
  ASSERT_TRUE(kernels.ok());
  for (const KernelConfig& k : *kernels) EXPECT_FALSE(k.hw == 1 && k.kernel_size == 2) << k.name;
  space.hw = {1};
  space.kernel_sizes = {2};
  EXPECT_FALSE(sample_kernels(space, 1, 2).ok());
}

TEST(KernelSpace, ACapNothingFitsUnderIsAnError) {
  KernelSpace space = default_kernel_spaces().at("conv-bn-relu");
  space.hw = {224};
  space.cin = {1000, 1000};
  space.cout = {1000, 1000};
  space.max_mflops = 1;
  auto kernels = sample_kernels(space, 1, 1);
  ASSERT_FALSE(kernels.ok());
  EXPECT_NE(kernels.error().message().find("MAX_MFLOPS"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof::predict
