#include "training/epoch_energy.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::shared_data;
using testing::TempDir;

TEST(EpochEnergy, SumsCountersAndPowerPerEpoch) {
  Channel counter;
  counter.id = "c";
  counter.kind = ChannelKind::kEnergyCounter;
  Series c(counter);
  ASSERT_TRUE(c.append(0, 0.0));
  ASSERT_TRUE(c.append(10 * kNsPerS, 1000.0));
  Channel power;
  power.id = "p";
  power.kind = ChannelKind::kPower;
  Series p(power);
  ASSERT_TRUE(p.append(0, 10.0));
  ASSERT_TRUE(p.append(10 * kNsPerS, 10.0));
  const auto log = equal_split_epochs(0, 10 * kNsPerS, 2);
  ASSERT_TRUE(log);
  const auto e = epoch_energies({&c, &p}, *log);
  ASSERT_TRUE(e) << e.error().message();
  ASSERT_EQ(e->energy_j.size(), 2u);
  EXPECT_DOUBLE_EQ(e->energy_j[0], 500.0 + 50.0);
  EXPECT_DOUBLE_EQ(e->total_j(), 1100.0);
  EXPECT_TRUE(e->warnings.empty());

  const auto longer = equal_split_epochs(0, 20 * kNsPerS, 2);
  const auto partial = epoch_energies({&p}, *longer);
  ASSERT_TRUE(partial);
  ASSERT_EQ(partial->warnings.size(), 1u);
  EXPECT_NE(partial->warnings[0].find("1 of 2 epochs"), std::string::npos);

  Channel temperature;
  temperature.id = "t";
  temperature.kind = ChannelKind::kTemperature;
  Series t(temperature);
  ASSERT_TRUE(t.append(0, 40.0));
  EXPECT_FALSE(epoch_energies({&t}, *log));
}

// A gap is no reading, not 0 W (issue 30 class 2): 100 W read every second over 0-20 s but for
// a gap over 3-8 s; epochs of 5 s.
TEST(EpochEnergy, AGapIsGivenItsEpochsMeanPowerAndSaidSo) {
  Channel power;
  power.id = "p";
  power.kind = ChannelKind::kPower;
  Series p(power);
  for (int s = 0; s <= 20; ++s) {
    if (s > 3 && s < 8) continue;
    ASSERT_TRUE(p.append(s * kNsPerS, 100.0));
  }
  p.add_gap({3 * kNsPerS, 8 * kNsPerS, "read failed"});
  const auto log = equal_split_epochs(0, 20 * kNsPerS, 4);
  ASSERT_TRUE(log);
  const auto e = epoch_energies({&p}, *log);
  ASSERT_TRUE(e) << e.error().message();
  for (double j : e->energy_j) EXPECT_NEAR(j, 500.0, 1e-9);  // not 300 J and 0 J
  EXPECT_NEAR(e->filled_j[0], 200.0, 1e-9);                  // 3-5 s
  EXPECT_NEAR(e->filled_j[1], 300.0, 1e-9);                  // 5-8 s
  EXPECT_EQ(e->filled_j[2], 0.0);
  ASSERT_EQ(e->warnings.size(), 1u);
  EXPECT_NE(e->warnings[0].find("p: 2 of 4 epochs overlap the series' 1 gap(s), 5.0 s without "
                                "readings"),
            std::string::npos)
      << e->warnings[0];

  // An epoch wholly inside a gap gets the series' mean power.
  Series sparse(power);
  ASSERT_TRUE(sparse.append(0, 50.0));
  ASSERT_TRUE(sparse.append(5 * kNsPerS, 50.0));
  ASSERT_TRUE(sparse.append(15 * kNsPerS, 50.0));
  ASSERT_TRUE(sparse.append(20 * kNsPerS, 50.0));
  sparse.add_gap({5 * kNsPerS, 15 * kNsPerS, "[N/A]"});
  const auto covered = epoch_energies({&sparse}, *log);
  ASSERT_TRUE(covered);
  EXPECT_NEAR(covered->energy_j[1], 250.0, 1e-9);
  EXPECT_NEAR(covered->total_j(), 1000.0, 1e-9);
}

TEST(EpochEnergy, RamPowerFromTheSeaa2023MemoryLog) {
  const char* relative = "seaa2023/traces/cloud/mobilenet_v2/cpu-mem-usage-20221205T104713.csv";
  JP_REQUIRE_SHARED_DATA(relative);
  const auto path = shared_data() / relative;
  const auto ram = read_ram_power_log(path.string(), PowerLogOptions{});
  ASSERT_TRUE(ram) << ram.error().message();
  EXPECT_EQ(ram->channel().provenance, Provenance::kEstimated);
  EXPECT_NE(ram->channel().provenance_detail.find("0.375 W/GB"), std::string::npos);
  // Independent: mean of 0.375 W/GB × MB/1024 over the rows × the span (1 Hz, even sampling).
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  double sum = 0.0;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string t, cpu, mb;
    std::getline(ss, t, ',');
    std::getline(ss, cpu, ',');
    std::getline(ss, mb, ',');
    sum += std::stod(mb) / 1024.0 * 0.375;
    ++n;
  }
  EXPECT_EQ(ram->size(), n);
  EXPECT_DOUBLE_EQ(ram->front().value, 12833.176 / 1024.0 * 0.375);
  const double span_s = ns_to_s(ram->end_ns() - ram->begin_ns());
  EXPECT_NEAR(ram->total_energy_j(), sum / static_cast<double>(n) * span_s,
              0.002 * sum / static_cast<double>(n) * span_s);
  // The GPU log of the same run, read with the same (zero) offset, lies on the same axis.
  const auto gpu = read_nvidia_smi_log(
      (shared_data() / "seaa2023/traces/cloud/mobilenet_v2/gpu-power-20221205T104713.csv").string(),
      PowerLogOptions{});
  ASSERT_TRUE(gpu);
  EXPECT_LT(std::abs(ram->begin_ns() - gpu->find(ChannelKind::kPower)->begin_ns()), 5 * kNsPerS);
}

TEST(EpochEnergy, BadMemoryLogNamesLineAndField) {
  TempDir dir;
  const auto path = dir.write("m.csv",
                              "timestamp,cpu usage (%),memory usage (MB),temperature (Celsius)\n"
                              "2022-12-05T10:47:17.051079,0.0,12833.176,27.0\n"
                              "2022-12-05T10:47:18.051079,0.0,lots,27.0\n"
                              "2022-12-05T10:47:19.051079,0.0,12833.176,27.0\n");
  const auto ram = read_ram_power_log(path.string(), {});
  ASSERT_FALSE(ram);
  EXPECT_NE(ram.error().message().find(path.string() + ":3"), std::string::npos);
  EXPECT_NE(ram.error().message().find("memory usage (MB)"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
