// The real H200 recording (data/h200): BERT-base training kernels from the PyTorch profiler and
// NVML polled during the run, attributed to kernel classes.
#include <gtest/gtest.h>

#include "attribution/kernel_classes.hpp"
#include "attribution/recording_inputs.hpp"
#include "jouleprof/attribution.hpp"
#include "jouleprof/trace_import.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

TEST(H200, KernelClassesSumToTheCounterAndRegressDeclinesTheSteadyMix) {
  JP_REQUIRE_SHARED_DATA("h200/bert_fold.json.gz");
  const auto dir = testing::shared_data() / "h200";
  auto meta = attribution::read_recording_meta((dir / "meta_fold.json").string());
  ASSERT_TRUE(meta.ok()) << meta.error().message();
  ASSERT_EQ(meta->marks.size(), 2u);
  TraceImportOptions import_options;
  import_options.anchor = meta->anchor;
  auto imported = import_trace((dir / "bert_fold.json.gz").string(), import_options);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  auto samples = attribution::read_nvml_poll_csv((dir / "nvml_fast.csv").string());
  ASSERT_TRUE(samples.ok()) << samples.error().message();

  const TimeNs begin = meta->marks.front().second;
  const TimeNs end = meta->marks.back().second;
  const Timeline& tl = imported->timeline;
  std::size_t kernels = 0;
  for (const Span& s : tl.spans()) {
    if (tl.tracks()[s.track].device != "gpu0") continue;
    ++kernels;
    ASSERT_GE(s.begin_ns, begin) << tl.name(s.name);
    ASSERT_LE(s.end_ns, end) << tl.name(s.name);
  }
  EXPECT_GT(kernels, 200000u);

  AttributionOptions options;
  options.window_begin_ns = begin;
  options.window_end_ns = end;
  options.class_of = [](std::string_view name) { return attribution::kernel_class_of(name); };
  auto r = attribute(*samples, tl, options);
  ASSERT_TRUE(r.ok()) << r.error().message();

  const ChannelAttribution& energy = r->per_channel.front();
  ASSERT_EQ(energy.channel_id, "nvml:gpu0:energy");
  EXPECT_NEAR(r->tree.energy_j, energy.measured_energy_j, 1e-6 * energy.measured_energy_j);
  // The counter's energy over the run, read independently off the raw readings.
  const double raw_j = (*samples)[0].energy_between_j(begin, end);
  EXPECT_NEAR(energy.measured_energy_j, raw_j, 0.01 * raw_j);
  // ~615 W for ~15 s (METHODS.md §1).
  EXPECT_GT(energy.measured_energy_j / ns_to_s(end - begin), 450.0);
  EXPECT_LT(energy.measured_energy_j / ns_to_s(end - begin), 750.0);

  const AttributionRecord& rec = r->records.front();
  std::cout << "H200: method " << recorded_method_name(rec.method) << " — " << rec.reason << "\n";
  for (const auto& [k, v] : diagnostics_by_name(rec.diagnostics)) {
    std::cout << "  " << k << " = " << v << "\n";
  }
  // auto: coarse counter, regress declined, interpolated
  EXPECT_EQ(rec.method, AttributionMethod::kInterpolate);
  ASSERT_TRUE(rec.diagnostics.regression.has_value());
  ASSERT_TRUE(rec.diagnostics.regression->fit.has_value());
  EXPECT_GT(rec.diagnostics.regression->fit->condition_number, 0.0);
  EXPECT_GE(rec.diagnostics.regression->windows, 100u);
  EXPECT_FALSE(rec.diagnostics.regression->identifiable);
  EXPECT_NE(rec.reason.find("regress declined"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
