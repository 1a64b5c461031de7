#include "jouleprof/samples_csv.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace jouleprof {
namespace {

using ::jouleprof::testing::TempDir;

std::vector<Series> example() {
  Channel counter;
  counter.id = "rapl:package-0";
  counter.source = "rapl-powercap";
  counter.device = "cpu 0, socket=0";  // needs escaping
  counter.domain = "package";
  counter.kind = ChannelKind::kEnergyCounter;
  counter.provenance = Provenance::kMeasured;
  counter.provenance_detail = "powercap energy_uj, 100% of it";
  counter.nominal_period_ns = kNsPerMs;
  counter.measured_period_ns = 1'000'123;
  Channel power = counter;
  power.id = "nvml:0:power";
  power.kind = ChannelKind::kPower;
  power.parent_id = "rapl:package-0";
  power.provenance = Provenance::kImported;
  power.averaging_ns = kNsPerS;  // a moving average, as NVML's board power from Ampere on
  std::vector<Series> series;
  series.emplace_back(counter);
  series.emplace_back(power);
  EXPECT_TRUE(series[0].append(100, 0.1).ok());
  EXPECT_TRUE(series[0].append(200, 1.0 / 3.0).ok());
  EXPECT_TRUE(series[1].append(150, 250.125).ok());
  series[1].add_gap({150, 300, "NVML: GPU is lost"});
  return series;
}

TEST(SamplesCsv, RoundTripIsExact) {
  TempDir dir;
  const std::string path = (dir.path() / "samples.csv").string();
  const std::vector<Series> written = example();
  ASSERT_TRUE(write_samples_csv(written, path).ok());
  const std::string text = ::jouleprof::testing::read_file(path);
  EXPECT_NE(text.find("t_ns,channel,kind,value\n100,rapl:package-0,energy_j,0.1\n"),
            std::string::npos)
      << text;

  Result<std::vector<Series>> read = read_samples_csv(path);
  ASSERT_TRUE(read.ok()) << read.error().message();
  ASSERT_EQ(read->size(), 2U);
  for (std::size_t k = 0; k < 2; ++k) {
    const Channel& a = written[k].channel();
    const Channel& b = (*read)[k].channel();
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.source, b.source);
    EXPECT_EQ(a.device, b.device);
    EXPECT_EQ(a.domain, b.domain);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.provenance, b.provenance);
    EXPECT_EQ(a.provenance_detail, b.provenance_detail);
    EXPECT_EQ(a.parent_id, b.parent_id);
    EXPECT_EQ(a.nominal_period_ns, b.nominal_period_ns);
    EXPECT_EQ(a.measured_period_ns, b.measured_period_ns);
    EXPECT_EQ(a.averaging_ns, b.averaging_ns);
    ASSERT_EQ(written[k].size(), (*read)[k].size());
    for (std::size_t i = 0; i < written[k].size(); ++i) {
      EXPECT_EQ(written[k][i].t_ns, (*read)[k][i].t_ns);
      EXPECT_EQ(written[k][i].value, (*read)[k][i].value);  // bit-exact
    }
  }
  ASSERT_EQ((*read)[1].gaps().size(), 1U);
  EXPECT_EQ((*read)[1].gaps()[0].reason, "NVML: GPU is lost");
  EXPECT_EQ((*read)[1].gaps()[0].end_ns, 300);
}

TEST(SamplesCsv, AMissingDirectoryIsNamedWithTheSystemsReason) {
  TempDir dir;
  const std::string path = (dir.path() / "no" / "samples.csv").string();
  const Status written = write_samples_csv(example(), path);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(written.error().message(),
            path + ": cannot open for writing: No such file or directory");
}

TEST(SamplesCsv, UndeclaredChannelsAreImported) {
  Result<std::vector<Series>> read =
      parse_samples_csv("t_ns,channel,kind,value\n1,meter,power_w,5\n2,meter,power_w,6\n", "m.csv");
  ASSERT_TRUE(read.ok()) << read.error().message();
  ASSERT_EQ(read->size(), 1U);
  EXPECT_EQ((*read)[0].channel().provenance, Provenance::kImported);
  EXPECT_EQ((*read)[0].channel().kind, ChannelKind::kPower);
  EXPECT_EQ((*read)[0].size(), 2U);
}

struct BadCase {
  const char* text;
  const char* expected;  // in the message: file:line, field, value
};

TEST(SamplesCsv, ErrorsNameFileLineFieldAndValue) {
  const BadCase cases[] = {
      {"t,c,k,v\n", "bad.csv:1: field 'header'"},
      {"t_ns,channel,kind,value\n1,a,energy_j,abc\n", "bad.csv:2: field 'value' has value 'abc'"},
      {"t_ns,channel,kind,value\nx,a,energy_j,1\n", "bad.csv:2: field 't_ns' has value 'x'"},
      {"t_ns,channel,kind,value\n1,a,joules,1\n", "bad.csv:2: field 'kind' has value 'joules'"},
      {"t_ns,channel,kind,value\n1,a,energy_j\n", "bad.csv:2: field 'line'"},
      {"t_ns,channel,kind,value\n5,a,energy_j,1\n4,a,energy_j,2\n",
       "bad.csv:3: field 't_ns' has value '4'"},
      {"t_ns,channel,kind,value\n1,a,energy_j,1\n2,a,power_w,2\n", "bad.csv:3: field 'kind'"},
      {"t_ns,channel,kind,value\n1,a,energy_j,nan\n", "bad.csv:2: field 'value' has value 'nan'"},
      {"# channel a kind=volts\nt_ns,channel,kind,value\n",
       "bad.csv:1: field 'kind' has value 'volts'"},
      {"# gap b begin_ns=1 end_ns=2\n", "bad.csv:1: field 'gap channel' has value 'b'"},
      {"", "bad.csv: field 'header'"},
  };
  for (const BadCase& c : cases) {
    Result<std::vector<Series>> read = parse_samples_csv(c.text, "bad.csv");
    ASSERT_FALSE(read.ok()) << c.text;
    EXPECT_NE(read.error().message().find(c.expected), std::string::npos)
        << "got: " << read.error().message() << "\nwanted: " << c.expected;
  }
  EXPECT_FALSE(read_samples_csv("/nonexistent/samples.csv").ok());
}

TEST(SamplesCsv, ImplausibleReadingsBecomeGaps) {
  // A hand-made file: the counter steps back once (a reset), the meter reads negative once.
  const auto read = parse_samples_csv(
      "t_ns,channel,kind,value\n"
      "0,cpu,energy_j,0\n1000000000,cpu,energy_j,5\n2000000000,cpu,energy_j,1\n"
      "3000000000,cpu,energy_j,3\n"
      "0,meter,power_w,10\n1000000000,meter,power_w,-5\n2000000000,meter,power_w,10\n",
      "hand.csv");
  ASSERT_TRUE(read.ok()) << read.error().message();
  const Series& cpu = (*read)[0];
  ASSERT_EQ(cpu.size(), 3u);
  EXPECT_EQ(cpu.back().value, 7.0);  // 5, then 2 J more after the reset
  ASSERT_EQ(cpu.gaps().size(), 1u);
  EXPECT_EQ(cpu.gaps()[0].reason, "counter went backwards (1 J after 5 J)");
  const Series& meter = (*read)[1];
  EXPECT_EQ(meter.size(), 2u);
  ASSERT_EQ(meter.gaps().size(), 1u);
  EXPECT_EQ(meter.gaps()[0].reason, "negative power (-5 W)");
  EXPECT_DOUBLE_EQ(meter.total_energy_j(), 0.0) << "nothing is integrated across the gap";
}

TEST(SamplesCsv, ReadingStopsAtTheFirstBadLineAndSaysWhereItStarts) {
  TempDir dir;
  const std::string good = "t_ns,channel,kind,value\n1,a,energy_j,1\n";
  const std::string path = dir.write("s.csv", good + "bad\nworse\n").string();
  const Result<std::vector<Series>> read = read_samples_csv(path);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().message(),
            fmt::format("{}:3: field 'line' has value 'bad': expected 4 fields, found 1 (line 3 "
                        "starts at byte {})",
                        path, good.size()));
}

}  // namespace
}  // namespace jouleprof
