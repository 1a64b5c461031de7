#include "jouleprof/fecom_records.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace jouleprof {
namespace {

using nlohmann::json;

const char* const kCnn = "fecom/method-level/images/cnn";

std::string experiment(int k) {
  return (testing::shared_data() / kCnn / ("experiment-" + std::to_string(k) + ".json")).string();
}

// The published rules written out plainly over the raw CPU rows, as a check on the library's
// implementation: window = nearest sample to the start up to the one before the nearest to the
// end; baseline = mean power of the samples in the 20 s before the start.
struct Independent {
  double total_j = 0;
  double net_j = 0;
};

Independent independent_cpu(const json& body) {
  const json frame = json::parse(body["energy_data"]["cpu"].get<std::string>());
  std::vector<double> t, e;
  for (const json& row : frame["data"]) {
    t.push_back(row[0].get<double>());
    e.push_back(row[1].get<double>());
  }
  const double start = body["times"]["start_time_perf"].get<double>();
  const double end = body["times"]["end_time_perf"].get<double>();
  auto nearest = [&](double x) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < t.size(); ++i) {
      if (std::abs(t[i] - x) < std::abs(t[best] - x)) best = i;
    }
    return best;
  };
  const std::size_t i0 = nearest(start);
  const std::size_t i1 = nearest(end);
  Independent r;
  double window_s = 0;
  for (std::size_t i = i0; i < i1; ++i) {
    r.total_j += e[i];
    window_s += t[i] - (i == 0 ? t[i] - 0.5 : t[i - 1]);
  }
  double base_j = 0, base_s = 0;
  for (std::size_t i = 1; i < i0; ++i) {
    if (t[i] >= start - 20.0) {
      base_j += e[i];
      base_s += t[i] - t[i - 1];
    }
  }
  r.net_j = r.total_j - base_j / base_s * window_s;
  return r;
}

TEST(FecomRecords, ReadsARealExperiment) {
  JP_REQUIRE_SHARED_DATA(kCnn);
  const Result<std::vector<FecomCall>> calls = read_fecom_experiment(experiment(1));
  ASSERT_TRUE(calls) << calls.error().message();
  ASSERT_EQ(calls->size(), 15u);
  EXPECT_EQ((*calls)[13].api, "tensorflow.keras.models.Sequential.fit()");
  EXPECT_GT((*calls)[13].traces[0].size(), 400u);
  EXPECT_EQ((*calls)[13].gpu_temperature_c.size(), (*calls)[13].traces[2].size());
}

TEST(FecomRecords, NetEnergyMatchesAnIndependentComputation) {
  JP_REQUIRE_SHARED_DATA(kCnn);
  std::ifstream in(experiment(1));
  const json raw = json::parse(in);
  const Result<std::vector<FecomCall>> calls = read_fecom_experiment(experiment(1));
  ASSERT_TRUE(calls);
  for (std::size_t pos : {13u, 14u}) {  // fit() and evaluate(): long enough to have a window
    const json& body = raw[pos].begin().value();
    const Independent expected = independent_cpu(body);
    const Result<CallEnergy> got = analyse_fecom_call((*calls)[pos], FecomDevice::kCpu);
    ASSERT_TRUE(got) << got.error().message();
    EXPECT_NEAR(got->total_j, expected.total_j, 1e-6 * std::abs(expected.total_j)) << pos;
    EXPECT_NEAR(got->net_j, expected.net_j, 1e-3 * std::abs(expected.total_j)) << pos;
    EXPECT_GT(got->net_j, 0.0) << "training draws more than idle";
  }
}

TEST(FecomRecords, DirectorySummaryOverTenExperiments) {
  JP_REQUIRE_SHARED_DATA(kCnn);
  const Result<FecomAnalysis> a = analyse_fecom_directory((testing::shared_data() / kCnn).string());
  ASSERT_TRUE(a) << a.error().message();
  EXPECT_EQ(a->experiments, 10u);
  const auto fit = std::find_if(a->calls.begin(), a->calls.end(), [](const FecomCallSummary& c) {
    return c.api == "tensorflow.keras.models.Sequential.fit()";
  });
  ASSERT_NE(fit, a->calls.end());
  const FecomDeviceSummary& gpu = fit->devices[static_cast<int>(FecomDevice::kGpu)];
  EXPECT_EQ(gpu.net_j.n + gpu.skipped, 10u);
  EXPECT_GT(gpu.net_j.mean, 0.0);
  EXPECT_LE(gpu.net_j.ci95_low, gpu.net_j.mean);
  // Sequential.add() takes microseconds: shorter than a 0.5 s sample, so skipped, not zero.
  const auto add = std::find_if(a->calls.begin(), a->calls.end(), [](const FecomCallSummary& c) {
    return c.api == "tensorflow.keras.models.Sequential.add()";
  });
  ASSERT_NE(add, a->calls.end());
  EXPECT_GT(add->devices[0].skipped, 0u);
}

class FecomBadInput : public ::testing::Test {
 protected:
  std::string write_modified(const std::function<void(json&)>& change) {
    std::ifstream in(experiment(1));
    json raw = json::parse(in);
    change(raw);
    return dir_.write("experiment-1.json", raw.dump()).string();
  }
  testing::TempDir dir_;
};

TEST_F(FecomBadInput, MissingGpuSeriesNamesTheField) {
  JP_REQUIRE_SHARED_DATA(kCnn);
  const std::string path =
      write_modified([](json& records) { records[2].begin().value()["energy_data"].erase("gpu"); });
  const auto r = read_fecom_experiment(path);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("energy_data.gpu"), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("missing"), std::string::npos);
}

TEST_F(FecomBadInput, UnsortedAndNonNumericSamples) {
  JP_REQUIRE_SHARED_DATA(kCnn);
  const std::string unsorted = write_modified([](json& records) {
    json& body = records[0].begin().value();
    json frame = json::parse(body["energy_data"]["cpu"].get<std::string>());
    std::swap(frame["data"][3], frame["data"][4]);
    body["energy_data"]["cpu"] = frame.dump();
  });
  const auto r = read_fecom_experiment(unsorted);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("not sorted"), std::string::npos) << r.error().message();

  const std::string text = write_modified([](json& records) {
    json& body = records[0].begin().value();
    json frame = json::parse(body["energy_data"]["ram"].get<std::string>());
    frame["data"][2][1] = "NaN";
    body["energy_data"]["ram"] = frame.dump();
  });
  const auto t = read_fecom_experiment(text);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message().find("energy_data.ram"), std::string::npos) << t.error().message();
}

TEST_F(FecomBadInput, ImpossibleSamplesAreLeftOutWithAWarning) {
  JP_REQUIRE_SHARED_DATA(kCnn);
  const std::string path = write_modified([](json& records) {
    json& body = records[0].begin().value();
    json frame = json::parse(body["energy_data"]["cpu"].get<std::string>());
    frame["data"][2][1] = -5.0;  // energy (J) of one perf interval
    frame["data"][3][1] = 1e7;   // 10 MJ in one interval: no CPU package draws that
    body["energy_data"]["cpu"] = frame.dump();
  });
  const auto calls = read_fecom_experiment(path);
  ASSERT_TRUE(calls) << calls.error().message();
  ASSERT_EQ((*calls)[0].warnings.size(), 1u);
  EXPECT_NE((*calls)[0].warnings[0].find("energy_data.cpu: 2 samples left out as gaps, negative or "
                                         "above the 1000 W ceiling of a CPU package (first: -5 J"),
            std::string::npos)
      << (*calls)[0].warnings[0];
  for (const IntervalSample& sample : (*calls)[0].traces[0]) {
    EXPECT_GE(sample.energy_j, 0.0);
    EXPECT_LT(sample.energy_j, 1e6);
  }
}

TEST_F(FecomBadInput, TimesNoClockCanShowAreRefused) {
  JP_REQUIRE_SHARED_DATA(kCnn);
  // llround() of 1e300 s in nanoseconds gave LONG_MIN, a start 292 years before the epoch.
  const std::string path = write_modified(
      [](json& records) { records[1].begin().value()["times"]["start_time_perf"] = 1e300; });
  const auto r = read_fecom_experiment(path);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("times.start_time_perf"), std::string::npos)
      << r.error().message();
  EXPECT_NE(r.error().message().find("is not a time in seconds (1e+300)"), std::string::npos)
      << r.error().message();
}

TEST_F(FecomBadInput, TruncatedFileAndEmptyDirectory) {
  const auto path = dir_.write("experiment-1.json", "[{\"x\": {\"energy_data\":");
  EXPECT_NE(read_fecom_experiment(path.string()).error().message().find("not valid JSON"),
            std::string::npos);
  testing::TempDir empty;
  EXPECT_FALSE(analyse_fecom_directory(empty.path().string()));
}

}  // namespace
}  // namespace jouleprof
