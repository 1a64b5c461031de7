// Attribution of real recordings from ../shared/data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "jouleprof/attribution.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

// The Monsoon meter CSV (`Time(ms),Main(mA),Main Voltage(V),`): the time column really counts
// epoch microseconds (data/README.md); power = mA × V.
struct MeterTrace {
  std::vector<TimeNs> t_ns;
  std::vector<double> power_w;
};

MeterTrace read_meter(const std::filesystem::path& path) {
  MeterTrace m;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string t, ma, v;
    std::getline(row, t, ',');
    std::getline(row, ma, ',');
    std::getline(row, v, ',');
    if (t.empty() || ma.empty() || v.empty()) continue;
    m.t_ns.push_back(std::stoll(t) * kNsPerUs);
    m.power_w.push_back(std::stod(ma) * std::stod(v) / 1000.0);
  }
  return m;
}

struct Inference {
  int run = 0;
  int index = 0;
  TimeNs begin_ns = 0;
  TimeNs end_ns = 0;
};

std::vector<Inference> read_inferences(const std::filesystem::path& path) {
  std::vector<Inference> out;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  int run = -1;
  while (std::getline(in, line)) {
    long long index = 0, start = 0, end = 0, duration = 0;
    if (std::sscanf(line.c_str(), "%lld,%lld,%lld,%lld", &index, &start, &end, &duration) != 4)
      continue;
    if (index == 0) ++run;  // the index restarts with each run of the app
    out.push_back(Inference{run, static_cast<int>(index), start * kNsPerUs, end * kNsPerUs});
  }
  return out;
}

// Independent reference: trapezoid over the raw samples, interpolated at the window edges.
double trapezoid_j(const MeterTrace& m, TimeNs a, TimeNs b) {
  double e = 0.0;
  for (std::size_t i = 0; i + 1 < m.t_ns.size(); ++i) {
    const TimeNs lo = std::max(a, m.t_ns[i]);
    const TimeNs hi = std::min(b, m.t_ns[i + 1]);
    if (hi <= lo) continue;
    const double span = static_cast<double>(m.t_ns[i + 1] - m.t_ns[i]);
    const auto p = [&](TimeNs t) {
      return m.power_w[i] +
             (m.power_w[i + 1] - m.power_w[i]) * static_cast<double>(t - m.t_ns[i]) / span;
    };
    e += 0.5 * (p(lo) + p(hi)) * ns_to_s(hi - lo);
  }
  return e;
}

TEST(RealData, MonsoonEnergyPerInferenceMatchesAnIndependentIntegral) {
  JP_REQUIRE_SHARED_DATA("deepen2023/monsoon/mnv2_live_power.csv");
  const auto dir = testing::shared_data() / "deepen2023/monsoon";
  const MeterTrace meter = read_meter(dir / "mnv2_live_power.csv");
  const MeterTrace idle = read_meter(dir / "idle_baseline.csv");
  const std::vector<Inference> inferences = read_inferences(dir / "mnv2_live_inference_times.csv");
  ASSERT_GT(meter.t_ns.size(), 10000u);
  ASSERT_EQ(inferences.size(), 297u);

  // Clock alignment: meter stamps and inference stamps are both epoch microseconds, so the
  // offset is 0 — which holds only if every inference lies inside the meter's recording.
  for (const Inference& inf : inferences) {
    ASSERT_GE(inf.begin_ns, meter.t_ns.front());
    ASSERT_LE(inf.end_ns, meter.t_ns.back());
  }

  Series power(Channel{"monsoon:main", "monsoon", "phone", "system", ChannelKind::kPower,
                       Provenance::kImported, "mnv2_live_power.csv: Main(mA) × Main Voltage(V)", "",
                       0, 0});
  for (std::size_t i = 0; i < meter.t_ns.size(); ++i)
    ASSERT_TRUE(power.append(meter.t_ns[i], meter.power_w[i]).ok());
  double idle_sum = 0.0;
  for (double p : idle.power_w) idle_sum += p;
  const double idle_w = idle_sum / static_cast<double>(idle.power_w.size());

  Timeline tl;
  const auto track = tl.add_track(Track{TrackKind::kCpuThread, "app", "phone"});
  for (const Inference& inf : inferences) {
    tl.add_span(Span{
        inf.begin_ns, inf.end_ns, track,
        tl.intern("run_" + std::to_string(inf.run) + "/inference_" + std::to_string(inf.index)),
        kNoIndex, kNoIndex, SpanCategory::kCall});
  }
  std::vector<Series> series;
  series.push_back(std::move(power));
  AttributionOptions options;
  options.idle_power_w["monsoon:main"] = idle_w;
  options.window_begin_ns = meter.t_ns.front();
  options.window_end_ns = meter.t_ns.back();
  auto r = attribute(series, tl, options);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->records[0].method, AttributionMethod::kInterpolate) << r->records[0].reason;

  // Per inference: the attributed energy equals the independent trapezoid integral.
  double dynamic_sum_j = 0.0;
  double energy_sum_j = 0.0;
  for (std::size_t s = 0; s < inferences.size(); ++s) {
    const double reference = trapezoid_j(meter, inferences[s].begin_ns, inferences[s].end_ns);
    EXPECT_NEAR(r->per_channel[0].span_energy_j[s], reference, 1e-9 + 1e-9 * reference)
        << "inference " << s;
    energy_sum_j += reference;
    // An inference that drew less than the idle power is all static: its dynamic part is 0,
    // never negative (docs/bad-input.md).
    dynamic_sum_j +=
        std::max(0.0, reference - idle_w * ns_to_s(inferences[s].end_ns - inferences[s].begin_ns));
  }
  const ProfileNode collapsed = collapse_indices(r->tree);
  const ProfileNode* run = collapsed.child("run_*");
  ASSERT_NE(run, nullptr);
  const ProfileNode* per = run->child("inference_*");
  ASSERT_NE(per, nullptr);
  EXPECT_EQ(per->calls, inferences.size());
  EXPECT_NEAR(per->energy_j, energy_sum_j, 1e-6);
  ASSERT_TRUE(per->dynamic_energy_j.has_value());
  EXPECT_NEAR(*per->dynamic_energy_j, dynamic_sum_j, 1e-6);
  EXPECT_NEAR(r->tree.energy_j, trapezoid_j(meter, meter.t_ns.front(), meter.t_ns.back()), 1e-6);
  const double n = static_cast<double>(inferences.size());
  std::cout << "Monsoon mnv2: idle " << idle_w << " W; per inference " << 1e3 * energy_sum_j / n
            << " mJ gross, " << 1e3 * dynamic_sum_j / n << " mJ above idle\n";
}

}  // namespace
}  // namespace jouleprof
