#include "predict/kernel_dataset.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace jouleprof::predict {
namespace {

using jouleprof::testing::TempDir;

const char* kConfig = R"({"conv-bn-relu": {
  "A": {"model": "m", "shapes": [[56, 56, 32]],
        "config": {"HW": 56, "CIN": 32, "COUT": 64, "KERNEL_SIZE": 3, "STRIDES": 1}},
  "B": {"config": {"HW": 28, "CIN": 64, "COUT": 64, "KERNEL_SIZE": 1, "STRIDES": 2}}}})";
const char* kEnergy = R"({"conv-bn-relu": {"A": {"energy": "1.25"}, "B": {"energy": "0.5"}}})";

Result<std::vector<KernelSample>> read(const std::vector<std::filesystem::path>& files) {
  return read_kernel_files(files);
}

TEST(KernelDataset, JoinsConfigAndEnergyFiles) {
  TempDir dir;
  auto samples = read({dir.write("c.json", kConfig), dir.write("e.json", kEnergy)});
  ASSERT_TRUE(samples.ok()) << samples.error().message();
  ASSERT_EQ(samples->size(), 2u);
  EXPECT_EQ((*samples)[0].config.name, "A");
  EXPECT_EQ((*samples)[0].config.op, "conv-bn-relu");
  EXPECT_EQ((*samples)[0].config.cout, 64);
  EXPECT_DOUBLE_EQ((*samples)[0].energy_mj, 1.25);
  EXPECT_EQ((*samples)[1].config.stride, 2);
}

TEST(KernelDataset, FileOrderDoesNotMatter) {
  TempDir dir;
  auto samples = read({dir.write("e.json", kEnergy), dir.write("c.json", kConfig)});
  ASSERT_TRUE(samples.ok());
  EXPECT_EQ(samples->size(), 2u);
}

TEST(KernelDataset, TruncatedJsonNamesTheFile) {
  TempDir dir;
  const std::string text(kConfig);
  auto samples = read({dir.write("cut.json", text.substr(0, text.size() / 2))});
  ASSERT_FALSE(samples.ok());
  EXPECT_NE(samples.error().message().find("cut.json"), std::string::npos)
      << samples.error().message();
  EXPECT_NE(samples.error().message().find("JSON"), std::string::npos);
}

TEST(KernelDataset, MissingConfigKeyIsNamed) {
  TempDir dir;
  auto samples =
      read({dir.write("c.json", R"({"conv-bn-relu": {"A": {"config": {"HW": 56, "CIN": 32,
      "COUT": 64, "STRIDES": 1}}}})"),
            dir.write("e.json", R"({"conv-bn-relu": {"A": {"energy": "1"}}})")});
  ASSERT_FALSE(samples.ok());
  const std::string& m = samples.error().message();
  EXPECT_NE(m.find("c.json: field 'conv-bn-relu.A.config.KERNEL_SIZE' missing"), std::string::npos)
      << m;
}

TEST(KernelDataset, EnergyThatIsNotANumber) {
  TempDir dir;
  auto samples =
      read({dir.write("c.json", kConfig),
            dir.write("e.json",
                      R"({"conv-bn-relu": {"A": {"energy": "1.2mJ"}, "B": {"energy": "1"}}})")});
  ASSERT_FALSE(samples.ok());
  EXPECT_NE(samples.error().message().find("1.2mJ"), std::string::npos)
      << samples.error().message();
  EXPECT_NE(samples.error().message().find("not a number"), std::string::npos);
}

TEST(KernelDataset, ConfigWithoutEnergyIsReported) {
  TempDir dir;
  auto samples = read({dir.write("c.json", kConfig)});
  ASSERT_FALSE(samples.ok());
  EXPECT_NE(samples.error().message().find("no energy"), std::string::npos)
      << samples.error().message();
}

TEST(KernelDataset, ReadsTheCsvFormat) {
  TempDir dir;
  auto path = dir.write("k.csv",
                        "id,OP,energy_mJ,HW,KERNEL_SIZE,STRIDES,CIN,COUT\r\n"
                        "x.tflite,conv-bn-relu6,2905.5,224,7,2,3,96\r\n");
  auto samples = read({path});
  ASSERT_TRUE(samples.ok()) << samples.error().message();
  ASSERT_EQ(samples->size(), 1u);
  const KernelSample& s = samples->front();
  EXPECT_EQ(s.config.op, "conv-bn-relu6");
  EXPECT_EQ(s.config.kernel_size, 7);
  EXPECT_EQ(s.config.cout, 96);
  EXPECT_DOUBLE_EQ(s.energy_mj, 2905.5);
  EXPECT_TRUE(s.provenance.empty());
  EXPECT_EQ(kernel_csv_row(s), "x.tflite,conv-bn-relu6,2905.5,224,7,2,3,96,");
}

TEST(KernelDataset, CsvKeepsTheEnergyProvenanceAndSkipsComments) {
  TempDir dir;
  KernelSample written;
  written.config.name = "add_0_7_16_16_1_1";
  written.config.op = "add";
  written.config.hw = 7;
  written.config.cin = 16;
  written.config.cout = 16;
  written.config.kernel_size = 1;
  written.config.stride = 1;
  written.energy_mj = 0.125;
  written.provenance = "estimated:cpu-estimate";
  auto path = dir.write("k.csv", "# jouleprof kernel-bench: energy estimated by cpu-estimate\n" +
                                     kernel_csv_header() + "\n" + kernel_csv_row(written) + "\n");
  auto samples = read({path});
  ASSERT_TRUE(samples.ok()) << samples.error().message();
  ASSERT_EQ(samples->size(), 1u);
  const KernelSample& s = samples->front();
  EXPECT_EQ(s.provenance, "estimated:cpu-estimate");
  EXPECT_EQ(s.config.name, written.config.name);
  EXPECT_DOUBLE_EQ(s.energy_mj, 0.125);
  EXPECT_EQ(s.config.input_channels, (std::vector<int>{16, 16}));  // add: CIN is both inputs
  EXPECT_EQ(sample_origin(s), path.string() + " [estimated:cpu-estimate]");
  EXPECT_TRUE(features_of(s.config).ok());
}

TEST(KernelDataset, CsvRejectsAnUnknownProvenance) {
  TempDir dir;
  auto samples =
      read({dir.write("k.csv", kernel_csv_header() + "\nx,relu,1,7,1,1,8,8,guessed:me\n")});
  ASSERT_FALSE(samples.ok());
  const std::string m = samples.error().message();
  EXPECT_NE(m.find("k.csv: line 2"), std::string::npos) << m;
  EXPECT_NE(m.find("energy_provenance"), std::string::npos) << m;
  EXPECT_NE(m.find("guessed:me"), std::string::npos) << m;
}

TEST(KernelDataset, CsvBadEnergyNamesLineAndColumn) {
  TempDir dir;
  auto samples = read({dir.write(
      "k.csv", "id,OP,energy_mJ,HW,KERNEL_SIZE,STRIDES,CIN,COUT\nx,conv,abc,1,1,1,1,1\n")});
  ASSERT_FALSE(samples.ok());
  EXPECT_NE(samples.error().message().find("line 2"), std::string::npos)
      << samples.error().message();
  EXPECT_NE(samples.error().message().find("energy_mJ"), std::string::npos);
}

// Found by fuzz/kernel_csv_fuzz.cpp: a HW of 2.2e23 was converted to int (undefined behaviour)
// to see whether it was an integer.
TEST(KernelDataset, CsvIntegerBeyondIntIsRefused) {
  TempDir dir;
  auto samples = read({dir.write(
      "k.csv",
      "id,OP,energy_mJ,HW,KERNEL_SIZE,STRIDES,CIN,COUT\nx,conv,2.5,222222222222222222222228,1,"
      "1,768,384\n")});
  ASSERT_FALSE(samples.ok());
  EXPECT_NE(samples.error().message().find("line 2"), std::string::npos)
      << samples.error().message();
  EXPECT_NE(samples.error().message().find("HW"), std::string::npos);
  EXPECT_NE(samples.error().message().find("not an integer"), std::string::npos);
}

TEST(KernelDataset, ReadsThePublishedSets) {
  JP_REQUIRE_SHARED_DATA("deepen2023/kernels/conv_GPU.json");
  const auto k = jouleprof::testing::shared_data() / "deepen2023/kernels";
  auto gpu = read({k / "conv_GPU.json", k / "conv_energy_GPU.json"});
  ASSERT_TRUE(gpu.ok()) << gpu.error().message();
  EXPECT_EQ(gpu->size(), 592u);
  auto cpu = read({k / "conv-bn-relu_test.json", k / "conv-bn-relu_energy.json"});
  ASSERT_TRUE(cpu.ok()) << cpu.error().message();
  EXPECT_EQ(cpu->size(), 437u);
  auto csv = read({k / "conv_source.csv"});
  ASSERT_TRUE(csv.ok()) << csv.error().message();
  EXPECT_EQ(csv->size(), 500u);
}

}  // namespace
}  // namespace jouleprof::predict
