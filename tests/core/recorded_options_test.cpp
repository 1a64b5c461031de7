#include "jouleprof/recorded_options.hpp"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "jouleprof/profile.hpp"

namespace jouleprof {
namespace {

using Entries = std::map<std::string, std::string>;

// Every key jouleprof writes, with text as its writers produce it, and two it does not know.
Entries every_entry() {
  return {
      {"attribution.default_method", "interpolate"},
      {"attribution.window", "timeline"},
      {"attribution.window_begin_ns", "100"},
      {"attribution.window_end_ns", "2000000100"},
      {"auto_window.max_cv", "0.02"},
      {"auto_window.window_ns", "50000000"},
      {"auto_window.cooldown_ns", "10000000"},
      {"capi.record_spans", "true"},
      {"cluster.launcher", "slurm"},
      {"cluster.local_rank", "1"},
      {"cluster.node_rank", "2"},
      {"epochs.first_begin", "the first epoch_begin"},
      {"epochs.total", "3"},
      {"gated.preset", "fecom"},
      {"idle.begin_ns", "-5"},
      {"idle.end_ns", "1000000000"},
      {"merge.ranks", "2"},
      {"merge.origin.r0", "a.json"},
      {"merge.origin.r1", "b.json"},
      {"merge.offset_ns.r1", "-5000000000"},
      {"merge.rank_energy_j.r0", "560"},
      {"merge.rank_energy_j.r1", "123.456789"},
      {"merge.host_energy_j.n1", "683.456789"},
      {"process.observed", "pid 77 and its descendants"},
      {"process.static_share", "none"},
      {"run.idle_s", "0.5"},
      {"run.interval_ms", "2.5"},
      {"run.source", "rapl,simulated"},
      {"run.sysfs_root", "/tmp/fake sysfs"},
      {"sampler.period_ns.rapl", "1000000"},
      {"sampler.period_ns.simulated", "10000000"},
      {"sampler.thread_cpu_ns", "1234567"},
      {"sampler.wall_ns", "2000000000"},
      {"sampler.polls", "18446744073709551615"},
      {"sampler.cpu_percent_of_one_core", "0.0617"},
      {"sampler.memory_limit_bytes", "1073741824"},
      {"sources", "rapl,simulated"},
      {"sources.unavailable.nvml", "libnvidia-ml.so.1 not found"},
      {"setting.estimate.tdp_w", "100"},
      {"torch.steps", "5"},
      {"torch.warmup", "2"},
      {"torch.samples_per_step", "32"},
      {"torch.parameters", "110000000"},
      {"torch.calibration", "calibration.json"},
      {"trace.path", "trace.json"},
      {"trace.format", "jouleprof-spans"},
      {"trace.clock_mapping", "monotonic (span dump)"},
      {"trace.offset_ns", "0"},
      {"trace.backward_s", "0.123456789"},
      {"trace.backward_linked_share", "1"},
      {"trace.backward_module_share", "0.4"},
      {"interval", "10ms"},
      {"sampler.future_figure", "7 units"},
  };
}

TEST(RecordedOptions, ReadsEveryKeyIntoItsField) {
  const Result<RecordedOptions> read = recorded_options_from_entries(every_entry(), "p.json");
  ASSERT_TRUE(read) << read.error().message();
  const RecordedOptions& o = *read;
  EXPECT_EQ(o.attribution.default_method, AttributionMethod::kInterpolate);
  EXPECT_EQ(o.attribution.window, AttributionWindow::kTimeline);
  EXPECT_EQ(o.attribution.window_begin_ns, 100);
  EXPECT_EQ(o.attribution.window_end_ns, 2'000'000'100);
  EXPECT_EQ(o.auto_window.max_cv, 0.02);
  EXPECT_EQ(o.auto_window.window_ns, 50'000'000);
  EXPECT_EQ(o.auto_window.cooldown_ns, 10'000'000);
  EXPECT_EQ(o.capi.record_spans, true);
  EXPECT_EQ(o.cluster.launcher, "slurm");
  EXPECT_EQ(o.cluster.local_rank, 1);
  EXPECT_EQ(o.cluster.node_rank, 2);
  EXPECT_EQ(o.epochs.first_begin, EpochStart::kBeginMark);
  EXPECT_EQ(o.epochs.total, 3);
  EXPECT_EQ(o.gated.preset, "fecom");
  EXPECT_EQ(o.idle.begin_ns, -5);
  EXPECT_EQ(o.idle.end_ns, kNsPerS);
  EXPECT_EQ(o.merge.ranks, 2U);
  EXPECT_EQ(o.merge.origin,
            (std::map<std::string, std::string>{{"r0", "a.json"}, {"r1", "b.json"}}));
  EXPECT_EQ(o.merge.offset_ns, (std::map<std::string, TimeNs>{{"r1", -5 * kNsPerS}}));
  EXPECT_EQ(o.merge.rank_energy_j,
            (std::map<std::string, double>{{"r0", 560.0}, {"r1", 123.456789}}));
  EXPECT_EQ(o.merge.host_energy_j, (std::map<std::string, double>{{"n1", 683.456789}}));
  EXPECT_EQ(o.process.observed, "pid 77 and its descendants");
  EXPECT_EQ(o.process.static_share, StaticShare::kNone);
  EXPECT_EQ(o.run.idle_s, 0.5);
  EXPECT_EQ(o.run.interval_ms, 2.5);
  EXPECT_EQ(o.run.source, "rapl,simulated");
  EXPECT_EQ(o.run.sysfs_root, "/tmp/fake sysfs");
  EXPECT_EQ(o.sampler.period_ns,
            (std::map<std::string, TimeNs>{{"rapl", 1'000'000}, {"simulated", 10'000'000}}));
  EXPECT_EQ(o.sampler.thread_cpu_ns, 1'234'567);
  EXPECT_EQ(o.sampler.wall_ns, 2 * kNsPerS);
  EXPECT_EQ(o.sampler.polls, 18'446'744'073'709'551'615U);
  EXPECT_EQ(o.sampler.cpu_percent_of_one_core, 0.0617);
  EXPECT_EQ(o.sampler.memory_limit_bytes, 1U << 30);
  EXPECT_EQ(o.sources.names, (std::vector<std::string>{"rapl", "simulated"}));
  EXPECT_EQ(o.sources.unavailable,
            (std::map<std::string, std::string>{{"nvml", "libnvidia-ml.so.1 not found"}}));
  EXPECT_EQ(o.settings, (std::map<std::string, std::string>{{"estimate.tdp_w", "100"}}));
  EXPECT_EQ(o.torch.steps, 5);
  EXPECT_EQ(o.torch.warmup, 2);
  EXPECT_EQ(o.torch.samples_per_step, 32);
  EXPECT_EQ(o.torch.parameters, 110'000'000);
  EXPECT_EQ(o.torch.calibration, "calibration.json");
  EXPECT_EQ(o.trace.path, "trace.json");
  EXPECT_EQ(o.trace.format, TraceFormat::kSpanDump);
  EXPECT_EQ(o.trace.clock_mapping, "monotonic (span dump)");
  EXPECT_EQ(o.trace.offset_ns, 0);
  EXPECT_EQ(o.trace.backward_s, 0.123456789);
  EXPECT_EQ(o.trace.backward_linked_share, 1.0);
  EXPECT_EQ(o.trace.backward_module_share, 0.4);
  EXPECT_EQ(o.unknown, (Entries{{"interval", "10ms"}, {"sampler.future_figure", "7 units"}}));
}

TEST(RecordedOptions, WritesBackTheTextItRead) {
  const Result<RecordedOptions> read = recorded_options_from_entries(every_entry(), "p.json");
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(recorded_option_entries(*read), every_entry());
}

TEST(RecordedOptions, WritesNumbersWithTheDigitsTheyAlwaysHad) {
  RecordedOptions o;
  o.trace.backward_s = 0.12345678912345;
  o.trace.backward_linked_share = 0.12345678912345;
  o.merge.rank_energy_j["r0"] = 1.0 / 3.0;
  o.merge.host_energy_j["n1"] = 280.0;
  o.sampler.cpu_percent_of_one_core = 0.061749;
  o.run.idle_s = 1.0;
  o.auto_window.max_cv = 0.1 + 0.2;
  o.capi.record_spans = false;
  o.sources.names = std::vector<std::string>{};
  const Entries written = recorded_option_entries(o);
  EXPECT_EQ(written, (Entries{{"trace.backward_s", "0.123456789"},
                              {"trace.backward_linked_share", "0.123457"},
                              {"merge.rank_energy_j.r0", "0.333333333"},
                              {"merge.host_energy_j.n1", "280"},
                              {"sampler.cpu_percent_of_one_core", "0.0617"},
                              {"run.idle_s", "1"},
                              {"auto_window.max_cv", "0.30000000000000004"},
                              {"capi.record_spans", "false"},
                              {"sources", ""}}));
  const Result<RecordedOptions> read = recorded_options_from_entries(written, "p.json");
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(recorded_option_entries(*read), written);
  EXPECT_EQ(read->sources.names, std::vector<std::string>{});
}

TEST(RecordedOptions, EmptyFieldsWriteNoKey) {
  EXPECT_TRUE(recorded_option_entries(RecordedOptions{}).empty());
  const Result<RecordedOptions> read = recorded_options_from_entries({}, "p.json");
  ASSERT_TRUE(read);
  EXPECT_FALSE(read->idle.begin_ns);
  EXPECT_TRUE(read->unknown.empty());
}

TEST(RecordedOptions, AFieldWinsOverUnknownTextUnderItsKey) {
  RecordedOptions o;
  o.unknown["gated.preset"] = "stale";
  o.gated.preset = "fecom";
  EXPECT_EQ(recorded_option_entries(o), (Entries{{"gated.preset", "fecom"}}));
}

TEST(RecordedOptions, AValueNotOfItsFieldsTypeIsAnErrorNamingFileKeyAndValue) {
  for (const auto& [key, value] : Entries{{"idle.begin_ns", "12abc"},
                                          {"cluster.local_rank", "99999999999"},
                                          {"sampler.polls", "-1"},
                                          {"run.idle_s", "nan"},
                                          {"capi.record_spans", "yes"},
                                          {"process.static_share", "half"},
                                          {"trace.format", "perfetto"},
                                          {"epochs.first_begin", "yesterday"},
                                          {"attribution.window", "step"},
                                          {"merge.offset_ns.r1", "soon"}}) {
    const Result<RecordedOptions> read = recorded_options_from_entries({{key, value}}, "run.json");
    ASSERT_FALSE(read) << key;
    const std::string& message = read.error().message();
    EXPECT_EQ(message.find("run.json: field 'meta.options." + key + "' has value '" + value + "'"),
              0U)
        << message;
  }
}

TEST(RecordedOptions, ProfileJsonKeepsTheOptionsAndRefusesABadOne) {
  Profile p;
  p.meta.options.idle.begin_ns = 5;
  p.meta.options.process.static_share = StaticShare::kAll;
  p.meta.options.unknown["interval"] = "10ms";
  const std::string text = profile_to_json_string(p);
  EXPECT_EQ(nlohmann::json::parse(text)["meta"]["options"],
            (nlohmann::json{
                {"idle.begin_ns", "5"}, {"interval", "10ms"}, {"process.static_share", "all"}}));
  const Result<Profile> read = profile_from_json_string(text, "p.json");
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(read->meta.options.idle.begin_ns, 5);
  EXPECT_EQ(read->meta.options.process.static_share, StaticShare::kAll);
  EXPECT_EQ(profile_to_json_string(*read), text);

  nlohmann::json bad = nlohmann::json::parse(text);
  bad["meta"]["options"]["idle.begin_ns"] = "five";
  const Result<Profile> refused = profile_from_json_string(bad.dump(), "bad.json");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message(),
            "bad.json: field 'meta.options.idle.begin_ns' has value 'five': not an integer");
}

}  // namespace
}  // namespace jouleprof
