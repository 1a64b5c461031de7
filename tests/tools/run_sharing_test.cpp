// `jouleprof run` on a real, shared machine (docs/sharing.md): two runs side by side under the CPU
// estimate, and a Python job that forks workers. The machine may be busy with other work (builds,
// other tests): each test measures that load itself, from /proc/stat and its own RUSAGE_CHILDREN,
// and asserts the figures when the machine was otherwise quiet and the load-independent
// ones always. Nothing here waits on a deadline: a loaded machine makes the tests slower, not
// wrong.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "jouleprof/profile.hpp"
#include "tools/jouleprof_runner.hpp"

namespace jouleprof {
namespace {

using ::jouleprof::testing::finish;
using ::jouleprof::testing::Invocation;
using ::jouleprof::testing::start_jouleprof;
using ::jouleprof::testing::TempDir;

const double kTicksPerS = static_cast<double>(sysconf(_SC_CLK_TCK));

// Busy CPU time of the whole machine so far (/proc/stat: user+nice+system+irq+softirq).
double machine_busy_s() {
  std::ifstream in("/proc/stat");
  std::string label;
  std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0;
  in >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq;
  return static_cast<double>(user + nice + system + irq + softirq) / kTicksPerS;
}

// CPU time of this process's reaped children (and theirs) so far.
double children_cpu_s() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

struct Shares {
  double share = 0.0;  // process_share of the estimate's channel
  double process_dynamic_j = 0.0;
  double machine_dynamic_j = 0.0;  // energy_j − static_power_w × duration
  double observed_cpu_s = 0.0;     // the tree's CPU time over the run
};

Shares read_shares(const std::filesystem::path& dir) {
  Shares out;
  Result<Profile> p = read_profile_json((dir / "profile.json").string());
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
  if (!p.ok()) return out;
  const ChannelSummary* c = nullptr;
  for (const ChannelSummary& s : p->channels) {
    if (s.channel_id == "cpu-estimate:package") c = &s;
  }
  const Series* energy = p->find_series("cpu-estimate:package");
  const Series* observed = p->find_series("processes:cpu:cpu-time");
  EXPECT_TRUE(c != nullptr && energy != nullptr && observed != nullptr);
  if (c == nullptr || energy == nullptr || observed == nullptr) return out;
  EXPECT_TRUE(c->process && c->process->dynamic_energy_j) << "no process figures";
  if (!c->process) return out;
  EXPECT_EQ(c->process->rule, "cpu-time");
  out.share = c->process->share;
  out.process_dynamic_j = c->process->dynamic_energy_j.value_or(0.0);
  out.machine_dynamic_j =
      c->energy_j - energy->channel().static_power_w.value_or(0.0) * ns_to_s(c->duration_ns);
  out.observed_cpu_s = observed->value_at(p->meta.end_ns) - observed->value_at(p->meta.begin_ns);
  return out;
}

// Two `jouleprof run -- jouleprof burn --seconds 3` started together under the CPU estimate: each
// gets about half, and together they account for the machine's dynamic energy.
TEST(RunSharing, TwoBurnsSideBySideShareTheMachine) {
  TempDir dir;
  const auto run_args = [&](const char* name) {
    return std::vector<std::string>{"run",
                                    "--source",
                                    "cpu-estimate",
                                    "--no-history",
                                    "--output",
                                    (dir.path() / name).string(),
                                    "--",
                                    testing::jouleprof_binary(),
                                    "burn",
                                    "--seconds",
                                    "3"};
  };
  TempDir out_a;
  TempDir out_b;
  const double busy_before = machine_busy_s();
  const double children_before = children_cpu_s();
  Result<ChildProcess> a = start_jouleprof(run_args("a"), out_a);
  Result<ChildProcess> b = start_jouleprof(run_args("b"), out_b);
  ASSERT_TRUE(a.ok() && b.ok());
  const Invocation ia = finish(*a, out_a);
  const Invocation ib = finish(*b, out_b);
  const double busy_s = machine_busy_s() - busy_before;
  const double ours_s = children_cpu_s() - children_before;  // both runs, their burns, their shells
  ASSERT_EQ(ia.exit_code, 0) << ia.err;
  ASSERT_EQ(ib.exit_code, 0) << ib.err;
  const Shares sa = read_shares(dir.path() / "a");
  const Shares sb = read_shares(dir.path() / "b");
  const double others = std::max(0.0, 1.0 - ours_s / busy_s);
  const double dynamic_j = 0.5 * (sa.machine_dynamic_j + sb.machine_dynamic_j);
  std::ostringstream figures;
  figures << "shares " << sa.share << " and " << sb.share << "; dynamic " << sa.process_dynamic_j
          << " + " << sb.process_dynamic_j << " J of the machine's " << dynamic_j
          << " J; other load " << others << " (" << ours_s << " s ours of " << busy_s << " s busy)";
  RecordProperty("figures", figures.str());
  std::cout << "[ figures  ] " << figures.str() << '\n';

  // Whatever else runs: the two identical burns get the CPU fairly, so each has 35-65 % of what
  // the two have together; and their shares add up to what this test sees the two runs use of
  // the machine (jouleprof's own sampling is in `ours` and in nobody's share, hence the margin).
  const double pair = sa.share + sb.share;
  ASSERT_GT(pair, 0.0);
  EXPECT_GE(sa.share / pair, 0.35) << figures.str();
  EXPECT_LE(sa.share / pair, 0.65) << figures.str();
  EXPECT_NEAR(pair, std::min(1.0, ours_s / busy_s), 0.08) << figures.str();

  // The figures, on a machine where nothing else ran to speak of.
  if (others < 0.05) {
    EXPECT_GE(sa.share, 0.35) << figures.str();
    EXPECT_LE(sa.share, 0.65) << figures.str();
    EXPECT_GE(sb.share, 0.35) << figures.str();
    EXPECT_LE(sb.share, 0.65) << figures.str();
    EXPECT_NEAR(sa.process_dynamic_j + sb.process_dynamic_j, dynamic_j, 0.05 * dynamic_j)
        << figures.str();
  }
}

// A Python multiprocessing job with two workers: the workers' CPU time is the job's. Each of the
// two tasks spins for 0.5 s of CPU time, so the job has at least 1 s whatever the load.
TEST(RunSharing, APythonMultiprocessingJobCountsItsWorkers) {
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
  TempDir dir;
  const std::string job =
      "import multiprocessing as mp, time\n"
      "def work(_):\n"
      "    start = time.process_time()\n"
      "    while time.process_time() - start < 0.5: pass\n"
      "    return 0\n"
      "if __name__ == '__main__':\n"
      "    with mp.get_context('fork').Pool(2) as pool: pool.map(work, [0, 1], chunksize=1)\n";
  const double children_before = children_cpu_s();
  const Invocation inv =
      testing::run_jouleprof({"run", "--source", "cpu-estimate", "--no-history", "--output",
                              (dir.path() / "run").string(), "--", "/usr/bin/python3", "-c", job},
                             dir);
  const double ours_s = children_cpu_s() - children_before;
  ASSERT_EQ(inv.exit_code, 0) << inv.err;
  const Shares s = read_shares(dir.path() / "run");
  std::ostringstream figures;
  figures << "observed " << s.observed_cpu_s << " s of CPU; jouleprof and the job used " << ours_s
          << " s";
  RecordProperty("figures", figures.str());
  EXPECT_GE(s.observed_cpu_s, 0.98) << figures.str();  // two workers × 0.5 s, to a tick
  EXPECT_LE(s.observed_cpu_s, ours_s + 0.02) << figures.str();
}

}  // namespace
}  // namespace jouleprof
