#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "jouleprof/report.hpp"
#include "report/sample_profile.hpp"

namespace jouleprof {
namespace {

// RFC 4180 rows (quoted fields may hold commas, quotes and newlines).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (c == '\n') {
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
    } else {
      field += c;
    }
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

TEST(CsvReport, OneRowPerNodeWithPathsAndFiguresThatParseBack) {
  Profile p = testing::sample_profile();
  p.tree->children.front().children.front().name = "layer \"1\", fused";  // forces quoting
  auto text = render_report("csv", p);
  ASSERT_TRUE(text.ok());
  const auto rows = parse_csv(*text);
  ASSERT_EQ(rows.size(), 1u + 9u);  // header + 9 nodes
  const auto& header = rows[0];
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  for (const char* name :
       {"path", "depth", "energy_j", "self_energy_j", "share", "time_ns", "calls", "provenance",
        "static_energy_j", "dynamic_energy_j", "category", "pass"}) {
    ASSERT_TRUE(col.contains(name)) << name;
  }
  std::map<std::string, const std::vector<std::string>*> by_path;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    ASSERT_EQ(rows[r].size(), header.size()) << "row " << r;
    by_path[rows[r][col["path"]]] = &rows[r];
  }
  const auto& root = *by_path.at("run");
  EXPECT_DOUBLE_EQ(std::stod(root[col["energy_j"]]), 280.0);
  EXPECT_DOUBLE_EQ(std::stod(root[col["share"]]), 1.0);
  EXPECT_DOUBLE_EQ(std::stod(root[col["static_energy_j"]]), 100.0);
  const auto& odd = *by_path.at("run/train_step/layer \"1\", fused/aten::addmm");
  EXPECT_EQ(odd[col["depth"]], "3");
  EXPECT_EQ(odd[col["calls"]], "3");
  EXPECT_EQ(odd[col["category"]], "op");
  EXPECT_EQ(odd[col["pass"]], "forward");
  EXPECT_NEAR(std::stod(odd[col["share"]]), 50.0 / 280.0, 1e-6);
  EXPECT_EQ(odd[col["static_energy_j"]], "");  // no baseline for this node: empty, not 0
  EXPECT_EQ(by_path.at("run/[unattributed]")->at(col["provenance"]), "interpolated");
}

TEST(CsvReport, ControlCharactersInNamesAreEscaped) {
  Profile p = testing::sample_profile();
  p.tree->children.front().name = "step\x1b[2J\r";
  auto text = render_report("csv", p);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->find('\x1b'), std::string::npos) << *text;
  EXPECT_EQ(text->find('\r'), std::string::npos) << *text;
  EXPECT_NE(text->find("step\\x1b[2J\\r"), std::string::npos) << *text;
}

TEST(CsvReport, RefusesAProfileWithoutTree) {
  Profile p = testing::sample_profile();
  p.tree.reset();
  auto text = render_report("csv", p);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().message().find("tree"), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
