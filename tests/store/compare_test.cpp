#include "jouleprof/compare.hpp"

#include <gtest/gtest.h>

#include "report/sample_profile.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

const NodeDelta& delta(const RunComparison& c, const std::string& path) {
  for (const NodeDelta& d : c.nodes) {
    if (d.path == path) return d;
  }
  throw std::runtime_error("no node " + path);
}

TEST(Compare, PerNodeDifferencesIncludingNewAndGoneNodes) {
  testing::SampleProfileOptions more;
  more.scale = 1.1;
  more.extra_op = "aten::gelu";
  Profile after = testing::sample_profile(more);
  after.tree->children.pop_back();  // [unattributed] gone
  const RunComparison c =
      compare_runs(snapshot_of(testing::sample_profile(), "a"), snapshot_of(after, "b"));
  EXPECT_DOUBLE_EQ(c.before_total_j, 280.0);
  EXPECT_NEAR(c.after_total_j, 308.0, 1e-9);
  EXPECT_NEAR(*c.relative(), 0.1, 1e-12);
  const NodeDelta& addmm = delta(c, "train_step/backward/aten::addmm");
  EXPECT_NEAR(addmm.delta_j, 6.0, 1e-9);
  EXPECT_NEAR(*addmm.relative, 0.1, 1e-12);
  const NodeDelta& gelu = delta(c, "train_step/forward/aten::gelu");
  EXPECT_FALSE(gelu.before_j.has_value());
  EXPECT_NEAR(gelu.delta_j, 5.5, 1e-9);
  const NodeDelta& gone = delta(c, "[unattributed]");
  EXPECT_FALSE(gone.after_j.has_value());
  EXPECT_DOUBLE_EQ(gone.delta_j, -30.0);
  EXPECT_EQ(c.nodes.back().path, "[unattributed]");  // nodes only the baseline had come last
}

TEST(Compare, ParsesBudgets) {
  auto pct = parse_budget("5%");
  ASSERT_TRUE(pct.ok());
  EXPECT_EQ(pct->kind, EnergyBudget::Kind::kRelative);
  EXPECT_DOUBLE_EQ(pct->value, 0.05);
  auto joules = parse_budget("2.5 J");
  ASSERT_TRUE(joules.ok());
  EXPECT_EQ(joules->kind, EnergyBudget::Kind::kAbsolute);
  EXPECT_DOUBLE_EQ(joules->value, 2.5);
  for (const char* bad : {"5", "abc%", "-1%", "%", "5 %%", "nanJ"}) {
    auto r = parse_budget(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message().find(bad), std::string::npos);
  }
}

TEST(Compare, BudgetVerdicts) {
  const EnergySnapshot before = snapshot_of(testing::sample_profile(), "a");
  testing::SampleProfileOptions o;
  o.scale = 1.04;
  const RunComparison small = compare_runs(before, snapshot_of(testing::sample_profile(o), "b"));
  o.scale = 1.06;
  const RunComparison large = compare_runs(before, snapshot_of(testing::sample_profile(o), "c"));
  o.scale = 0.5;
  const RunComparison better = compare_runs(before, snapshot_of(testing::sample_profile(o), "d"));
  const EnergyBudget five{EnergyBudget::Kind::kRelative, 0.05};
  EXPECT_FALSE(check_budget(small, five).exceeded);
  const BudgetVerdict v = check_budget(large, five);
  EXPECT_TRUE(v.exceeded);
  EXPECT_DOUBLE_EQ(v.allowed_increase_j, 14.0);
  EXPECT_NE(v.explanation.find("REGRESSION"), std::string::npos) << v.explanation;
  EXPECT_FALSE(check_budget(better, five).exceeded);
  EXPECT_TRUE(
      check_budget(small, EnergyBudget{EnergyBudget::Kind::kAbsolute, 10.0}).exceeded);  // +11.2 J
  EXPECT_FALSE(check_budget(small, EnergyBudget{EnergyBudget::Kind::kAbsolute, 12.0}).exceeded);
}

// A 6 % increase inside both runs' ±10 % intervals is no regression, and no improvement either.
TEST(Compare, AChangeInsideBothIntervalsIsWithinUncertainty) {
  const auto banded = [](double scale, double relative) {
    testing::SampleProfileOptions o;
    o.scale = scale;
    Profile p = testing::sample_profile(o);
    for (ChannelSummary& c : p.channels) {
      c.band = EnergyBand{(1.0 - relative) * c.energy_j, (1.0 + relative) * c.energy_j,
                          UncertaintyTerm::kSplit};
    }
    return p;
  };
  const EnergyBudget five{EnergyBudget::Kind::kRelative, 0.05};
  const RunComparison noisy =
      compare_runs(snapshot_of(banded(1.0, 0.10), "a"), snapshot_of(banded(1.06, 0.10), "b"));
  ASSERT_TRUE(noisy.before_band && noisy.after_band);
  const BudgetVerdict v = check_budget(noisy, five);
  EXPECT_TRUE(v.within_uncertainty);
  EXPECT_FALSE(v.exceeded);
  EXPECT_NE(v.explanation.find("within uncertainty"), std::string::npos) << v.explanation;
  EXPECT_EQ(v.explanation.find("REGRESSION"), std::string::npos) << v.explanation;

  // Narrow intervals: the same change is a regression.
  const RunComparison sharp =
      compare_runs(snapshot_of(banded(1.0, 0.01), "a"), snapshot_of(banded(1.06, 0.01), "b"));
  EXPECT_FALSE(check_budget(sharp, five).within_uncertainty);
  EXPECT_TRUE(check_budget(sharp, five).exceeded);
}

Profile with_process_share(double share) {
  Profile p = testing::sample_profile();
  for (ChannelSummary& c : p.channels)
    c.process = ProcessFigures{share * c.energy_j, share, {}, {}, "cpu-time"};
  return p;
}

TEST(Compare, ComparesTheFigureAskedForAndSaysWhichItIs) {
  const EnergySnapshot a = snapshot_of(with_process_share(0.5), "a");
  const EnergySnapshot b = snapshot_of(with_process_share(0.25), "b");
  const RunComparison machine = compare_runs(a, b);
  EXPECT_EQ(machine.figure, EnergyFigure::kMachine);
  EXPECT_DOUBLE_EQ(machine.delta_j(), 0.0);
  Result<RunComparison> processes = compare_runs(a, b, EnergyFigure::kProcesses);
  ASSERT_TRUE(processes.ok()) << processes.error().message();
  EXPECT_DOUBLE_EQ(processes->before_total_j, 140.0);
  EXPECT_DOUBLE_EQ(processes->after_total_j, 70.0);
  EXPECT_TRUE(processes->nodes.empty()) << "the nodes carry the machine's energy";
  const BudgetVerdict v = check_budget(*processes, EnergyBudget{});
  EXPECT_NE(v.explanation.find("observed processes"), std::string::npos) << v.explanation;

  Result<RunComparison> without =
      compare_runs(snapshot_of(testing::sample_profile(), "plain"), b, EnergyFigure::kProcesses);
  ASSERT_FALSE(without.ok());
  EXPECT_NE(without.error().message().find("plain"), std::string::npos);
  EXPECT_NE(without.error().message().find("observed no processes"), std::string::npos);
}

TEST(Compare, SaysWhereEachTotalCameFromAndRefusesMixedBudgets) {
  Profile simulated = testing::sample_profile();
  for (ChannelSummary& c : simulated.channels) c.provenance = Provenance::kSimulated;
  RunComparison c = compare_runs(snapshot_of(testing::sample_profile(), "a.json"),
                                 snapshot_of(simulated, "b.json"));
  EXPECT_EQ(c.before_provenance, Provenance::kMeasured);
  EXPECT_EQ(c.after_provenance, Provenance::kSimulated);
  const std::vector<std::string> notes = provenance_notes(c);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], "b.json: its energy is simulated, not measured");
  EXPECT_NE(notes[1].find("measured vs simulated"), std::string::npos) << notes[1];
  const Status mixed = check_same_provenance(c);
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.error().message().find("a.json (measured)"), std::string::npos);
  EXPECT_NE(mixed.error().message().find("b.json (simulated)"), std::string::npos);

  c = compare_runs(snapshot_of(simulated, "a"), snapshot_of(simulated, "b"));
  EXPECT_TRUE(check_same_provenance(c).ok());
  EXPECT_EQ(provenance_notes(c).size(), 2u);  // both simulated, the same kind: no mismatch
  c = compare_runs(snapshot_of(testing::sample_profile(), "a"),
                   snapshot_of(testing::sample_profile(), "b"));
  EXPECT_TRUE(provenance_notes(c).empty());
}

TEST(Compare, LoadsSnapshotsFromProfilesAndTheHistory) {
#ifndef JOULEPROF_HAVE_SQLITE
  GTEST_SKIP() << "built without SQLite";
#endif
  testing::TempDir dir;
  const std::string db = (dir.path() / "h.db").string();
  const std::string file = (dir.path() / "p.json").string();
  ASSERT_TRUE(write_profile_json(testing::sample_profile(), file).ok());
  auto id = record_run(db, testing::sample_profile(), file);
  ASSERT_TRUE(id.ok());
  auto from_file = load_snapshot(file, db);
  auto from_db = load_snapshot(std::to_string(*id), db);
  ASSERT_TRUE(from_file.ok() && from_db.ok());
  EXPECT_EQ(from_db->label, "run " + std::to_string(*id));
  EXPECT_DOUBLE_EQ(from_file->total_energy_j, from_db->total_energy_j);
  EXPECT_EQ(from_file->provenance, from_db->provenance);
  ASSERT_EQ(from_file->nodes.size(), from_db->nodes.size());
  for (std::size_t i = 0; i < from_db->nodes.size(); ++i)
    EXPECT_EQ(from_file->nodes[i].path, from_db->nodes[i].path);
  auto missing = load_snapshot("no-such-thing", db);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message().find("no-such-thing"), std::string::npos);
  EXPECT_EQ(load_snapshot("999", db).error().code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace jouleprof
