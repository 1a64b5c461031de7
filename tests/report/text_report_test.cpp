// The `text` format: the one text view of a profile (headline, channels, epochs, top operators,
// tree, attribution, warnings), laid out to a width.
#include <gtest/gtest.h>

#include <sstream>

#include "jouleprof/report.hpp"
#include "report/sample_profile.hpp"
#include "report/text_layout.hpp"

namespace jouleprof {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The first line that contains `needle`, or "" (the test then fails on what it expects of it).
std::string line_with(const std::string& text, const std::string& needle) {
  for (const std::string& l : lines_of(text)) {
    if (l.find(needle) != std::string::npos) return l;
  }
  return "";
}

std::string render(const Profile& p, TextViewOptions view = {}) {
  ReportOptions options;
  options.text = std::move(view);
  auto text = render_report("text", p, options);
  EXPECT_TRUE(text.ok()) << text.error().message();
  return text.ok() ? *text : "";
}

// The first line that starts with `prefix`, or "".
std::string line_starting(const std::string& text, const std::string& prefix) {
  for (const std::string& l : lines_of(text)) {
    if (l.starts_with(prefix)) return l;
  }
  return "";
}

std::size_t widest_line(const std::string& text) {
  std::size_t widest = 0;
  for (const std::string& l : lines_of(text)) widest = std::max(widest, report::display_width(l));
  return widest;
}

TEST(TextReport, SectionsComeInTheirOrder) {
  const std::string text = render(testing::sample_profile());
  const std::size_t total = text.find("total 280 J, measured: rapl:package-0, nvml:0:power");
  const std::size_t channels = text.find("\nchannels:");
  const std::size_t top = text.find("\ntop operators");
  const std::size_t tree = text.find("\nenergy by span");
  const std::size_t attribution = text.find("\nattribution:");
  const std::size_t warnings = text.find("\nwarning: ");
  ASSERT_NE(total, std::string::npos) << text;
  EXPECT_LT(total, channels);
  EXPECT_LT(channels, top);
  EXPECT_LT(top, tree);
  EXPECT_LT(tree, attribution);
  EXPECT_LT(attribution, warnings);
  EXPECT_TRUE(text.starts_with("jouleprof profile: python train.py --epochs 1\n")) << text;
  EXPECT_NE(text.find("2.00 s on host-a (rank 0 of 2), exit code 0"), std::string::npos) << text;
}

// Names, commands and warnings from input reach the text view escaped, and widths count the
// escapes (the library's view, as jp_format_tree and Python's prof.table() get it).
TEST(TextReport, ControlCharactersFromInputAreEscaped) {
  Profile p = testing::sample_profile();
  p.tree->children.front().name = "step\x1b[2J";
  p.meta.command = {"python", "train.py\x1b]0;pwned\x07"};
  p.warnings.push_back("odd \r\x1b[31mwarning");
  TextViewOptions view;
  view.width = 60;
  const std::string text = render(p, view);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  EXPECT_NE(text.find("step\\x1b[2J"), std::string::npos) << text;
  EXPECT_NE(text.find("train.py\\x1b]0;pwned\\x07"), std::string::npos) << text;
  EXPECT_NE(text.find("warning: odd \\r\\x1b[31mwarning"), std::string::npos) << text;
  EXPECT_LE(widest_line(text), 60u) << text;
}

TEST(TextReport, TreeRowsCarryShareOfTheTotalAndOfTheParent) {
  TextViewOptions wide;
  wide.width = 160;  // room for every column
  const std::string all = render(testing::sample_profile(), wide);
  const std::string text = all.substr(all.find("energy by span"));
  // backward 140 J of 280 J = 50.0 % of the total; of train_step's 250 J = 56.0 %.
  const std::string backward = line_with(text, "├─ backward");
  EXPECT_NE(backward.find("140 J"), std::string::npos) << text;
  EXPECT_NE(backward.find("50.0 %"), std::string::npos) << backward;
  EXPECT_NE(backward.find("56.0 %"), std::string::npos) << backward;
  EXPECT_NE(line_with(text, "node").find("% of parent"), std::string::npos) << text;
  // Largest first: backward (140 J) before forward (100 J).
  EXPECT_LT(text.find("├─ backward"), text.find("forward"));
  // Provenances differ ([unattributed] is interpolated): the column is there.
  EXPECT_NE(line_with(text, "[unattributed]").find("interpolated"), std::string::npos) << text;
  // A measured baseline (rapl:package-0 idle 8 W): the split is shown.
  const std::string root = line_with(text, "run ");
  EXPECT_NE(root.find("100 J"), std::string::npos) << root;
  EXPECT_NE(root.find("180 J"), std::string::npos) << root;
  EXPECT_NE(line_with(text, "├─ backward").find("±500 mJ (n=10)"), std::string::npos) << text;
}

TEST(TextReport, TopOperatorsSumSelfEnergyByName) {
  const std::string text = render(testing::sample_profile());
  // aten::addmm: 50 J forward + 60 J backward = 110 J = 39.3 % of 280 J.
  const std::string addmm = line_with(text.substr(text.find("top operators")), "aten::addmm");
  EXPECT_NE(addmm.find("110 J"), std::string::npos) << text;
  EXPECT_NE(addmm.find("39.3 %"), std::string::npos) << addmm;
}

TEST(TextReport, LimitsOfDepthChildrenAndRowsSayWhatIsLeftOut) {
  Profile p = testing::sample_profile();
  TextViewOptions view;
  view.max_depth = 1;
  std::string text = render(p, view);
  EXPECT_EQ(text.substr(text.find("energy by span")).find("forward"), std::string::npos) << text;
  EXPECT_NE(text.find("3 of 9 nodes shown, 1 level,"), std::string::npos) << text;

  view = {};
  view.max_children = 1;
  text = render(p, view);
  // run shows train_step; [unattributed] (30 J = 10.7 %) is folded into one row, its energy and
  // share in their columns.
  const std::string more = line_starting(text, "└─ (1 more)");
  EXPECT_NE(more.find("30.0 J"), std::string::npos) << text;
  EXPECT_NE(more.find("10.7 %"), std::string::npos) << text;

  view = {};
  view.max_rows = 4;  // run and train_step, each with its "(N more)" row
  text = render(p, view);
  const std::string tree = text.substr(text.find("energy by span"));
  EXPECT_NE(tree.find("run"), std::string::npos);
  EXPECT_NE(tree.find("train_step"), std::string::npos);
  EXPECT_EQ(tree.find("forward"), std::string::npos) << tree;

  view = {};
  view.full = true;
  view.max_depth = 1;  // full lifts every limit
  text = render(p, view);
  EXPECT_NE(text.find("sgemm_128x64"), std::string::npos);
}

TEST(TextReport, LongNamesAreShortenedToTheWidthAndKeptWholeWhenFull) {
  Profile p = testing::sample_profile();
  const std::string kernel =
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
      "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)";
  p.tree->children[0].children[0].children[0].name = kernel;
  p.warnings.push_back(
      "a warning long enough to need wrapping at a hundred columns, because it explains what "
      "happened, why the figure cannot be trusted and what the user can do about it");
  for (const std::size_t width : {100u, 60u}) {
    TextViewOptions view;
    view.width = width;
    const std::string text = render(p, view);
    EXPECT_LE(widest_line(text), width) << text;
    // Columns give way to the names, and say so.
    EXPECT_NE(text.find("(left out to fit"), std::string::npos) << text;
    // At 100 columns the shortened name is whole; at 60 the tree's name column is cut further.
    EXPECT_NE(text.find(width == 100u ? "at::native::vectorized_elementwise_kernel<…>(…)" : "at::"),
              std::string::npos)
        << text;
  }
  TextViewOptions full;
  full.full = true;
  EXPECT_NE(render(p, full).find(kernel), std::string::npos);
}

TEST(TextReport, NamesThatShortenAlikeKeepTheirTemplateArguments) {
  Profile p = testing::sample_profile();
  ProfileNode& backward = p.tree->children[0].children[1];
  backward.children[0].name =
      "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_nn>(Params)";
  backward.children[1].name =
      "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x64_nt>(Params)";
  const std::string text = render(p);
  // The top operators collapse the indices (digits to *); the tree cuts the kept arguments in
  // the middle to its name column: either way the two rows differ.
  EXPECT_NE(text.find("cutlass::Kernel2<cutlass_*_tensorop_s1688gemm_*x64_nn>(…)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("cutlass::Kernel2<cutlass_*_tensorop_s1688gemm_*x64_nt>(…)"),
            std::string::npos)
      << text;
  const std::string tree = text.substr(text.find("energy by span"));
  EXPECT_NE(line_with(tree, "64x64_nn>(…)"), line_with(tree, "28x64_nt>(…)")) << tree;
  EXPECT_NE(line_with(tree, "64x64_nn>(…)"), "") << tree;
  EXPECT_EQ(text.find("cutlass::Kernel2<…>"), std::string::npos) << text;
}

TEST(TextReport, NoSplitWithoutAMeasuredBaselineAndNeverMinusZero) {
  Profile p = testing::sample_profile();
  // An estimated channel's "baseline" is an estimate too: the split is not shown.
  for (ChannelSummary& c : p.channels) c.provenance = Provenance::kEstimated;
  std::string text = render(p);
  EXPECT_NE(text.find("no static/dynamic split: the idle baseline was estimated"),
            std::string::npos)
      << text;
  EXPECT_EQ(line_with(text, "node").find("static"), std::string::npos) << text;
  EXPECT_NE(text.find("total 280 J, ESTIMATED (not measured)"), std::string::npos) << text;

  p = testing::sample_profile();
  p.tree->static_energy_j = 280.0;
  p.tree->dynamic_energy_j = -1e-13;    // all static: a rounding difference, shown as 0
  p.channels[0].net_energy_j = -0.015;  // 15 mJ under a 40 J channel's idle: rounding too
  TextViewOptions wide;
  wide.width = 160;  // room for the static and dynamic columns
  text = render(p, wide);
  EXPECT_EQ(text.find(" -0"), std::string::npos) << text;
  EXPECT_NE(line_with(text.substr(text.find("energy by span")), "run ").find(" 0 J"),
            std::string::npos)
      << text;
  EXPECT_NE(line_with(text, "rapl:package-0 ").find(" 0 J"), std::string::npos) << text;
  p.channels[0].net_energy_j = -2.0;  // a real difference stays
  EXPECT_NE(line_with(render(p, wide), "rapl:package-0 ").find("-2.00 J"), std::string::npos);
}

TEST(TextReport, EachWarningOnce) {
  Profile p = testing::sample_profile();
  p.warnings.push_back(p.warnings.front());
  const std::string text = render(p);
  const std::string w = "warning: nvml:0:power: no reading";
  const std::size_t first = text.find(w);
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_EQ(text.find(w, first + 1), std::string::npos) << text;
}

TEST(TextReport, EpochsAreListedWithTheirCounterUpdates) {
  Profile p = testing::sample_profile();
  const TimeNs b = p.meta.begin_ns;
  p.epochs = {{b, b + kNsPerS, 140.0, 100}, {b + kNsPerS, b + kNsPerS + 5 * kNsPerMs, 0.7, 4}};
  p.meta.options.epochs.first_begin = EpochStart::kBeginMark;
  const std::string text = render(p);
  EXPECT_NE(text.find("\nepochs: 2 in 1.01 s, 141 J in all; epoch 1 from the first epoch_begin"),
            std::string::npos)
      << text;
  EXPECT_NE(line_with(text, "4 (short)").find("700 mJ"), std::string::npos) << text;

  for (int e = 0; e < 40; ++e) p.epochs.push_back({b, b + kNsPerS, 1.0, 50});
  const std::string many = render(p);
  EXPECT_NE(many.find("(27 more epochs)"), std::string::npos) << many;
}

// The text with its wrapped lines joined again.
std::string unwrapped(std::string text) {
  for (std::size_t at = text.find("\n  "); at != std::string::npos; at = text.find("\n  ", at))
    text.replace(at, 3, " ");
  return text;
}

TEST(TextReport, TheMeanEpochAndEachEpochCarryTheirIntervals) {
  Profile p = testing::sample_profile();
  const TimeNs b = p.meta.begin_ns;
  p.epochs = {
      {b, b + kNsPerS, 140.0, 100, EnergyBand{133.0, 147.0, UncertaintyTerm::kGain}},
      {b + kNsPerS, b + 2 * kNsPerS, 160.0, 100, EnergyBand{152.0, 168.0, UncertaintyTerm::kGain}}};
  p.energy_per_epoch = RepeatedEnergy{RepetitionStats{2, 150.0, 150.0, 14.1, 23.0, 277.0},
                                      EnergyBand{22.0, 278.0, UncertaintyTerm::kRepetition}};
  const std::string text = render(p);
  EXPECT_NE(unwrapped(text).find(
                "per epoch 150 J ±85 % (95 %: Student-t over the epochs, mostly repetition)"),
            std::string::npos)
      << text;
  EXPECT_NE(line_with(text, "epoch  energy").find("±"), std::string::npos) << text;
  EXPECT_NE(line_with(text, "140 J").find("±5.0 %"), std::string::npos) << text;
}

TEST(TextReport, TheEnergyPerStepIsInTheHeadline) {
  Profile p = testing::sample_profile();
  p.energy_per_step = RepeatedEnergy{RepetitionStats{8, 0.25, 0.24, 0.03, 0.225, 0.275},
                                     EnergyBand{0.22, 0.28, UncertaintyTerm::kRepetition}};
  const std::string text = render(p);
  const std::string headline = unwrapped(text.substr(0, text.find("\n\n")));
  EXPECT_NE(headline.find("energy per step 250 mJ ±12 % (mean of 8 steps, sd 30.0 mJ; 95 %: "
                          "Student-t over the steps with the attribution's terms, mostly "
                          "repetition)"),
            std::string::npos)
      << text;
  // Without steps, no such line.
  EXPECT_EQ(render(testing::sample_profile()).find("energy per step"), std::string::npos);
}

TEST(TextReport, SectionsCanBeLeftOut) {
  TextViewOptions view;
  view.channels = false;
  view.attribution = false;
  view.top_operators = 0;
  const std::string text = render(testing::sample_profile(), view);
  EXPECT_EQ(text.find("channels:"), std::string::npos);
  EXPECT_EQ(text.find("attribution:"), std::string::npos);
  EXPECT_EQ(text.find("top operators"), std::string::npos);
  EXPECT_NE(text.find("energy by span"), std::string::npos);
}

TEST(TextReport, ChannelsMarkNestedOnesAndSayHowAnEstimateWasMade) {
  Profile p = testing::sample_profile();
  p.meta.partial = true;
  std::string text = render(p);
  EXPECT_NE(text.find("PARTIAL RUN"), std::string::npos);
  EXPECT_NE(line_with(text, "  rapl:package-0/core").find("24.0 J"), std::string::npos) << text;
  EXPECT_NE(text.find("indented: inside the channel above, not added to the total"),
            std::string::npos);
  EXPECT_NE(text.find("regress"), std::string::npos);
  p.series[2].channel().provenance_detail = "P = P_idle + (TDP - P_idle) x utilisation";
  p.channels[2].provenance = Provenance::kEstimated;
  text = render(p);
  EXPECT_NE(text.find("nvml:0:power: P = P_idle"), std::string::npos) << text;
}

TEST(TextReport, ShowsTheObservedProcessesShareAsAttributed) {
  Profile p = testing::sample_profile();
  for (ChannelSummary& c : p.channels) {
    c.process = ProcessFigures{0.5 * c.energy_j, 0.5, {}, {}, "cpu-time"};
  }
  p.meta.options.process.observed = "pid 9 and its descendants";
  auto text = render_report("text", p);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("observed processes (pid 9 and its descendants): 140 J, 50.0 % of the "
                       "total, attributed:cpu-time"),
            std::string::npos)
      << *text;
  // The channel table gives each channel's figure beside the machine's.
  EXPECT_NE(text->find("processes  share"), std::string::npos) << *text;
  EXPECT_NE(text->find("20.0 J  50.0%"), std::string::npos) << *text;
}

TEST(TextReport, AProfileWithoutTreeSaysSo) {
  Profile p = testing::sample_profile();
  p.tree.reset();
  EXPECT_NE(render(p).find("no breakdown tree"), std::string::npos);
}

TEST(TextReport, ADeepTreeIsWalkedWithoutRecursionAndStaysNarrow) {
  Profile p = testing::sample_profile();
  ProfileNode chain;
  chain.name = "level";
  chain.energy_j = 1.0;
  for (int d = 0; d < 5000; ++d) {
    ProfileNode parent;
    parent.name = "level";
    parent.energy_j = 1.0;
    parent.children.push_back(std::move(chain));
    chain = std::move(parent);
  }
  p.tree->children.push_back(std::move(chain));
  TextViewOptions view;
  view.full = true;
  view.channels = false;
  const std::string text = render(p, view);
  EXPECT_NE(text.find("[depth 5001] level"), std::string::npos);
  EXPECT_LT(widest_line(text), 400u);
}

}  // namespace
}  // namespace jouleprof

namespace jouleprof {
namespace {

TEST(TextReport, IntervalsAreAPlusMinusColumnAndTheAdviceNamesWhatDominates) {
  Profile p = testing::sample_profile();
  const std::string without = render(p);
  EXPECT_EQ(line_with(without, "node").find("±"), std::string::npos) << without;
  EXPECT_EQ(without.find("uncertainty (95 %)"), std::string::npos) << without;

  for (ChannelSummary& c : p.channels) {
    c.band = EnergyBand{0.98 * c.energy_j, 1.02 * c.energy_j, UncertaintyTerm::kGain};
  }
  walk_tree(*p.tree, [](ProfileNode& n, int) {
    n.band = EnergyBand{0.8 * n.energy_j, 1.25 * n.energy_j, UncertaintyTerm::kSplit};
  });
  TextViewOptions wide;
  wide.width = 160;
  const std::string text = render(p, wide);
  const std::string tree = text.substr(text.find("energy by span"));
  EXPECT_NE(line_with(tree, "node").find("±"), std::string::npos) << tree;
  EXPECT_NE(line_with(tree, "├─ backward").find("±25 %"), std::string::npos) << tree;
  EXPECT_NE(line_starting(text, "total 280 J ±").find("±"), std::string::npos) << text;
  const std::string advice = line_with(text, "uncertainty (95 %)");
  EXPECT_NE(advice.find("mostly gain"), std::string::npos) << advice;
  EXPECT_NE(advice.find("per node mostly split"), std::string::npos) << advice;
  EXPECT_NE(text.find("jouleprof calibrate"), std::string::npos) << text;
  // Within the width a narrow terminal gives.
  TextViewOptions narrow;
  narrow.width = 80;
  EXPECT_LE(widest_line(render(p, narrow)), 80u);
}

}  // namespace
}  // namespace jouleprof

namespace jouleprof {
namespace {

// A merged profile's ranks: each one's share, and with steps, its time and energy in collectives
// and its wait beyond the rank that waited least.
TEST(TextReport, AMergedProfileListsItsRanksAndTheirWait) {
  Profile p = testing::sample_profile();
  p.meta.kind = "merge";
  RecordedOptions::Merge& m = p.meta.options.merge;
  m.rank_energy_j = {{"r0", 1.5}, {"r1", 2.5}, {"r10", 3.0}};
  std::string text = render(p);
  EXPECT_EQ(line_starting(text, "rank "), "rank  energy");
  m.steps = {{"r0", 10}, {"r1", 10}, {"r10", 10}};
  m.step_time_s = {{"r0", 2.0}, {"r1", 2.0}, {"r10", 2.0}};
  m.communication_time_s = {{"r0", 0.5}, {"r1", 0.2}, {"r10", 0.3}};
  m.communication_energy_j = {{"r0", 0.4}, {"r1", 0.1}, {"r10", 0.2}};
  text = render(p);
  EXPECT_NE(line_starting(text, "rank ").find("wait energy  beyond least"), std::string::npos);
  const std::vector<std::string> lines = lines_of(text);
  const auto header = std::find_if(lines.begin(), lines.end(),
                                   [](const std::string& l) { return l.starts_with("rank "); });
  ASSERT_LT(header + 3, lines.end());
  // By rank number, not by label text (r10 after r1).
  EXPECT_NE(header[1].find("25.0 %"), std::string::npos) << header[1];
  EXPECT_NE(header[1].find("300 ms"), std::string::npos) << "r0 waited 0.3 s more than r1";
  EXPECT_NE(header[2].find("0 ns"), std::string::npos) << header[2];
  EXPECT_EQ(header[3].find("  10 "), 0u) << header[3];
}

}  // namespace
}  // namespace jouleprof
