// The HTML report in a real browser: headless Chromium (Debian's `chromium`) loads the page from
// a file with all network resolution disabled, takes a screenshot and dumps the DOM. The page must
// render (sections in the DOM), the screenshot must not be blank, and the console must stay free
// of errors. A page with a deliberate script error checks that such errors are seen. Skipped when
// Chromium is not installed (JOULEPROF_CHROMIUM names another binary).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "jouleprof/report.hpp"
#include "report/png_pixels.hpp"
#include "report/sample_profile.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

namespace fs = std::filesystem;

fs::path chromium_binary() {
  if (const char* env = std::getenv("JOULEPROF_CHROMIUM")) return env;
  return "/usr/bin/chromium";
}

struct BrowserRun {
  int exit_code = -1;
  std::string dom;
  std::string log;
  fs::path screenshot;
};

// One Chromium process per call (screenshot and DOM dump are separate invocations in headless
// mode); each gets its own profile directory and is killed after 90 s at most.
BrowserRun load_in_chromium(const fs::path& page, const fs::path& work) {
  BrowserRun run;
  run.screenshot = work / "shot.png";
  const std::string common =
      " --headless --no-sandbox --disable-gpu --disable-background-networking "
      "--disable-component-update"
      " --disable-sync --no-first-run --disable-extensions --host-resolver-rules='MAP * ~NOTFOUND'"
      " --enable-logging=stderr --v=0 --window-size=1280,1600 ";
  const std::string url = "file://" + page.string();
  const std::string shot = "timeout 90 " + chromium_binary().string() + common +
                           "--user-data-dir=" + (work / "p1").string() +
                           " --screenshot=" + run.screenshot.string() + " '" + url +
                           "' >/dev/null 2>" + (work / "shot.log").string();
  const std::string dump = "timeout 90 " + chromium_binary().string() + common +
                           "--user-data-dir=" + (work / "p2").string() + " --dump-dom '" + url +
                           "' >" + (work / "dom.html").string() + " 2>" +
                           (work / "dom.log").string();
  run.exit_code = std::system(shot.c_str());
  const int dump_code = std::system(dump.c_str());
  if (run.exit_code == 0) run.exit_code = dump_code;
  run.dom = testing::read_file(work / "dom.html");
  run.log = testing::read_file(work / "shot.log") + testing::read_file(work / "dom.log");
  return run;
}

// Console messages at error level, and uncaught exceptions, as Chromium logs them.
std::vector<std::string> console_errors(const std::string& log) {
  std::vector<std::string> errors;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    const bool console = line.find("CONSOLE") != std::string::npos;
    if ((console &&
         (line.find("ERROR") != std::string::npos || line.find("Uncaught") != std::string::npos)) ||
        line.find("Uncaught") != std::string::npos) {
      errors.push_back(line);
    }
  }
  return errors;
}

class HtmlInChromium : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(chromium_binary()))
      GTEST_SKIP() << "chromium not installed: " << chromium_binary();
  }
  testing::TempDir dir_;
};

TEST_F(HtmlInChromium, RendersANonBlankPageWithoutConsoleErrors) {
  auto html = render_report("html", testing::sample_profile());
  ASSERT_TRUE(html.ok());
  const fs::path page = dir_.write("report.html", *html);
  const BrowserRun run = load_in_chromium(page, dir_.path());
  ASSERT_EQ(run.exit_code, 0) << run.log;
  for (const char* id : {"summary", "power", "tree", "operators", "provenance", "warnings"}) {
    EXPECT_NE(run.dom.find(std::string("<section id=\"") + id + "\""), std::string::npos) << id;
  }
  EXPECT_NE(run.dom.find("power-chart"), std::string::npos);
  EXPECT_TRUE(console_errors(run.log).empty()) << console_errors(run.log).front();
  const auto stats = testing::png_pixel_stats(run.screenshot.string());
  ASSERT_TRUE(stats.has_value()) << "screenshot missing or not a PNG we can read";
  EXPECT_EQ(stats->width, 1280u);
  EXPECT_GT(stats->non_white_fraction, 0.02);
  EXPECT_GT(stats->distinct_colours, 32u);
}

TEST_F(HtmlInChromium, ABlankPageAndAScriptErrorAreDetected) {
  const fs::path page = dir_.write(
      "broken.html",
      "<!DOCTYPE "
      "html><html><body><script>undefined_function_for_the_test();</script></body></html>");
  const BrowserRun run = load_in_chromium(page, dir_.path());
  ASSERT_EQ(run.exit_code, 0) << run.log;
  EXPECT_FALSE(console_errors(run.log).empty()) << run.log;
  const auto stats = testing::png_pixel_stats(run.screenshot.string());
  ASSERT_TRUE(stats.has_value());
  EXPECT_LT(stats->non_white_fraction, 0.001);
}

}  // namespace
}  // namespace jouleprof
