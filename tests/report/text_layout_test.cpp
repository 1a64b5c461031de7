#include "report/text_layout.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace jouleprof::report {
namespace {

TEST(TextLayout, WidthsCountCodePoints) {
  EXPECT_EQ(display_width("├─ 12 µJ"), 8u);
  EXPECT_EQ(display_width(""), 0u);
}

TEST(TextLayout, FitKeepsHeadAndTailCutKeepsTheHead) {
  EXPECT_EQ(fit_to_width("short", 10), "short");
  const std::string fitted = fit_to_width("abcdefghijklmnopqrstuvwxyz", 9);
  EXPECT_EQ(fitted, "abcd…wxyz");
  EXPECT_EQ(display_width(fitted), 9u);
  EXPECT_EQ(cut_to_width("abcdefghij", 5), "abcd…");
  EXPECT_EQ(fit_to_width("µµµµµµ", 3), "µ…µ");  // cut between code points, never inside one
}

TEST(TextLayout, WrapBreaksAtSpacesWithAHangingIndent) {
  const std::string text = wrap_text(
      "warning: no measured energy source is available: using cpu-estimate (every figure is an "
      "estimate)",
      40, "", "  ");
  std::istringstream lines(text);
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    EXPECT_LE(display_width(line), 40u) << line;
    if (n > 0) {
      EXPECT_TRUE(line.starts_with("  ")) << line;
    }
  }
  EXPECT_GE(n, 3);
  EXPECT_EQ(wrap_text("a\nb", 10, "", "  "), "a\n  b\n");
  // A word longer than the line is cut to fit.
  EXPECT_EQ(wrap_text(std::string(30, 'x'), 10, "", ""), "xxxxx…xxxx\n");
}

TEST(TextLayout, TablesAlignTheirColumns) {
  EXPECT_EQ(format_text_table({"a", "b"}, {{"x", "1"}, {"long name", "22"}}, {false, true}),
            "a           b\nx           1\nlong name  22\n");
}

}  // namespace
}  // namespace jouleprof::report
