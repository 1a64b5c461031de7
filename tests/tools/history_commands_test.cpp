// The report, history and compare subcommands end to end through the jouleprof executable:
// outputs and exit codes (0 ok, 1 error, 2 usage, 3 energy budget exceeded).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "jouleprof/history.hpp"
#include "report/sample_profile.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

class Cli : public ::testing::Test {
 protected:
  // `unset`: environment variables the command must not see.
  CommandResult jouleprof(const std::string& args, const std::vector<std::string>& unset = {}) {
    const auto out = dir_.path() / "stdout";
    const auto err = dir_.path() / "stderr";
    std::string env = unset.empty() ? "" : "env";
    for (const std::string& name : unset) env += " -u " + name;
    const std::string cmd = env + (env.empty() ? "" : " ") + std::string(JOULEPROF_BINARY_DIR) +
                            "/bin/jouleprof " + args + " >" + out.string() + " 2>" + err.string();
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, testing::read_file(out),
            testing::read_file(err)};
  }
  std::string profile_file(const std::string& name, double scale) {
    testing::SampleProfileOptions o;
    o.scale = scale;
    const std::string path = (dir_.path() / name).string();
    EXPECT_TRUE(write_profile_json(testing::sample_profile(o), path).ok());
    return path;
  }
  testing::TempDir dir_;
};

TEST_F(Cli, ReportWritesEveryFormatAndRejectsUnknownOnes) {
  const std::string p = profile_file("p.json", 1.0);
  const CommandResult text = jouleprof("report " + p);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("aten::addmm"), std::string::npos);
  const std::string trace = (dir_.path() / "t.json").string();
  EXPECT_EQ(jouleprof("report " + p + " --format trace --output " + trace).exit_code, 0);
  EXPECT_TRUE(nlohmann::json::parse(testing::read_file(trace)).contains("traceEvents"));
  EXPECT_EQ(jouleprof("report " + p + " --format flamegraph --diff " + p).exit_code, 0);
  const CommandResult diff_csv = jouleprof("report " + p + " --format csv --diff " + p);
  EXPECT_EQ(diff_csv.exit_code, 1);
  EXPECT_NE(diff_csv.err.find("differential"), std::string::npos) << diff_csv.err;
  EXPECT_EQ(jouleprof("report " + p + " --format pdf").exit_code, 2);
  const std::string broken = dir_.write("broken.json", "{\"schema\": 1").string();
  const CommandResult bad = jouleprof("report " + broken);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("broken.json"), std::string::npos) << bad.err;
}

TEST_F(Cli, CompareProfilesAndBudgetExitCodes) {
  const std::string base = profile_file("base.json", 1.0);
  const std::string slightly = profile_file("slightly.json", 1.03);
  const std::string much = profile_file("much.json", 1.2);
  const CommandResult ok = jouleprof("compare " + base + " " + slightly + " --budget 5%");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("within budget"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("train_step/backward/aten::addmm"), std::string::npos);
  const CommandResult regressed = jouleprof("compare " + base + " " + much + " --budget 5%");
  EXPECT_EQ(regressed.exit_code, 3);
  EXPECT_NE(regressed.err.find("budget exceeded"), std::string::npos);
  EXPECT_EQ(jouleprof("compare " + base + " " + much).exit_code, 0);  // no budget: report only
  EXPECT_EQ(jouleprof("compare " + much + " " + base + " --budget 0%").exit_code,
            0);  // less energy
  const CommandResult json =
      jouleprof("compare " + base + " " + much + " --format json --budget 50%");
  EXPECT_EQ(json.exit_code, 0);
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_NEAR(doc.at("relative").get<double>(), 0.2, 1e-9);
  EXPECT_FALSE(doc.at("budget").at("exceeded").get<bool>());
  const CommandResult no_unit = jouleprof("compare " + base + " " + much + " --budget 5");
  EXPECT_EQ(no_unit.exit_code, 1);
  EXPECT_NE(no_unit.err.find("--budget: field 'budget' has value '5': needs a unit"),
            std::string::npos)
      << no_unit.err;
}

TEST_F(Cli, CompareSaysWhenASideIsSimulatedAndBudgetsNeedTheSameProvenance) {
  const std::string base = profile_file("base.json", 1.0);
  Profile simulated = testing::sample_profile();
  for (ChannelSummary& c : simulated.channels) c.provenance = Provenance::kSimulated;
  const std::string sim = (dir_.path() / "sim.json").string();
  ASSERT_TRUE(write_profile_json(simulated, sim).ok());
  const CommandResult text = jouleprof("compare " + base + " " + sim);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("sim.json: its energy is simulated, not measured"), std::string::npos)
      << text.out;
  const CommandResult refused = jouleprof("compare " + base + " " + sim + " --budget 5%");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("--allow-mixed"), std::string::npos) << refused.err;
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  const CommandResult allowed =
      jouleprof("compare " + base + " " + sim + " --budget 5% --allow-mixed --format json");
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  const auto doc = nlohmann::json::parse(allowed.out);
  EXPECT_EQ(doc.at("after").at("provenance"), "simulated");
  EXPECT_EQ(doc.at("notes").size(), 2u);
}

#ifdef JOULEPROF_HAVE_SQLITE
TEST_F(Cli, HistoryShowsAndFiltersByProvenanceHostAndCommand) {
  const std::string db = (dir_.path() / "h.db").string();
  ASSERT_TRUE(record_run(db, testing::sample_profile(), "").ok());
  testing::SampleProfileOptions o;
  o.host = "ci-runner";
  Profile simulated = testing::sample_profile(o);
  for (ChannelSummary& c : simulated.channels) c.provenance = Provenance::kSimulated;
  ASSERT_TRUE(record_run(db, simulated, "").ok());
  const CommandResult table = jouleprof("history --db " + db);
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("provenance"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("simulated"), std::string::npos) << table.out;
  const CommandResult measured =
      jouleprof("history --db " + db + " --provenance measured --format json");
  const auto runs = nlohmann::json::parse(measured.out);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].at("provenance"), "measured");
  EXPECT_EQ(runs[0].at("host"), "host-a");
  EXPECT_EQ(nlohmann::json::parse(jouleprof("history --db " + db + " --host ci-runner -f json").out)
                .size(),
            1u);
  EXPECT_EQ(
      nlohmann::json::parse(jouleprof("history --db " + db + " --command train.py -f json").out)
          .size(),
      2u);
  EXPECT_EQ(jouleprof("history --db " + db + " --provenance guessed").exit_code, 2);
}

// A history server that cannot be reached costs the run nothing: the run's exit code, its profile
// (which says it is not recorded), one warning without the password; `history import` adds it.
TEST_F(Cli, AnUnreachableHistoryLeavesTheProfileForHistoryImport) {
  const std::string run_dir = (dir_.path() / "run").string();
  const std::string unreachable =
      "'postgresql://ci:s3cret@/energy?host=" + dir_.path().string() + "&port=5999'";
  const CommandResult run =
      jouleprof("run --simulate 20 --output " + run_dir + " --db " + unreachable + " -- true");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.find("s3cret"), std::string::npos) << run.err;
  // The report wraps long warnings to its width: the parts are checked one by one.
  EXPECT_NE(run.err.find("run not recorded in the history"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("postgresql://ci:***@/energy"), std::string::npos) << run.err;
  const std::string profile = testing::read_file(run_dir + "/profile.json");
  EXPECT_NE(profile.find("jouleprof history import " + run_dir), std::string::npos);
  EXPECT_EQ(profile.find("s3cret"), std::string::npos);

  const std::string db = (dir_.path() / "h.db").string();
  const CommandResult imported = jouleprof("history import " + run_dir + " --db " + db);
  EXPECT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find("run 1: " + run_dir + "/profile.json"), std::string::npos)
      << imported.out;
  EXPECT_EQ(jouleprof("history import " + run_dir + " --db " + db).exit_code, 0);
  const auto runs = nlohmann::json::parse(jouleprof("history --db " + db + " -f json").out);
  ASSERT_EQ(runs.size(), 1u);  // imported twice, recorded once
  EXPECT_EQ(runs[0].at("command"), "true");
  EXPECT_FALSE(runs[0].at("run_key").get<std::string>().empty());
  EXPECT_EQ(
      jouleprof("history import " + (dir_.path() / "none").string() + " --db " + db).exit_code, 1);
}

// compare --baseline: the last runs of a branch against this commit's runs, with the verdict
// the 95 % interval gives, and mixed provenance refused unless --allow-mixed.
TEST_F(Cli, CompareAgainstTheLastRunsOfABranch) {
  const std::string db = (dir_.path() / "h.db").string();
  // Energies that spread about ±5 %: ten on main, then three of commit c3 3 % up, three of c10
  // 10 % up.
  const double spread[] = {0.95, 1.04, 1.0, 0.97, 1.06, 1.01, 0.94, 1.03, 0.99, 1.01};
  int start = 0;
  const auto record = [&](double scale, const RunTags& tags) {
    testing::SampleProfileOptions o;
    o.scale = scale;
    o.start_offset_ns = ++start * kNsPerS;
    ASSERT_TRUE(record_run(db, testing::sample_profile(o), "", tags).ok());
  };
  for (double s : spread) record(s, RunTags{"", "main", "c0"});
  for (int i = 0; i < 3; ++i) record(1.03 * spread[i + 2], RunTags{"", "feature", "c3"});
  for (int i = 0; i < 10; ++i) record(1.10 * spread[i], RunTags{"", "feature", "c10"});

  const std::string base = "compare --db " + db + " --baseline main --last 10 --budget 5%";
  const CommandResult noise = jouleprof(base + " --commit c3");
  EXPECT_EQ(noise.exit_code, 0) << noise.out << noise.err;
  EXPECT_NE(noise.out.find("within noise"), std::string::npos) << noise.out;
  const CommandResult regression = jouleprof(base + " --commit c10 --format json");
  EXPECT_EQ(regression.exit_code, 3) << regression.out << regression.err;
  const auto doc = nlohmann::json::parse(regression.out);
  EXPECT_EQ(doc.at("baseline").at("runs").size(), 10u);
  EXPECT_EQ(doc.at("candidate").at("runs").size(), 10u);
  EXPECT_TRUE(doc.at("budget").at("exceeded").get<bool>());
  EXPECT_GT(doc.at("relative_interval_95").at(0).get<double>(), 0.05);
  // Without candidates and without a commit (none from a CI job running this test either): the
  // newest run alone, which has no error bar.
  const CommandResult alone = jouleprof("compare --db " + db + " --baseline main --budget 5%",
                                        {"GITHUB_SHA", "CI_COMMIT_SHA", "GIT_COMMIT"});
  EXPECT_EQ(alone.exit_code, 1);
  EXPECT_NE(alone.err.find("without an error bar"), std::string::npos) << alone.err;
  EXPECT_EQ(jouleprof(base + " --commit nowhere").exit_code, 1);

  testing::SampleProfileOptions o;
  o.start_offset_ns = 100 * kNsPerS;
  Profile simulated = testing::sample_profile(o);
  for (ChannelSummary& c : simulated.channels) c.provenance = Provenance::kSimulated;
  ASSERT_TRUE(record_run(db, simulated, "", RunTags{"", "sim", "csim"}).ok());
  record(1.0, RunTags{"", "sim", "csim"});
  const CommandResult mixed = jouleprof(base + " --commit csim");
  EXPECT_EQ(mixed.exit_code, 1);
  EXPECT_NE(mixed.err.find("simulated"), std::string::npos) << mixed.err;
  EXPECT_NE(mixed.err.find("--allow-mixed"), std::string::npos) << mixed.err;
  EXPECT_EQ(jouleprof(base + " --commit csim --allow-mixed").exit_code, 0);
  // Two runs and no --baseline is the classic compare; one is a usage error.
  EXPECT_EQ(jouleprof("compare 1 --db " + db).exit_code, 2);
}

TEST_F(Cli, HistoryListsRecordedRunsAndCompareTakesTheirIds) {
  const std::string db = (dir_.path() / "h.db").string();
  ASSERT_TRUE(record_run(db, testing::sample_profile(), "").ok());
  testing::SampleProfileOptions o;
  o.scale = 1.1;
  o.start_offset_ns = kNsPerS;  // a later run, not the first one again
  ASSERT_TRUE(record_run(db, testing::sample_profile(o), "").ok());
  const CommandResult table = jouleprof("history --db " + db);
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("host-a"), std::string::npos);
  const CommandResult json = jouleprof("history --db " + db + " --format json --limit 1");
  const auto runs = nlohmann::json::parse(json.out);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].at("id"), 2);
  EXPECT_NEAR(runs[0].at("total_energy_j").get<double>(), 308.0, 1e-9);
  EXPECT_EQ(jouleprof("compare 1 2 --db " + db + " --budget 5%").exit_code, 3);
  EXPECT_EQ(jouleprof("compare 1 2 --db " + db + " --budget 15%").exit_code, 0);
  // JOULEPROF_DB names the database when --db is absent.
  const std::string cmd = "JOULEPROF_DB=" + db + " " + std::string(JOULEPROF_BINARY_DIR) +
                          "/bin/jouleprof history --format csv > " +
                          (dir_.path() / "env.csv").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const std::string csv = testing::read_file(dir_.path() / "env.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);  // header + 2 runs
  const CommandResult missing = jouleprof("compare 1 7 --db " + db);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("no run with id 7"), std::string::npos) << missing.err;
}
#endif

}  // namespace
}  // namespace jouleprof
