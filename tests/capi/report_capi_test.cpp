// The reports section of the C API: jp_report, jp_format_tree and jp_write_samples on a written
// profile, as the Python package calls them.
#include <gtest/gtest.h>

#include <string>

#include "jouleprof/jouleprof.h"
#include "jouleprof/profile.hpp"
#include "jouleprof/samples_csv.hpp"
#include "report/sample_profile.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::TempDir;

std::string written_profile(const TempDir& dir, const Profile& profile) {
  const std::string path = (dir.path() / "profile.json").string();
  EXPECT_TRUE(write_profile_json(profile, path).ok());
  return path;
}

TEST(ReportCApi, FormatTreeIsTheCommandLinesViewWithItsLimits) {
  const TempDir dir;
  const std::string profile = written_profile(dir, testing::sample_profile());
  const char* text = nullptr;
  ASSERT_EQ(jp_format_tree(profile.c_str(), nullptr, &text), JP_OK) << jp_last_error();
  const std::string all(text);
  EXPECT_EQ(all.rfind("jouleprof profile: ", 0), 0U) << all;
  EXPECT_NE(all.find("% of parent"), std::string::npos);
  EXPECT_NE(all.find("top operators"), std::string::npos);
  EXPECT_NE(all.find("├─ backward"), std::string::npos);
  EXPECT_EQ(all.find("channels:"), std::string::npos) << "the tree's view, not the whole report";

  // The root and train_step, each with the "(N more)" row of its hidden children (their energy
  // in the energy column): four rows; the top operators left out.
  ASSERT_EQ(jp_format_tree(profile.c_str(), R"({"max_rows": 4, "max_depth": 2, "top": 0})", &text),
            JP_OK)
      << jp_last_error();
  const std::string limited(text);
  EXPECT_NE(limited.find("train_step"), std::string::npos) << limited;
  EXPECT_EQ(limited.find("aten::addmm"), std::string::npos) << "below max_depth";
  EXPECT_NE(limited.find("│  └─ (2 more)   240 J"), std::string::npos) << limited;
  EXPECT_NE(limited.find("└─ (1 more)     30.0 J"), std::string::npos) << limited;
  EXPECT_EQ(limited.find("top operators"), std::string::npos);

  ASSERT_EQ(jp_format_tree(profile.c_str(), R"({"full": true, "width": 40})", &text), JP_OK);
  EXPECT_NE(std::string(text).find("sgemm_128x64"), std::string::npos);
}

TEST(ReportCApi, FormatTreeErrorsNameTheOptionOrTheMissingTree) {
  const TempDir dir;
  const std::string profile = written_profile(dir, testing::sample_profile());
  const char* text = nullptr;
  EXPECT_EQ(jp_format_tree(profile.c_str(), R"({"max_rows": "ten"})", &text), JP_ERR_INVALID_INPUT);
  // Worded by JsonFields, as every JSON reader words its errors.
  EXPECT_STREQ(jp_last_error(),
               "jp_format_tree options_json: field 'max_rows' is not a whole number in range "
               "(\"ten\")");
  EXPECT_STREQ(text, "");
  EXPECT_EQ(jp_format_tree(profile.c_str(), R"({"min_share": 2})", &text), JP_ERR_INVALID_INPUT);
  EXPECT_STREQ(jp_last_error(),
               "jp_format_tree options_json: field 'min_share' is not a number from 0 to 1 (2)");
  EXPECT_EQ(jp_format_tree(profile.c_str(), R"({"rows": 3})", &text), JP_ERR_INVALID_INPUT);
  EXPECT_STREQ(jp_last_error(),
               "jp_format_tree options_json: field 'rows' is unknown (known: max_depth, max_rows, "
               "max_children, min_share, top, width, full)");
  EXPECT_EQ(jp_format_tree(profile.c_str(), R"({"full": 1})", &text), JP_ERR_INVALID_INPUT);
  EXPECT_STREQ(jp_last_error(),
               "jp_format_tree options_json: field 'full' is not true or false (1)");
  EXPECT_EQ(jp_format_tree(profile.c_str(), "{max_rows", &text), JP_ERR_INVALID_INPUT);
  EXPECT_EQ(std::string(jp_last_error()).rfind("jp_format_tree options_json: not valid JSON: ", 0),
            0u)
      << jp_last_error();
  EXPECT_EQ(jp_format_tree(profile.c_str(), R"({"max_rows": 3, "max_rows": 300})", &text),
            JP_ERR_INVALID_INPUT);
  EXPECT_STREQ(jp_last_error(),
               "jp_format_tree options_json: key 'max_rows' appears twice in one object, and "
               "JSON does not say which value holds");

  Profile untreed = testing::sample_profile();
  untreed.tree.reset();
  const std::string bare = written_profile(dir, untreed);
  EXPECT_EQ(jp_format_tree(bare.c_str(), nullptr, &text), JP_ERR_INVALID_INPUT);
  EXPECT_NE(std::string(jp_last_error()).find("no breakdown tree"), std::string::npos);
  EXPECT_EQ(jp_format_tree(nullptr, nullptr, &text), JP_ERR_INVALID_INPUT);
  EXPECT_EQ(jp_format_tree(profile.c_str(), nullptr, nullptr), JP_ERR_INVALID_INPUT);
}

TEST(ReportCApi, ReportWritesEachFormatAndRejectsUnknownOnes) {
  const TempDir dir;
  const std::string profile = written_profile(dir, testing::sample_profile());
  const std::string html = (dir.path() / "out.html").string();
  ASSERT_EQ(jp_report(profile.c_str(), "html", html.c_str()), JP_OK) << jp_last_error();
  EXPECT_EQ(testing::read_file(html).rfind("<!DOCTYPE html>", 0), 0U);
  const std::string svg = (dir.path() / "flame.svg").string();
  ASSERT_EQ(jp_report(profile.c_str(), "flamegraph", svg.c_str()), JP_OK) << jp_last_error();
  EXPECT_NE(testing::read_file(svg).find("<svg"), std::string::npos);

  const std::string other = (dir.path() / "out.xyz").string();
  EXPECT_EQ(jp_report(profile.c_str(), "xyz", other.c_str()), JP_ERR_INVALID_INPUT);
  EXPECT_NE(std::string(jp_last_error()).find("xyz"), std::string::npos) << jp_last_error();
  EXPECT_EQ(jp_report((dir.path() / "missing.json").string().c_str(), "html", html.c_str()),
            JP_ERR_NOT_FOUND);
  EXPECT_NE(std::string(jp_last_error()).find("missing.json"), std::string::npos);
  EXPECT_EQ(jp_report(profile.c_str(), nullptr, html.c_str()), JP_ERR_INVALID_INPUT);
}

TEST(ReportCApi, WriteSamplesGivesWhatAttributeReadsBack) {
  const TempDir dir;
  const Profile source = testing::sample_profile();
  const std::string profile = written_profile(dir, source);
  const std::string csv = (dir.path() / "samples.csv").string();
  ASSERT_EQ(jp_write_samples(profile.c_str(), csv.c_str()), JP_OK) << jp_last_error();
  auto series = read_samples_csv(csv);
  ASSERT_TRUE(series.ok()) << series.error().message();
  ASSERT_EQ(series->size(), source.series.size());
  for (std::size_t i = 0; i < series->size(); ++i) {
    EXPECT_EQ((*series)[i].channel().id, source.series[i].channel().id);
    EXPECT_EQ((*series)[i].size(), source.series[i].size());
  }
  EXPECT_EQ(jp_write_samples(profile.c_str(), nullptr), JP_ERR_INVALID_INPUT);
}

}  // namespace
}  // namespace jouleprof
