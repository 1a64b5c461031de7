#include <gtest/gtest.h>

#include "jouleprof/report.hpp"
#include "report/sample_profile.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

TEST(ReportRegistry, ListsEveryFormatOnceAndFindsThemByName) {
  const std::vector<std::string_view> expected{"text",  "json",       "csv",
                                               "trace", "flamegraph", "html"};
  ASSERT_EQ(report_formats().size(), expected.size());
  for (std::string_view name : expected) {
    const ReportFormat* f = find_report_format(name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->name, name);
    EXPECT_FALSE(f->extension.empty());
  }
  EXPECT_EQ(find_report_format("pdf"), nullptr);
}

TEST(ReportRegistry, UnknownFormatIsAnInputErrorNamingIt) {
  auto r = render_report("pdf", testing::sample_profile());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().message().find("'pdf'"), std::string::npos) << r.error().message();
}

TEST(ReportRegistry, OnlyDiffCapableFormatsAcceptABaseline) {
  const Profile p = testing::sample_profile();
  ReportOptions options;
  options.baseline = &p;
  for (const ReportFormat& f : report_formats()) {
    auto r = render_report(f.name, p, options);
    EXPECT_EQ(r.ok(), f.supports_diff) << f.name;
  }
}

TEST(ReportRegistry, EveryFormatRendersTheSampleAndWritesAFile) {
  const Profile p = testing::sample_profile();
  testing::TempDir dir;
  for (const ReportFormat& f : report_formats()) {
    const std::string path = (dir.path() / ("out." + std::string(f.extension))).string();
    ASSERT_TRUE(write_report(f.name, p, {}, path).ok()) << f.name;
    auto rendered = render_report(f.name, p);
    ASSERT_TRUE(rendered.ok()) << f.name;
    EXPECT_EQ(testing::read_file(path), *rendered) << f.name;
  }
}

TEST(ReportRegistry, WriteToAMissingDirectorySaysSo) {
  const Status s = write_report("text", testing::sample_profile(), {}, "/nonexistent-dir/x.txt");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(s.error().message(),
            "/nonexistent-dir/x.txt: cannot open for writing: No such file or directory");
}

TEST(ReportRegistry, ImpossibleFiguresAreFlaggedInEveryFormat) {
  Profile p = testing::sample_profile();
  ASSERT_TRUE(p.tree);
  p.tree->energy_j = 0.01;  // the children now hold far more than their parent
  for (const ReportFormat& f : report_formats()) {
    if (f.name == "csv") continue;  // a table of numbers: the CLI says it on stderr
    const Result<std::string> text = render_report(f.name, p);
    ASSERT_TRUE(text.ok()) << f.name << ": " << text.error().message();
    EXPECT_NE(text->find("the tree does not sum"), std::string::npos) << f.name;
  }
  EXPECT_TRUE(figure_problems(testing::sample_profile()).empty());
}

}  // namespace
}  // namespace jouleprof
