#include <gtest/gtest.h>

#include <sstream>

#include "jouleprof/report.hpp"
#include "report/sample_profile.hpp"

namespace jouleprof {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The tree table's line whose node column holds `name` indented by `depth` levels: the node
// column starts where the header says "node".
const std::string* tree_line(const std::vector<std::string>& lines, const std::string& name,
                             int depth) {
  std::size_t column = std::string::npos;
  for (const std::string& l : lines) {
    if (l.find("energy") != std::string::npos && l.ends_with(" node")) column = l.size() - 4;
  }
  if (column == std::string::npos) return nullptr;
  const std::string cell = std::string(static_cast<std::size_t>(depth) * 2, ' ') + name;
  for (const std::string& l : lines) {
    if (l.size() >= column + cell.size() && l.compare(column, cell.size(), cell) == 0 &&
        (l.size() == column + cell.size() || l[column + cell.size()] == ' ')) {
      return &l;
    }
  }
  return nullptr;
}

TEST(TextReport, ShowsTheTreeIndentedWithEnergyShareAndProvenance) {
  auto text = render_report("text", testing::sample_profile());
  ASSERT_TRUE(text.ok());
  const auto lines = lines_of(*text);
  const std::string* root = tree_line(lines, "run", 0);
  const std::string* addmm = tree_line(lines, "aten::addmm", 3);
  const std::string* unattributed = tree_line(lines, "[unattributed]", 1);
  ASSERT_NE(root, nullptr) << *text;
  ASSERT_NE(addmm, nullptr) << *text;
  ASSERT_NE(unattributed, nullptr) << *text;
  EXPECT_NE(root->find("280 J"), std::string::npos);
  EXPECT_NE(root->find("100.0 %"), std::string::npos);
  EXPECT_NE(root->find("static 100 J, dynamic 180 J"), std::string::npos);
  EXPECT_NE(addmm->find("17.9 %"), std::string::npos);  // 50 / 280
  EXPECT_NE(unattributed->find("interpolated"), std::string::npos);
}

TEST(TextReport, ListsChannelsWarningsAndAttribution) {
  Profile p = testing::sample_profile();
  p.meta.partial = true;
  auto text = render_report("text", p);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("PARTIAL RUN"), std::string::npos);
  EXPECT_NE(text->find("total energy: 280 J"), std::string::npos)
      << *text;  // 40 + 240, core nested
  EXPECT_NE(text->find("not added to the total"), std::string::npos);
  EXPECT_NE(text->find("NVML timeout"), std::string::npos);
  EXPECT_NE(text->find("regress"), std::string::npos);
}

TEST(TextReport, ShowsTheObservedProcessesShareAsAttributed) {
  Profile p = testing::sample_profile();
  for (ChannelSummary& c : p.channels) {
    c.process = ProcessFigures{0.5 * c.energy_j, 0.5, {}, {}, "cpu-time"};
  }
  p.meta.options["process.observed"] = "pid 9 and its descendants";
  auto text = render_report("text", p);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("observed processes: 140 J (attributed share of pid 9 and its descendants)"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("(attributed:cpu-time, 50.0 %)"), std::string::npos) << *text;
}

TEST(TextReport, AProfileWithoutTreeSaysSo) {
  Profile p = testing::sample_profile();
  p.tree.reset();
  auto text = render_report("text", p);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("no breakdown tree"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
