// The bad-input catalogue (docs/bad-input.md): hostile inputs tried through the jouleprof
// executable, one test per class of failure, each case asserting the exit code and the first line
// of the error (or of the warning). What jouleprof promises: one clear line naming the file, field
// and value, never a crash, never a silently impossible number.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/profile_json_text.hpp"
#include "jouleprof/profile.hpp"
#include "tools/jouleprof_runner.hpp"

namespace jouleprof {
namespace {

namespace fs = std::filesystem;
using ::jouleprof::testing::Invocation;
using ::jouleprof::testing::run_jouleprof;
using ::jouleprof::testing::TempDir;

// One hostile input: files written into a fresh directory, the command line ("{dir}" stands for
// that directory), the exit code, and what the first line of the error (stderr) says, or, for a
// case that must succeed with a warning, the first line that mentions a warning.
// (Every member has a default initialiser, so that a case may leave out the trailing ones.)
struct Case {
  std::string what{};
  std::map<std::string, std::string> files{};
  std::vector<std::string> args{};
  int exit_code = 1;
  std::string first_line{};
  bool warning = false;
  std::map<std::string, std::string> env{};
  std::function<void(const TempDir&, const Invocation&)> also{};  // further checks
  std::string marker = "warning:";  // what marks the line a warning case looks for
};

std::string replace_dir(std::string arg, const TempDir& dir) {
  for (std::size_t at = arg.find("{dir}"); at != std::string::npos; at = arg.find("{dir}")) {
    arg.replace(at, 5, dir.path().string());
  }
  return arg;
}

std::string first_line_with(const std::string& text, std::string_view marker) {
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    const std::string line = text.substr(begin, end - begin);
    if (line.find(marker) != std::string::npos) return line;
    begin = end + 1;
  }
  return {};
}

void check(const Case& c) {
  SCOPED_TRACE(c.what);
  TempDir dir;
  for (const auto& [name, content] : c.files) dir.write(name, content);
  std::vector<std::string> args;
  for (const std::string& a : c.args) args.push_back(replace_dir(a, dir));
  // The text view wraps at $COLUMNS: one warning per line here, so that a marker and its text
  // are found together.
  setenv("COLUMNS", "100000", 1);
  for (const auto& [name, value] : c.env) setenv(name.c_str(), value.c_str(), 1);
  const Invocation inv = run_jouleprof(args, dir);
  for (const auto& [name, value] : c.env) unsetenv(name.c_str());
  unsetenv("COLUMNS");
  EXPECT_EQ(inv.exit_code, c.exit_code) << "stdout:\n" << inv.out << "\nstderr:\n" << inv.err;
  const std::string line = c.warning ? first_line_with(inv.out + inv.err, c.marker)
                                     : inv.err.substr(0, inv.err.find('\n'));
  EXPECT_NE(line.find(replace_dir(c.first_line, dir)), std::string::npos)
      << "first line: " << line << "\nstderr:\n"
      << inv.err;
  // Whatever happened, no impossible number reached the user.
  for (const std::string& text : {inv.out, inv.err}) {
    for (const char* bad : {" nan", "-nan", " inf ", "e+19 J"}) {
      EXPECT_EQ(text.find(bad), std::string::npos) << bad << " in:\n" << text;
    }
  }
  if (c.also) c.also(dir, inv);
}

// A span dump with one track and the spans given as [begin_ns, end_ns, name index, parent].
std::string span_dump(const std::vector<std::string>& names,
                      const std::vector<std::array<long long, 4>>& spans) {
  std::string text =
      R"({"format":"jouleprof-spans","version":1,"clock":"CLOCK_MONOTONIC","names":[)";
  for (std::size_t i = 0; i < names.size(); ++i) text += (i ? ",\"" : "\"") + names[i] + "\"";
  text += R"(],"tracks":[{"kind":"cpu-thread","name":"t","device":"cpu0"}],"attributes":[],)";
  text += R"("spans":[)";
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const auto& s = spans[i];
    text += fmt::format("{}[{},{},0,{},{},-1,3,0]", i ? "," : "", s[0], s[1], s[2], s[3]);
  }
  return text + R"(],"marks":[]})";
}

constexpr long long kS = 1'000'000'000;

// One span over [1 s, 21 s] and a counter "cpu" read every second from 0 s to 22 s.
std::string one_long_span() { return span_dump({"work"}, {{1 * kS, 21 * kS, 0, -1}}); }

std::string counter_csv(const std::vector<double>& joules_per_second) {
  std::string text = "t_ns,channel,kind,value\n";
  for (std::size_t i = 0; i < joules_per_second.size(); ++i) {
    text +=
        fmt::format("{},cpu,energy_j,{}\n", static_cast<long long>(i) * kS, joules_per_second[i]);
  }
  return text;
}

// A power meter "meter" read every second from 0 s.
std::string meter_csv(const std::vector<double>& watts) {
  std::string text = "t_ns,channel,kind,value\n";
  for (std::size_t i = 0; i < watts.size(); ++i) {
    text += fmt::format("{},meter,power_w,{}\n", static_cast<long long>(i) * kS, watts[i]);
  }
  return text;
}

std::vector<double> steady_counter(std::size_t n) {
  std::vector<double> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(static_cast<double>(i));
  return v;
}

double tree_energy(const TempDir& dir) {
  const Result<Profile> p = read_profile_json((dir.path() / "out" / "profile.json").string());
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
  return p.ok() && p->tree ? p->tree->energy_j : -1.0;
}

// A fake powercap zone whose counter the measured command rewrites while it runs.
Case live_rapl_case(std::string what, std::string start_uj, std::string next_uj,
                    std::string max_range = "262143328850") {
  const std::string zone = "root/sys/class/powercap/intel-rapl:0/";
  Case c;
  c.what = std::move(what);
  c.files = {{zone + "name", "package-0\n"},
             {zone + "energy_uj", start_uj + "\n"},
             {zone + "max_energy_range_uj", max_range + "\n"}};
  c.args = {"run",
            "--sysfs-root",
            "{dir}/root",
            "--source",
            "rapl-powercap",
            "--no-history",
            "--output",
            "{dir}/out",
            "--",
            "sh",
            "-c",
            "sleep 0.3; echo " + next_uj + " > {dir}/" + zone + "energy_uj; sleep 0.3"};
  c.exit_code = 0;
  c.warning = true;
  c.first_line = "counter went backwards";
  c.also = [](const TempDir& dir, const Invocation&) {
    const Result<Profile> p = read_profile_json((dir.path() / "out" / "profile.json").string());
    ASSERT_TRUE(p.ok());
    // Nothing was consumed (the counter never advanced): not 262 kJ of a made-up wrap.
    EXPECT_LT(p->total_energy_j(), 1.0);
    EXPECT_GE(p->total_energy_j(), 0.0);
  };
  return c;
}

TEST(BadInputCatalogue, CountersThatGoBackwardsOrJumpAreNotBelieved) {
  std::vector<double> reset = steady_counter(11);  // 0 … 10 J, then a reset by −9 J
  for (int k = 1; k <= 12; ++k) reset.push_back(k);
  std::vector<double> stale = steady_counter(23);
  stale[6] = 4.9;  // one read steps back
  std::vector<double> huge = steady_counter(23);
  huge[8] = 1e308;
  std::vector<double> absurd_power(23, 5.0);
  absurd_power[5] = 1e9;
  const std::string nvml_header = "t_ns,instant_mw,instant_nvml_ts_us,avg_mw,energy_mj\n";
  std::string nvml_log = nvml_header;
  for (int i = 0; i <= 22; ++i) {
    const double mj = i == 7 ? 5500.0 : 1000.0 * i;  // the counter read steps back once
    nvml_log += fmt::format("{},1000,0,1000,{}\n", static_cast<long long>(i) * kS, mj);
  }
  const std::vector<Case> cases = {
      live_rapl_case("a RAPL zone reset to 0 with the real 262 143 328 850 µJ range", "5000000000",
                     "0"),
      live_rapl_case("a RAPL zone stepping back by 1 µJ", "5000000000", "4999999999"),
      {"samples.csv: a counter reset by −9 J",
       {{"trace.json", one_long_span()}, {"samples.csv", counter_csv(reset)}},
       {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/samples.csv", "--output",
        "{dir}/out"},
       0,
       "counter went backwards (1 J after 10 J)",
       true,
       {},
       [](const TempDir& dir, const Invocation&) {
         // 20 s at 1 W inside the span, less the second of the reset: not 11 J.
         EXPECT_NEAR(tree_energy(dir), 20.0, 1.0 + 1e-9);
       }},
      {"samples.csv: one counter read stepping back",
       {{"trace.json", one_long_span()}, {"samples.csv", counter_csv(stale)}},
       {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/samples.csv", "--output",
        "{dir}/out"},
       0,
       "counter went backwards (4.9 J after 5 J)",
       true,
       {},
       [](const TempDir& dir, const Invocation&) {
         EXPECT_NEAR(tree_energy(dir), 20.0, 1e-6);  // a stale read costs nothing
       }},
      {"samples.csv: a counter jumping to 1e308",
       {{"trace.json", one_long_span()}, {"samples.csv", counter_csv(huge)}},
       {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/samples.csv", "--output",
        "{dir}/out"},
       0,
       "absurd counter value",
       true,
       {},
       [](const TempDir& dir, const Invocation&) { EXPECT_NEAR(tree_energy(dir), 20.0, 1e-6); }},
      {"samples.csv: negative power on a meter",
       {{"trace.json", one_long_span()},
        {"samples.csv",
         "t_ns,channel,kind,value\n0,meter,power_w,5\n5000000000,meter,power_w,-40\n"
         "10000000000,meter,power_w,5\n22000000000,meter,power_w,5\n"}},
       {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/samples.csv"},
       0,
       "negative power (-40 W)",
       true},
      {"samples.csv: a power reading above any machine's draw",
       {{"trace.json", one_long_span()}, {"samples.csv", meter_csv(absurd_power)}},
       {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/samples.csv", "--output",
        "{dir}/out"},
       0,
       "above the 20000 W ceiling",
       true,
       {},
       [](const TempDir& dir, const Invocation&) {
         // 5 W over the span's 20 s, less the two seconds around the reading left out.
         EXPECT_NEAR(tree_energy(dir), 90.0, 1e-6);
       }},
      {"samples.csv: the only power reading inside the span above any machine's draw",
       {{"trace.json", one_long_span()},
        {"samples.csv",
         "t_ns,channel,kind,value\n0,meter,power_w,5\n5000000000,meter,power_w,1e9\n"
         "22000000000,meter,power_w,5\n"}},
       {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/samples.csv"},
       1,
       "gap(s) there (the first: power of 1000000000 W, above the 20000 W ceiling"},
      {"an NVML poll log whose counter read steps back",
       {{"trace.json", one_long_span()}, {"nvml.csv", nvml_log}},
       {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/nvml.csv",
        "--channel-device", "nvml:gpu0:energy=cpu0", "--output", "{dir}/out"},
       0,
       "counter went backwards (5.5 J after 6 J)",
       true,
       {},
       [](const TempDir& dir, const Invocation&) {
         const Result<Profile> p =
             read_profile_json((dir.path() / "out" / "profile.json").string());
         ASSERT_TRUE(p.ok());
         EXPECT_NEAR(p->tree->energy_by_channel_j.at("nvml:gpu0:energy"), 20.0, 1e-6);
       }},
      {"a RAPL zone whose max_energy_range_uj is 0",
       {{"root/sys/class/powercap/intel-rapl:0/name", "package-0\n"},
        {"root/sys/class/powercap/intel-rapl:0/energy_uj", "1000\n"},
        {"root/sys/class/powercap/intel-rapl:0/max_energy_range_uj", "0\n"}},
       {"sensors", "--sysfs-root", "{dir}/root", "--source", "rapl-powercap", "--duration", "0.05"},
       0,
       "note: rapl-powercap: intel-rapl:0: max_energy_range_uj is 0, which is no range",
       true,
       {},
       {},
       "note:"},
  };
  for (const Case& c : cases) check(c);
}

// A profile whose tree is one chain `levels` deep, each level holding all the energy.
std::string deep_profile(const TempDir& dir, int levels) {
  Profile p;
  p.meta.kind = "attribute";
  ProfileNode root;
  root.name = "run";
  ProfileNode* at = &root;
  for (int i = 0; i < levels; ++i) {
    at->energy_j = 1.0;
    at->children.emplace_back();
    at = &at->children.back();
    at->name = fmt::format("level_{}", i);
  }
  at->energy_j = 1.0;
  at->self_energy_j = 1.0;
  p.tree = std::move(root);
  const std::string path = (dir.path() / "deep.json").string();
  EXPECT_TRUE(write_profile_json(p, path).ok());
  return path;
}

TEST(BadInputCatalogue, WorkIsBoundedByTheInputNotTheStack) {
  std::vector<std::array<long long, 4>> nested;
  for (long long i = 0; i < 10'000; ++i) nested.push_back({1 * kS + i, 21 * kS - i, 0, i - 1});
  std::string slashes = "a";
  for (int i = 0; i < 50'000; ++i) slashes += "/b";
  // 64 bytes of gzip whose trailer claims 4 GiB of text.
  std::string bomb = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03";
  bomb += std::string("\x4b\x4c\x4a\x06\x00", 5);
  bomb.resize(60, '\0');
  bomb += std::string("\xff\xff\xff\xff", 4);
  const std::string steady = counter_csv(steady_counter(23));
  const std::
      vector<Case>
          cases =
              {
                  {"10 000 nested spans, with --output",
                   {{"trace.json", span_dump({"s"}, nested)}, {"samples.csv", steady}},
                   {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/samples.csv",
                    "--output", "{dir}/out"},
                   0,
                   "profile written to {dir}/out/profile.json",
                   true,
                   {},
                   [](const TempDir& dir, const Invocation&) {
                     EXPECT_NEAR(tree_energy(dir), 20.0, 1e-6);
                   },
                   "written to"},
                  {"a span name with 50 000 '/' levels",
                   {{"trace.json", span_dump({slashes}, {{1 * kS, 21 * kS, 0, -1}})},
                    {"samples.csv", steady}},
                   {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/samples.csv",
                    "--output", "{dir}/out"},
                   0,
                   "profile written to {dir}/out/profile.json",
                   true,
                   {},
                   {},
                   "written to"},
                  {"a 64-byte gzip whose trailer claims 4 GiB",
                   {{"trace.json.gz", bomb}, {"samples.csv", steady}},
                   {"attribute", "--trace", "{dir}/trace.json.gz", "--samples",
                    "{dir}/samples.csv"},
                   1,
                   "{dir}/trace.json.gz: "},
                  {"a profile whose spans' parents form a cycle",
                   {{"cycle.json",
                     R"({"schema":"jouleprof.profile","schema_version":1,"meta":{"tool_version":"x","kind":"run","command":[],"host":"h","rank":null,"world_size":null,"anchor":{"monotonic_ns":0,"realtime_ns":0},"begin_ns":0,"end_ns":1,"exit_code":null,"partial":false,"options":{},"grid_intensity_g_per_kwh":null},"series":[],"channels":[],"timeline":{"names":["a"],"tracks":[{"kind":"cpu-thread","name":"t","device":"cpu0"}],"spans":[[0,1,0,0,1,-1,0,0],[0,1,0,0,0,-1,0,0]],"marks":[],"attributes":[]},"tree":null,"attribution":[],"warnings":[]})"}},
                   {"report", "{dir}/cycle.json"},
                   1,
                   "field 'timeline.spans[0]' is its own ancestor"},
                  {"a profile whose tree holds a node that is not an object",
                   {{"bad_node.json", R"({"schema":"jouleprof.profile","schema_version":1,"meta":{"tool_version":"x","kind":"run","command":[],"host":"h","rank":null,"world_size":null,"anchor":{"monotonic_ns":0,"realtime_ns":0},"begin_ns":0,"end_ns":1,"exit_code":null,"partial":false,"options":{},"grid_intensity_g_per_kwh":null},"series":[],"channels":[],"timeline":{"names":[],"tracks":[],"spans":[],"marks":[],"attributes":[]},"tree":{"calls":1,"category":"region","children":[[[[1]]]],"dynamic_energy_j":null,"energy_by_channel_j":{},"energy_j":1,"energy_stats":null,"name":"run","pass":"none","provenance":"measured","self_energy_j":1,"self_time_ns":0,"static_energy_j":null,"time_ns":0},"attribution":[],"warnings":[]})"}},
                   {"report", "{dir}/bad_node.json"},
                   1,
                   "field 'tree[run].children' holds a node that is not an object (an array of 1 "
                   "element)"},
              };
  for (const Case& c : cases) check(c);

  // A 5 000-level tree: reported with its depth shown, not 5 000 × 2 spaces of indentation.
  TempDir dir;
  const std::string deep = deep_profile(dir, 5000);
  Invocation inv = run_jouleprof({"report", deep, "--depth", "-1", "--full"}, dir);
  EXPECT_EQ(inv.exit_code, 0) << inv.err;
  EXPECT_NE(inv.out.find("[depth 5000] level_4999"), std::string::npos);
  inv = run_jouleprof({"report", deep, "--format", "csv"}, dir);
  EXPECT_EQ(inv.exit_code, 0) << inv.err;
  EXPECT_NE(inv.out.find("…4937 levels…/level_4936/"), std::string::npos);
  for (const char* format : {"html", "flamegraph", "json", "trace"}) {
    EXPECT_EQ(run_jouleprof({"report", deep, "--format", format}, dir).exit_code, 0) << format;
  }
}

// Class 3 of issue 30: an error quotes at most 80 bytes of the bad value, escaped, with its
// size; a 1 MB line of NUL bytes gives one short line, not a megabyte of stderr.
TEST(BadInputCatalogue, AnErrorQuotesABoundedExcerpt) {
  Case nul_samples{"a --samples file of NUL bytes",
                   {{"nul.csv", std::string(1 << 20, '\0')}},
                   {"attribute", "--samples", "{dir}/nul.csv"},
                   1,
                   "jouleprof: {dir}/nul.csv:1: field 'header' has value '\\0\\0"};
  nul_samples.also = [](const TempDir&, const Invocation& inv) {
    EXPECT_LT(inv.err.size(), 400u) << inv.err.size() << " bytes of stderr";
    EXPECT_NE(inv.err.find("…' (1048576 bytes)"), std::string::npos) << inv.err;
  };
  check(nul_samples);
}

// jouleprof's peak resident memory in KiB when run with `args` (its output goes to `dir` as
// run_jouleprof leaves it): the run happens in a child of this test, whose RUSAGE_CHILDREN then
// counts jouleprof alone, not the cases run before.
long jouleprof_peak_rss_kib(const std::vector<std::string>& args, const TempDir& dir) {
  int result[2];
  if (pipe(result) != 0) return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    close(result[0]);
    run_jouleprof(args, dir);
    rusage usage{};
    getrusage(RUSAGE_CHILDREN, &usage);
    const long kib = usage.ru_maxrss;
    _exit(write(result[1], &kib, sizeof kib) == sizeof kib ? 0 : 1);
  }
  close(result[1]);
  long kib = -1;
  if (pid < 0 || read(result[0], &kib, sizeof kib) != sizeof kib) kib = -1;
  close(result[0]);
  if (pid > 0) waitpid(pid, nullptr, 0);
  return kib;
}

// Class 3 of issue 30: a line-oriented file is read a line at a time and refused at its first bad
// line, so garbage fails at once in little memory however large the file (1 GB of NUL bytes took
// 2.1 GB before it was refused). 64 MiB stands in for the gigabyte.
TEST(BadInputCatalogue, AFileOfGarbageFailsAtItsFirstBadLineInBoundedMemory) {
  constexpr std::size_t kGarbageBytes = std::size_t{64} << 20;
  TempDir dir;
  {
    std::ofstream nul(dir.path() / "nul.csv", std::ios::binary);
    std::ofstream junk(dir.path() / "junk.csv", std::ios::binary);
    junk << "t_ns,channel,kind,value\n";
    const std::string nul_block(1 << 20, '\0');
    std::string junk_block;
    while (junk_block.size() < nul_block.size()) junk_block += "garbage\n";
    for (std::size_t written = 0; written < kGarbageBytes; written += nul_block.size()) {
      nul << nul_block;
      junk << junk_block;
    }
  }
  dir.write("small.csv", "garbage\n");
  const long baseline_kib =
      jouleprof_peak_rss_kib({"attribute", "--samples", (dir.path() / "small.csv").string()}, dir);
  ASSERT_GT(baseline_kib, 0);
  std::string nuls_quoted;  // the first 80 bytes, escaped
  for (int i = 0; i < 80; ++i) nuls_quoted += "\\0";
  const struct {
    std::string file;
    std::string first_line;
  } cases[] = {
      {"nul.csv", "nul.csv: field 'line 1' has value '" + nuls_quoted +
                      "…' (1048576 bytes): goes on past 1048576 bytes (1 MiB), the longest line "
                      "jouleprof reads (line 1 starts at byte 0)"},
      {"junk.csv",
       "junk.csv:2: field 'line' has value 'garbage': expected 4 fields, found 1 (line 2 starts "
       "at byte 24)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const long peak_kib =
        jouleprof_peak_rss_kib({"attribute", "--samples", (dir.path() / c.file).string()}, dir);
    const std::string err = ::jouleprof::testing::read_file(dir.path() / "stderr");
    EXPECT_EQ(err.substr(0, err.find('\n')),
              fmt::format("jouleprof: {}/{}", dir.path().string(), c.first_line));
    EXPECT_LT(err.size(), 600u) << "bytes of stderr";
    EXPECT_LT(peak_kib - baseline_kib, 32 * 1024)
        << "KiB over a one-line file (" << baseline_kib << " KiB), reading " << kGarbageBytes
        << " bytes of garbage";
  }
}

// Class 5 of issue 30: control characters from input (a command line, span names, warnings)
// reach neither the terminal nor the text view raw; they are shown as escapes.
TEST(BadInputCatalogue, InputNeverReachesTheTerminalRaw) {
  TempDir dir;
  const std::string hostile =
      "title\x1b]0;pwned\x07\x1b[2J\xc2\x9b"
      "31m";
  const Invocation run =
      run_jouleprof({"run", "--simulate", "5", "--no-history", "--output",
                     (dir.path() / "out").string(), "--", "sh", "-c", "true", hostile},
                    dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const Invocation report =
      run_jouleprof({"report", (dir.path() / "out" / "profile.json").string()}, dir);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  for (const std::string& text : {run.out, run.err, report.out, report.err}) {
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
    EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
    EXPECT_EQ(text.find("\xc2\x9b"), std::string::npos) << text;
  }
  // run reports on stderr: the command's stdout stays its own.
  EXPECT_NE(run.err.find("title\\x1b]0;pwned\\x07\\x1b[2J\\u009b31m"), std::string::npos)
      << run.err;
  EXPECT_NE(report.out.find("title\\x1b]0;pwned"), std::string::npos) << report.out;
}

TEST(BadInputCatalogue, RunKeepsWhatItMeasured) {
  TempDir dir;
  const fs::path marker = dir.path() / "ran";
  const Case output_is_a_file{"run --output naming an existing file",
                              {{"taken", "a file, not a directory\n"}},
                              {"run", "--simulate", "5", "--no-history", "--output", "{dir}/taken",
                               "--", "touch", marker.string()},
                              1,
                              "jouleprof: --output {dir}/taken: exists and is not a directory"};
  check(output_is_a_file);
  EXPECT_FALSE(fs::exists(marker)) << "the command must not run when its results cannot be kept";

  const Case not_found{
      "run of a command that does not exist",
      {},
      {"run", "--simulate", "5", "--no-history", "--output", "{dir}/out", "--", "/nonexistent"},
      127,
      "cannot run '/nonexistent'",
      false,
      {},
      [](const TempDir& d, const Invocation&) {
        EXPECT_FALSE(fs::exists(d.path() / "out")) << "no empty run left";
      }};
  check(not_found);

  // Every catchable terminating signal ends the run with 128+N and a partial profile.
  for (int sig : {SIGHUP, SIGUSR1, SIGALRM, SIGTERM}) {
    SCOPED_TRACE(sig);
    TempDir run_dir;
    const fs::path ready = run_dir.path() / "ready";
    const std::string script = "trap 'exit 42' TERM; touch " +
                               ::jouleprof::testing::shell_quote(ready.string()) +
                               "; while true; do sleep 0.05; done";
    Result<ChildProcess> jp = ::jouleprof::testing::start_jouleprof(
        {"run", "--simulate", "5", "--no-history", "--output", (run_dir.path() / "run").string(),
         "--", "sh", "-c", script},
        run_dir);
    ASSERT_TRUE(jp.ok());
    while (!fs::exists(ready)) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(kill(jp->pid(), sig), 0);
    const Invocation inv = ::jouleprof::testing::finish(*jp, run_dir);
    EXPECT_EQ(inv.exit_code, 128 + sig) << inv.err;
    const Result<Profile> p = read_profile_json((run_dir.path() / "run" / "profile.json").string());
    ASSERT_TRUE(p.ok()) << inv.err;
    EXPECT_TRUE(p->meta.partial);
    EXPECT_FALSE(p->series.empty());
    // Among the warnings (a busy machine adds its own before it), the one naming the signal.
    EXPECT_NE(first_line_with(inv.err, fmt::format("warning: jouleprof received signal {}", sig)),
              "")
        << inv.err;
  }
}

std::string nvidia_smi_log() {
  std::string text = "timestamp, name, power.draw [W]\n";
  for (int i = 0; i < 40; ++i) {
    text += fmt::format("2024/01/02 10:00:{:02d}.000, NVIDIA GeForce RTX 3090, 300.0 W\n", i);
  }
  return text;
}

std::string pre_table(const std::string& batch_column) {
  std::string text =
      "batch_size,ram_gb,training_size,validation_size,gflops,gpu,epochs,"
      "duration_s,energy_j,input_height\n";
  for (int i = 0; i < 12; ++i) {
    text += fmt::format("{},{},{},200,{},RTX 3090,{},{},{},224\n", batch_column, 4 + i % 3,
                        1000 + 100 * i, 0.5 + 0.1 * i, 10 + i, 600 + 30 * i, 120000 + 9000 * i);
  }
  return text;
}

TEST(BadInputCatalogue, NumbersAndNamesThatMakeNoSenseAreRefused) {
  const std::string trace = "{dir}/gpu.csv";
  const std::map<std::string, std::string> log{{"gpu.csv", nvidia_smi_log()}};
  const std::map<std::string, std::string> tree_over_100{
      {"over.json",
       R"({"schema":"jouleprof.profile","schema_version":1,"meta":{"tool_version":"x","kind":"run","command":[],"host":"h","rank":null,"world_size":null,"anchor":{"monotonic_ns":0,"realtime_ns":0},"begin_ns":0,"end_ns":1,"exit_code":null,"partial":false,"options":{},"grid_intensity_g_per_kwh":null},"series":[],"channels":[],"timeline":{"names":[],"tracks":[],"spans":[],"marks":[],"attributes":[]},"tree":{"calls":1,"category":"region","children":[{"calls":1,"category":"op","children":[],"dynamic_energy_j":null,"energy_by_channel_j":{},"energy_j":45.45,"energy_stats":null,"name":"gemm","pass":"none","provenance":"measured","self_energy_j":45.45,"self_time_ns":0,"static_energy_j":null,"time_ns":0}],"dynamic_energy_j":null,"energy_by_channel_j":{},"energy_j":1,"energy_stats":null,"name":"run","pass":"none","provenance":"measured","self_energy_j":0,"self_time_ns":0,"static_energy_j":null,"time_ns":0},"attribution":[],"warnings":[]})"}};
  const std::vector<Case> cases = {
      {"run --interval nan",
       {},
       {"run", "--interval", "nan", "--", "true"},
       2,
       "--interval: must be a finite number from 0.01 to 60000, got 'nan'"},
      {"run --idle inf", {}, {"run", "--idle", "inf", "--", "true"}, 2, "got 'inf'"},
      {"run --grid-intensity -1",
       {},
       {"run", "--grid-intensity", "-1", "--", "true"},
       2,
       "must be a finite number from 0 to 10000 g/kWh (ten times a lignite plant's 1 000), got "
       "'-1'"},
      {"JOULEPROF_GRID_INTENSITY=inf",
       {},
       {"run", "--simulate", "5", "--no-history", "--output", "{dir}/out", "--", "true"},
       1,
       "JOULEPROF_GRID_INTENSITY: field 'g/kWh' has value 'inf': is not a finite number",
       false,
       {{"JOULEPROF_GRID_INTENSITY", "inf"}}},
      {"JOULEPROF_GRID_INTENSITY=1e300",
       {},
       {"run", "--simulate", "5", "--no-history", "--output", "{dir}/out", "--", "true"},
       1,
       "JOULEPROF_GRID_INTENSITY: field 'g/kWh' has value '1e+300': is above 10000 g/kWh (ten "
       "times a lignite plant's 1 000)",
       false,
       {{"JOULEPROF_GRID_INTENSITY", "1e300"}}},
      {"attribute --idle-w nan",
       {},
       {"attribute", "--trace", "t", "--samples", "s", "--idle-w", "nan"},
       2,
       "--idle-w: must be a finite number from 0 to 20000 W (the most one device draws), got "
       "'nan'"},
      {"serve --duration inf", {}, {"serve", "--duration", "inf"}, 2, "got 'inf'"},
      {"burn --seconds nan", {}, {"burn", "--seconds", "nan"}, 2, "got 'nan'"},
      {"sensors --duration -1", {}, {"sensors", "--duration", "-1"}, 2, "got '-1'"},
      // Counts that size an allocation or a loop are refused at once, with their bound.
      {"train-predictor --trees 2000000000",
       {{"kernels.csv", "id,OP,energy_mJ,HW,KERNEL_SIZE,STRIDES,CIN,COUT\n"}},
       {"train-predictor", "--kernels", "{dir}/kernels.csv", "--trees", "2000000000"},
       2,
       "--trees: must be a whole number from 1 to 100000, got '2000000000'"},
      {"run --epochs 2000000000",
       {},
       {"run", "--epochs", "2000000000", "--", "true"},
       2,
       "--epochs: must be a whole number from 1 to 1000000, got '2000000000'"},
      {"project --epochs 2e9",
       log,
       {"project", "--trace", trace, "--epochs", "2e9"},
       2,
       "--epochs: must be a whole number from 1 to 1000000, got '2e9'"},
      {"measure --repeat 1e12",
       {},
       {"measure", "--repeat", "1e12", "--", "true"},
       2,
       "--repeat: must be a whole number from 1 to 10000000, got '1e12'"},
      {"measure --warmup 2.5", {}, {"measure", "--warmup", "2.5", "--", "true"}, 2, "got '2.5'"},
      // Seconds past 100 years have no 64-bit nanoseconds (s_to_ns would be undefined behaviour).
      {"project --duration 1e308",
       log,
       {"project", "--trace", trace, "--epochs", "10", "--duration", "1e308"},
       2,
       "--duration: must be a finite number of seconds above 0 and at most 3150000000 (100 "
       "years), got '1e308'"},
      {"measure --tail-wait 1e12",
       {},
       {"measure", "--tail-wait", "1e12", "--", "true"},
       2,
       "--tail-wait: must be a finite number of seconds from 0 to 3150000000 (100 years), got "
       "'1e12'"},
      {"serve --duration 1e12", {}, {"serve", "--duration", "1e12"}, 2, "got '1e12'"},
      // Below the exporter's floor the interval would be raised to 10 ms without a word.
      {"serve --interval below 10 ms",
       {},
       {"serve", "--interval", "1e-9"},
       2,
       "--interval: must be a finite number of milliseconds: 0 (the sources' own period) or from "
       "10 to 3150000000000 (100 years), got '1e-9'"},
      {"burn --seconds 1e12",
       {},
       {"burn", "--seconds", "1e12"},
       2,
       "--seconds: must be a finite number from 0 to 86400, got '1e12'"},
      {"estimate predict --batch -5",
       {},
       {"estimate", "predict", "--model", "m", "--batch", "-5", "--gflops", "1", "--gpu", "x",
        "--ram-gb", "1", "--train-size", "1", "--val-size", "1"},
       2,
       "--batch: must be a finite number above 0, got '-5'"},
      {"project --stability-cv nan",
       log,
       {"project", "--trace", trace, "--epochs", "10", "--stability-cv", "nan"},
       2,
       "--stability-cv: must be a finite number of at least 0, got 'nan'"},
      {"project --ram-w-per-gb -1",
       log,
       {"project", "--trace", trace, "--epochs", "10", "--ram-w-per-gb", "-1"},
       2,
       "got '-1'"},
      {"a GPU name that fits two entries",
       log,
       {"project", "--trace", trace, "--epochs", "10", "--gpu", "A100"},
       0,
       "is ambiguous in the built-in table: it could be A100-SXM4-40GB, A100-SXM4-80GB",
       true,
       {},
       {},
       "no GPU specifications"},
      {"a GPU name that only begins like another GPU's",
       log,
       {"project", "--trace", trace, "--epochs", "10", "--gpu", "RTX 3080 Ti"},
       0,
       "GPU 'RTX 3080 Ti' is not in the built-in table (similar: GeForce RTX 2080 Ti, GeForce "
       "RTX 3070, GeForce RTX 3080",
       true,
       {},
       {},
       "no GPU specifications"},
      {"a GPU specs file with a negative TDP",
       {{"gpu.csv", nvidia_smi_log()},
        {"specs.csv", "name,cuda_cores,memory_gb,tdp_w,fp32_tflops\nY,1,2,-3,4\n"}},
       {"project", "--trace", trace, "--epochs", "10", "--gpu-specs", "{dir}/specs.csv"},
       1,
       "{dir}/specs.csv:2: field 'tdp_w' has value '-3': must be a positive number"},
      {"a PRE table with a negative batch size",
       {{"runs.csv", pre_table("-32")}},
       {"estimate", "train", "--data", "{dir}/runs.csv", "--output", "{dir}/model"},
       1,
       "{dir}/runs.csv:2: field 'batch_size' has value '-32': must be positive"},
      {"a PRE table with a constant column, then a prediction",
       {{"runs.csv", pre_table("32")}},
       {"estimate", "train", "--data", "{dir}/runs.csv", "--output", "{dir}/model", "--iterations",
        "4", "--folds", "3"},
       0,
       "",
       false,
       {},
       [](const TempDir& dir, const Invocation&) {
         const Invocation p =
             run_jouleprof({"estimate", "predict", "--model", (dir.path() / "model").string(),
                            "--batch", "64", "--gflops", "1", "--gpu", "RTX 3090", "--ram-gb", "5",
                            "--train-size", "1500", "--val-size", "200", "--epochs", "10"},
                           dir);
         EXPECT_EQ(p.exit_code, 0) << p.err;
         EXPECT_NE(p.err.find("feature batch_size was 32 in every training run"), std::string::npos)
             << p.err;
         EXPECT_EQ(p.out.find("e+1"), std::string::npos) << "no ±1e19 J: " << p.out;
       }},
      {"an empty ONNX model",
       {{"model.onnx", ""}},
       {"predict", "--model", "{dir}/model.onnx", "--predictor", "{dir}"},
       1,
       "{dir}/model.onnx: field 'ModelProto' has value '': the file is empty"},
      {"an empty model JSON",
       {{"model.json", "{}"}},
       {"predict", "--model", "{dir}/model.json", "--predictor", "{dir}"},
       1,
       "{dir}/model.json"},
      {"a calibration class with negative power",
       {{"trace.json", one_long_span()},
        {"samples.csv", counter_csv(steady_counter(23))},
        {"cal.json",
         R"({"format": "jouleprof-calibration", "version": 1, "provenance": "p", "classes": [{"match": "a", "power_w": -5}]})"}},
       {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/samples.csv",
        "--calibration", "{dir}/cal.json"},
       1,
       "{dir}/cal.json: field 'classes[0].power_w'"},
      {"a tree whose children hold 4 545 % of their parent",
       tree_over_100,
       {"report", "{dir}/over.json"},
       0,
       "jouleprof: warning: {dir}/over.json: 1 tree node(s) whose children hold more energy than "
       "the node",
       true,
       {},
       [](const TempDir& dir, const Invocation&) {
         // In every format, not only on stderr.
         for (const char* format : {"text", "html", "flamegraph", "json", "trace"}) {
           const Invocation r = run_jouleprof(
               {"report", (dir.path() / "over.json").string(), "--format", format}, dir);
           EXPECT_NE(r.out.find("the tree does not sum"), std::string::npos) << format;
         }
       },
       "jouleprof: warning:"},
  };
  for (const Case& c : cases) check(c);
}

int listening_port() {
  static int fd = [] {
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(s, reinterpret_cast<sockaddr*>(&address), sizeof address);
    listen(s, 1);
    return s;
  }();
  sockaddr_in bound{};
  socklen_t length = sizeof bound;
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
  return ntohs(bound.sin_port);
}

// A rank's profile of one second on `host`, its anchor putting the host's boot `boot_ns` after
// the epoch.
std::string rank_profile(int rank, int world_size, const std::string& host, TimeNs boot_ns) {
  Profile p;
  p.meta.kind = "run";
  p.meta.rank = rank;
  p.meta.world_size = world_size;
  p.meta.host = host;
  p.meta.anchor = ClockAnchor{10 * kNsPerS, boot_ns + 10 * kNsPerS};
  p.meta.begin_ns = 10 * kNsPerS;
  p.meta.end_ns = 11 * kNsPerS;
  return profile_to_json_string(p);
}

constexpr TimeNs kBoot = 1'700'000'000 * kNsPerS;

// Class 4 (wrapped integers) and class 9 (silent choices) of `merge`: a damaged anchor is refused
// where it would date a rank's times centuries away, and ranks that cannot be of one run are
// warned of.
TEST(BadInputCatalogue, MergeRefusesDamagedClocksAndWarnsOfRanksThatDisagree) {
  const std::vector<Case> cases = {
      {"merge with a rank's anchor at -9e18",
       {{"r0.json", rank_profile(0, 2, "n1", kBoot)},
        {"r1.json", rank_profile(1, 2, "n2", -9'000'000'000'000'000'000)}},
       {"merge", "{dir}/r0.json", "{dir}/r1.json", "--output", "{dir}/m.json"},
       1,
       "{dir}/r1.json: field 'meta.anchor' has value 'realtime_ns"},
      {"merge of rank -5",
       {{"r0.json", rank_profile(0, 2, "n1", kBoot)},
        {"r1.json", rank_profile(-5, 2, "n2", kBoot)}},
       {"merge", "{dir}/r0.json", "{dir}/r1.json", "--output", "{dir}/m.json"},
       1,
       "{dir}/r1.json: field 'meta.rank' has value '-5': is not a rank"},
      {"merge with a host's clock an hour ahead",
       {{"r0.json", rank_profile(0, 2, "n1", kBoot)},
        {"r1.json", rank_profile(1, 2, "n2", kBoot + 3600 * kNsPerS)}},
       {"merge", "{dir}/r0.json", "{dir}/r1.json", "--output", "{dir}/m.json"},
       0,
       "r1 begins 60 min 00 s after r0 on the common clock",
       true},
      {"merge of mismatched world sizes",
       {{"r0.json", rank_profile(0, 2, "n1", kBoot)}, {"r1.json", rank_profile(1, 4, "n2", kBoot)}},
       {"merge", "{dir}/r0.json", "{dir}/r1.json", "--output", "{dir}/m.json"},
       0,
       "the profiles disagree on the job's world size (2, 4)",
       true},
  };
  for (const Case& c : cases) check(c);
}

TEST(BadInputCatalogue, AClockOffsetThatWouldWrapTheTimesIsRefused) {
  check({"attribute --offset-ns INT64_MAX",
         {{"trace.json", one_long_span()}, {"samples.csv", counter_csv(steady_counter(23))}},
         {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/samples.csv",
          "--offset-ns", "9223372036854775807"},
         1,
         "{dir}/trace.json: the trace's times, moved by its clock offset (offset "
         "9223372036854775807 ns given explicitly), leave what 64 bits of ns can count"});
}

TEST(BadInputCatalogue, WeakAnswersSayWhatIsWrong) {
  const std::string steady = counter_csv(steady_counter(23));
  const std::vector<Case> cases = {
      {"a directory given as the samples file",
       {{"trace.json", one_long_span()}, {"samples/x", ""}},
       {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/samples"},
       1,
       "jouleprof: {dir}/samples: is a directory, not a samples file"},
      {"a directory given as the trace",
       {{"trace/x", ""}, {"samples.csv", steady}},
       {"attribute", "--trace", "{dir}/trace", "--samples", "{dir}/samples.csv"},
       1,
       "jouleprof: {dir}/trace: is a directory, not a trace"},
      {"a samples file that does not exist",
       {{"trace.json", one_long_span()}},
       {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/missing.csv"},
       1,
       "{dir}/missing.csv: cannot open the samples file: No such file or directory"},
      {"a samples file with no readings",
       {{"trace.json", one_long_span()}, {"samples.csv", "t_ns,channel,kind,value\n"}},
       {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/samples.csv"},
       1,
       "no channel that carries energy has a reading"},
      {"a trace without spans",
       {{"trace.json", span_dump({}, {})}, {"samples.csv", steady}},
       {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/samples.csv"},
       1,
       "empty: no spans"},
      {"serve --bind not-an-address",
       {},
       {"serve", "--source", "simulated", "--simulate", "5", "--bind", "not-an-address", "--port",
        "0", "--duration", "0.1"},
       1,
       "'not-an-address' is not an IP address or a host name that resolves"},
      {"serve --bind an address of another host",
       {},
       {"serve", "--source", "simulated", "--simulate", "5", "--bind", "192.0.2.1", "--port", "0",
        "--duration", "0.1"},
       1,
       "192.0.2.1 is not an address of this host"},
      {"serve on a port in use",
       {},
       {"serve", "--source", "simulated", "--simulate", "5", "--bind", "127.0.0.1", "--port",
        std::to_string(listening_port()), "--duration", "0.1"},
       1,
       fmt::format("port {} is already in use on 127.0.0.1", listening_port())},
      {"history --db on a missing path",
       {},
       {"history", "--db", "{dir}/nowhere/history.db"},
       1,
       "{dir}/nowhere/history.db: no run history there",
       false,
       {},
       [](const TempDir& dir, const Invocation&) {
         EXPECT_FALSE(fs::exists(dir.path() / "nowhere")) << "nothing created";
       }},
      {"compare against runs of a missing history",
       {},
       {"compare", "1", "2", "--db", "{dir}/none.db"},
       1,
       "{dir}/none.db: no run history there"},
      {"a report of a directory", {{"profile/x", ""}}, {"report", "{dir}/profile"}, 2, "directory"},
      {"run --cgroup of a group that does not exist",
       {},
       {"run", "--simulate", "5", "--no-history", "--output", "{dir}/out", "--cgroup",
        "/nonexistent/cg"},
       1,
       "jouleprof: run: field 'what to observe' has value 'cgroup /nonexistent/cg': cannot be "
       "observed"},
      {"--meta marks written last to first",
       {{"trace.json", one_long_span()},
        {"samples.csv", steady},
        {"meta.json", R"({"marks": [["stop", 21000000000], ["start", 1000000000]]})"}},
       {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/samples.csv", "--meta",
        "{dir}/meta.json", "--output", "{dir}/out"},
       0,
       "profile written to {dir}/out/profile.json",
       true,
       {},
       [](const TempDir& dir, const Invocation&) { EXPECT_NEAR(tree_energy(dir), 20.0, 1e-6); },
       "written to"},
      {"a RAPL zone whose every read is above its max_energy_range_uj",
       {{"root/sys/class/powercap/intel-rapl:0/name", "package-0\n"},
        {"root/sys/class/powercap/intel-rapl:0/energy_uj", "300000000000\n"},
        {"root/sys/class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850\n"}},
       {"run", "--sysfs-root", "{dir}/root", "--source", "rapl-powercap", "--no-history",
        "--output", "{dir}/out", "--", "sleep", "0.2"},
       0,
       "1 channel(s) with no reading at all (every read failed, see the warnings): their 0 J "
       "measures nothing",
       true,
       {},
       [](const TempDir&, const Invocation& inv) {
         EXPECT_EQ(inv.err.find("total 0 J"), std::string::npos) << inv.err;
         EXPECT_NE(inv.err.find("total invalid"), std::string::npos) << inv.err;
       },
       "no reading at all"},
      {"an epochs CSV with more epochs than --epochs",
       {{"gpu.csv", nvidia_smi_log()}, {"epochs.csv", "epoch,end_s\n1,10\n2,20\n3,30\n"}},
       {"project", "--trace", "{dir}/gpu.csv", "--epochs", "2", "--epochs-csv", "{dir}/epochs.csv"},
       1,
       "{dir}/epochs.csv: field 'epochs' has value '3 epochs': more than the 2 epochs the whole "
       "run "
       "has"},
      {"an epochs CSV going back in time",
       {{"gpu.csv", nvidia_smi_log()}, {"epochs.csv", "epoch,end_s\n0,10\n1,5\n"}},
       {"project", "--trace", "{dir}/gpu.csv", "--epochs", "2", "--epochs-csv", "{dir}/epochs.csv"},
       1,
       "{dir}/epochs.csv:3"},
  };
  for (const Case& c : cases) check(c);
}

// Whether `text` holds a figure over 1e15 of its unit, or any number that long: the plausibility
// gate's promise (issue 30, class 1). Input quoted back in an error ('1e+308') is the input, not a
// figure, and is skipped.
bool holds_an_impossible_number(const std::string& text) {
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    // A quote opens after a space or a bracket ('1e+308'), not inside a word (channel's).
    if (text[i] == '\'' &&
        (quoted || i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1])))) {
      quoted = !quoted;
    }
    if (quoted || !std::isdigit(static_cast<unsigned char>(text[i]))) continue;
    if (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_')) {
      continue;  // a digit inside a name (gpu0, t_ns)
    }
    std::size_t end = i;
    while (end < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.' ||
            ((text[end] == 'e' || text[end] == 'E') && end + 1 < text.size() &&
             (std::isdigit(static_cast<unsigned char>(text[end + 1])) || text[end + 1] == '+' ||
              text[end + 1] == '-')) ||
            ((text[end] == '+' || text[end] == '-') &&
             (text[end - 1] == 'e' || text[end - 1] == 'E')))) {
      ++end;
    }
    const std::string number = text.substr(i, end - i);
    char* parsed_to = nullptr;
    const double value = std::strtod(number.c_str(), &parsed_to);
    // Only a figure: the number followed by a unit (" J", " kW", " s", " %", " GFLOPs"); a
    // diagnostic such as a condition number of 1e+300 has none.
    std::size_t unit = end;
    if (unit < text.size() && text[unit] == ' ') ++unit;
    const std::string_view rest = std::string_view(text).substr(unit);
    bool has_unit = false;
    for (std::string_view prefix : {"", "p", "n", "µ", "m", "k", "M", "G", "T", "P"}) {
      if (!rest.starts_with(prefix)) continue;
      const std::string_view after = rest.substr(prefix.size());
      for (std::string_view u : {"J", "W", "s", "%", "FLOPs"}) {
        const bool whole =
            after.size() == u.size() ||
            (after.size() > u.size() && !std::isalpha(static_cast<unsigned char>(after[u.size()])));
        has_unit = has_unit || (after.starts_with(u) && whole);
      }
    }
    if (has_unit && std::fabs(value) > 1e15) return true;
    i = end;
  }
  return false;
}

void expect_no_impossible_number(const Invocation& inv) {
  for (const std::string& text : {inv.out, inv.err}) {
    EXPECT_FALSE(holds_an_impossible_number(text)) << text;
    for (const std::string bad : {" inf", " nan", "-inf", "-nan"}) {
      // As a word: " information" and " nanoseconds" are not figures.
      for (std::size_t at = text.find(bad); at != std::string::npos; at = text.find(bad, at + 1)) {
        const std::size_t next = at + bad.size();
        EXPECT_TRUE(next < text.size() && std::isalpha(static_cast<unsigned char>(text[next])))
            << bad << " in:\n"
            << text;
      }
    }
  }
}

// A profile whose tree holds `children`, each of the energy given, under a root of their sum.
std::string profile_with_children(const std::vector<double>& children_j) {
  Profile p;
  p.meta.kind = "attribute";
  ProfileNode root;
  root.name = "run";
  for (std::size_t i = 0; i < children_j.size(); ++i) {
    ProfileNode child;
    child.name = fmt::format("part_{}", i);
    child.energy_j = child.self_energy_j = children_j[i];
    root.energy_j += children_j[i];
    root.children.push_back(std::move(child));
  }
  // Two children at 1e308 sum to inf, which JSON cannot hold: the root then holds one of them.
  if (!std::isfinite(root.energy_j)) root.energy_j = children_j.front();
  p.tree = std::move(root);
  // As a hand-made or tampered file holds it: jouleprof's own writers withhold such figures.
  return ungated_profile_json(p, -1, ProfileArrays::kExpanded);
}

std::string power_log_with_unavailable() {
  std::string text = "timestamp, name, power.draw [W]\n";
  for (int i = 0; i < 40; ++i) {
    const bool unavailable = i >= 12 && i < 30;
    text += fmt::format("2024/01/02 10:00:{:02d}.000, NVIDIA GeForce RTX 3090, {}\n", i,
                        unavailable ? "[N/A]" : "300.0 W");
  }
  return text;
}

// Class 1 of issue 30: no printed or serialised figure is NaN, inf, negative energy or beyond what
// its kind physically allows; input that would push one there is refused, a computed one is
// withheld with a warning (core/figure_bounds.hpp). Class 2: a gap is no reading, not 0 W.
TEST(BadInputCatalogue, NoImpossibleFigureLeaves) {
  std::vector<double> jump_at_end = steady_counter(23);
  jump_at_end.back() = 1e308;
  std::string runs = pre_table("32");
  runs.replace(runs.find("120000"), 6, "1e308");
  const std::string tdp = "device,tdp_w\nA,10\nB,20\n";
  const std::string power_cells =
      "dnn,delegate,device,power_w\nm1,cpu,A,5\nm1,cpu,B,6\nm2,cpu,A,5\nm2,cpu,B,4\n";
  const std::string tiny_energy_cell =
      "dnn,delegate,device,energy_j\nm1,cpu,A,1e-308\nm1,cpu,B,0.2\nm2,cpu,A,0.1\nm2,cpu,B,0.2\n";
  const std::string huge_shape = R"({
  "input_im_0": {"inbounds": [], "attr": {"name": "input_im_0", "type": "Placeholder",
                 "output_shape": [[1, 224, 224, 3]], "attr": {}}, "outbounds": ["conv"]},
  "conv": {"inbounds": ["input_im_0"], "attr": {"name": "conv", "type": "Conv2D",
           "input_shape": [[1, 224, 224, 3]], "output_shape": [[1, 112, 112, 1000000000000000000]],
           "attr": {"data_format": "NHWC", "strides": [1, 2, 2, 1], "kernel_shape": [3, 3]}},
           "outbounds": []}
})";
  const std::vector<Case> cases = {
      {"samples.csv: a counter jumping to 1e308 at its last reading",
       {{"trace.json", one_long_span()}, {"samples.csv", counter_csv(jump_at_end)}},
       {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/samples.csv"},
       0,
       "{dir}/samples.csv: channel cpu: 1 implausible reading left out (first at t_ns "
       "22000000000: read an absurd counter value",
       true},
      {"attribute --idle-w above the measured mean",
       {{"trace.json", one_long_span()}, {"samples.csv", counter_csv(steady_counter(23))}},
       {"attribute", "--trace", "{dir}/trace.json", "--samples", "{dir}/samples.csv", "--idle-w",
        "100", "--output", "{dir}/out"},
       0,
       "channel cpu: the idle power given (100 W) is above the channel's mean power over the "
       "window",
       true,
       {},
       [](const TempDir& dir, const Invocation&) {
         const Result<Profile> p =
             read_profile_json((dir.path() / "out" / "profile.json").string());
         ASSERT_TRUE(p.ok());
         walk_tree(*p->tree, [](const ProfileNode& n, int) {
           EXPECT_GE(n.dynamic_energy_j.value_or(0.0), 0.0) << n.name;
           EXPECT_LE(n.static_energy_j.value_or(0.0), n.energy_j + 1e-9) << n.name;
         });
       }},
      {"report of a profile with two children at 1e308 J",
       {{"huge.json", profile_with_children({1e308, 1e308})}},
       {"report", "{dir}/huge.json"},
       0,
       "energy figure(s) beyond the 1e+15 J any run can consume",
       true,
       {},
       [](const TempDir& dir, const Invocation&) {
         for (const char* format : {"text", "json", "csv", "html", "flamegraph"}) {
           const Invocation r = run_jouleprof(
               {"report", (dir.path() / "huge.json").string(), "--format", format}, dir);
           EXPECT_EQ(r.exit_code, 0) << format << r.err;
           EXPECT_FALSE(holds_an_impossible_number(r.out)) << format << ":\n" << r.out;
         }
         // The json report is a profile again: its withheld figures are null, and it reads.
         const std::string again = (dir.path() / "again.json").string();
         ASSERT_EQ(run_jouleprof({"report", (dir.path() / "huge.json").string(), "--format", "json",
                                  "--output", again},
                                 dir)
                       .exit_code,
                   0);
         const Invocation r = run_jouleprof({"report", again}, dir);
         EXPECT_EQ(r.exit_code, 0) << r.err;
         EXPECT_FALSE(holds_an_impossible_number(r.out)) << r.out;
         EXPECT_NE(r.out.find("invalid"), std::string::npos) << r.out;
       },
       "jouleprof: warning:"},
      {"compare of +1e308 J against -1e308 J",
       {{"a.json", profile_with_children({1e308})}, {"b.json", profile_with_children({-1e308})}},
       {"compare", "{dir}/a.json", "{dir}/b.json", "--budget", "5%"},
       1,
       "{dir}/a.json: field 'total energy' has value '1e+308': is above 1e+15 J (1 MW for 32 "
       "years)"},
      {"project --gflops 1e308",
       {{"gpu.csv", nvidia_smi_log()}},
       {"project", "--trace", "{dir}/gpu.csv", "--epochs", "10", "--gflops", "1e308", "--samples",
        "1000"},
       2,
       "--gflops: must be a finite number above 0 and at most 1e+12 GFLOPs (a million GPT-3 "
       "forward passes), got '1e308'"},
      {"project of a power log with a FLOPs-linear estimate beyond any run",
       {{"gpu.csv", nvidia_smi_log()}},
       {"project", "--trace", "{dir}/gpu.csv", "--epochs", "1000000", "--gflops", "1e12",
        "--samples", "1e12"},
       0,
       "the FLOPs-linear estimate is above 1e+15 J (1 MW for 32 years): withheld",
       true,
       {},
       {},
       "the FLOPs-linear estimate"},
      {"--simulate 1e308 (one device's power)",
       {},
       {"run", "--simulate", "1e308", "--no-history", "--", "true"},
       2,
       "--simulate: must be a finite number from 0 to 20000 W (the most one device draws), got "
       "'1e308'"},
      {"--tdp beyond one device's power",
       {},
       {"run", "--source", "cpu-estimate", "--tdp", "30000", "--no-history", "--", "true"},
       2,
       "--tdp: must be a finite number above 0 and at most 20000 W (the most one device draws), "
       "got '30000'"},
      {"--grid-intensity 1e308",
       {},
       {"run", "--simulate", "5", "--grid-intensity", "1e308", "--no-history", "--", "true"},
       2,
       "--grid-intensity: must be a finite number from 0 to 10000 g/kWh (ten times a lignite "
       "plant's 1 000), got '1e308'"},
      {"project --ram-w-per-gb 1e9",
       {{"gpu.csv", nvidia_smi_log()}},
       {"project", "--trace", "{dir}/gpu.csv", "--epochs", "10", "--ram-w-per-gb", "1e9"},
       2,
       "--ram-w-per-gb: must be a finite number from 0 to 100 W/GB (about 250 times DRAM's 0.4), "
       "got '1e9'"},
      {"estimate predict --duration 1e308",
       {},
       {"estimate", "predict", "--model", "m", "--batch", "5", "--gflops", "1", "--gpu", "x",
        "--ram-gb", "1", "--train-size", "1", "--val-size", "1", "--duration", "1e308"},
       2,
       "--duration: must be a finite number of seconds above 0 and at most 3150000000 (100 "
       "years), got '1e308'"},
      {"a PRE runs CSV with an energy of 1e308",
       {{"runs.csv", runs}},
       {"estimate", "train", "--data", "{dir}/runs.csv", "--output", "{dir}/model"},
       1,
       "{dir}/runs.csv:2: field 'energy_j' has value '1e+308': is above 1e+15 J (1 MW for 32 "
       "years)"},
      {"a score-table cell of 1e-308 J",
       {{"power.csv", power_cells}, {"energy.csv", tiny_energy_cell}, {"devices.csv", tdp}},
       {"score", "--power", "{dir}/power.csv", "--energy", "{dir}/energy.csv", "--devices",
        "{dir}/devices.csv"},
       1,
       "{dir}/energy.csv: line 2: field 'energy_j' has value '1e-308': is below 1e-12 J, the "
       "smallest figure a counter resolves"},
      {"an nn-Meter shape of 1e18",
       {{"model.json", huge_shape}},
       {"predict", "--model", "{dir}/model.json", "--predictor", "{dir}"},
       1,
       "is not a tensor dimension (from 0 to 2147483647)"},
      // Class 2: 18 s of [N/A] in a 40 s log, inside epochs 4 to 8 of 10.
      {"a power log whose [N/A] values fall inside epochs",
       {{"gpu.csv", power_log_with_unavailable()}},
       {"project", "--trace", "{dir}/gpu.csv", "--epochs", "10"},
       0,
       "epochs overlap the series' 1 gap(s)",
       true,
       {},
       [](const TempDir&, const Invocation& inv) {
         EXPECT_EQ(inv.out.find("(0.0 W)"), std::string::npos) << inv.out;
         EXPECT_EQ(inv.out.find("-99."), std::string::npos) << inv.out;
       },
       "gap(s)"},
  };
  for (const Case& c : cases) {
    check(c);
    TempDir dir;
    for (const auto& [name, content] : c.files) dir.write(name, content);
    std::vector<std::string> args;
    for (const std::string& a : c.args) args.push_back(replace_dir(a, dir));
    SCOPED_TRACE(c.what);
    expect_no_impossible_number(run_jouleprof(args, dir));
  }
}

// Class 8 of issue 30: the environment never costs the measurement. With TMPDIR naming no
// directory, and the --output directory replaced by a file while the command runs, run keeps the
// measurement in the working directory and says so.
TEST(BadInputCatalogue, TheMeasurementIsNeverLost) {
  TempDir dir;
  const fs::path previous = fs::current_path();
  fs::current_path(dir.path());  // where the last fallback writes
  const std::string out = (dir.path() / "out").string();
  setenv("COLUMNS", "100000", 1);
  const Invocation plain = run_jouleprof(
      {"run", "--simulate", "5", "--no-history", "--output", out, "--epochs", "2", "--", "true"},
      dir, {{"TMPDIR", "/nonexistent"}});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_TRUE(fs::exists(fs::path(out) / "profile.json")) << plain.err;
  EXPECT_EQ(plain.err.find("internal error"), std::string::npos) << plain.err;

  const std::string replaced = (dir.path() / "replaced").string();
  const Invocation run =
      run_jouleprof({"run", "--simulate", "5", "--no-history", "--output", replaced, "--", "sh",
                     "-c", "rm -rf " + replaced + " && echo a file > " + replaced},
                    dir, {{"TMPDIR", "/nonexistent"}});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const std::string first = first_line_with(run.err, "instead");
  EXPECT_NE(first.find(fmt::format("the measurement was written to {}/jouleprof-run-",
                                   dir.path().string())),
            std::string::npos)
      << run.err;
  bool kept = false;
  for (const fs::directory_entry& e : fs::directory_iterator(dir.path())) {
    if (e.path().filename().string().starts_with("jouleprof-run-")) {
      kept = read_profile_json((e.path() / "profile.json").string()).ok();
    }
  }
  EXPECT_TRUE(kept) << "no readable profile.json in the working directory";

  const Invocation measure =
      run_jouleprof({"measure", "--simulate", "40", "--quick", "--repeat", "1", "--no-history",
                     "--output", (dir.path() / "replaced").string(), "--", "true"},
                    dir, {{"TMPDIR", "/nonexistent"}});
  EXPECT_EQ(measure.exit_code, 0) << measure.err;
  EXPECT_NE(first_line_with(measure.err, "instead")
                .find(fmt::format("the measurement was written to {}/jouleprof-measure-",
                                  dir.path().string())),
            std::string::npos)
      << measure.err;
  unsetenv("COLUMNS");
  fs::current_path(previous);
}

#ifdef JOULEPROF_TEST_XGBOOST
// Class 9: a predictor bundle whose model file is gone is named, not answered by XGBoost's native
// stack trace.
TEST(BadInputCatalogue, APredictorBundleMissingItsModelSaysSo) {
  Case missing{
      "a predictor bundle without its model files",
      {{"bundle/manifest.json",
        R"({"energy_unit": "mJ", "format": "jouleprof-kernel-predictor", "jouleprof_version": "0.2.0", "regressor": "random-forest", "seed": 42, "target": "raw", "train_fraction": 0.8, "version": 1, "kernel_types": {"fc": {"model": "models/fc.json", "n_test": 1, "n_train": 5, "sources": ["k.csv"], "test_metrics": {"n": 1, "rmse_mj": 0.5, "rmspe_pct": 10.0, "within_10_pct": 0.0, "within_15_pct": 0.0, "within_5_pct": 0.0}}}})"},
       {"bundle/feature_spec.json",
        R"({"fc": {"features": ["CIN", "COUT", "FLOPS/2e6", "FLOPS/1e6"]}})"},
       {"model.json",
        R"({"x": {"inbounds": [], "attr": {"name": "x", "type": "Placeholder", "output_shape": [[1, 8]], "attr": {}}, "outbounds": ["fc"]}, "fc": {"inbounds": ["x"], "attr": {"name": "fc", "type": "MatMul", "input_shape": [[1, 8]], "output_shape": [[1, 4]], "attr": {}}, "outbounds": []}})"}},
      {"predict", "--model", "{dir}/model.json", "--predictor", "{dir}/bundle"},
      1,
      "jouleprof: {dir}/bundle/models/fc.json: the predictor's model file is missing"};
  missing.also = [](const TempDir&, const Invocation& inv) {
    EXPECT_EQ(inv.err.find("Stack trace"), std::string::npos) << inv.err;
  };
  check(missing);
}
#endif

}  // namespace
}  // namespace jouleprof
