// The CLI's progress rendering, driven by a reporter with a fake clock: one updating line on a
// terminal, plain lines at most every 5 s elsewhere, nothing when quiet.
#include "progress_renderer.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace jouleprof::cli {
namespace {

struct Rig {
  TimeNs now = 0;
  std::ostringstream out;
  ProgressRenderer renderer;
  ProgressReporter progress;

  explicit Rig(ProgressStyle style, std::size_t width = 200)
      : renderer(out, style, width),
        progress([this](const ProgressEvent& e) { renderer.show(e); }, [this] { return now; }) {}
};

GateState unstable_gate() {
  GateState g;
  g.channel_id = "rapl:0:package";
  g.value = 0.0412;
  g.threshold = 0.03;
  g.checks = 3;
  g.waited_ns = 6 * kNsPerS;
  g.timeout_ns = 120 * kNsPerS;
  return g;
}

TEST(ProgressLine, SaysItemStepGateElapsedAndEta) {
  ProgressEvent e;
  e.kind = ProgressEventKind::kGate;
  e.task = "measure matmul";
  e.item = 2;
  e.items = 3;
  e.item_name = "size 256";
  e.step = 1;
  e.steps = 10;
  e.phase = "gate";
  e.gate = unstable_gate();
  e.elapsed_ns = 42 * kNsPerS;
  e.eta_ns = 190 * kNsPerS;
  EXPECT_EQ(progress_line(e),
            "measure matmul · size 256 (2/3) · rep 1/10 · gate waiting: rapl:0:package CV 0.0412 "
            "> 0.0300, check 3, 6.00 s of 2 min 00 s · 42.0 s, ETA 3 min 10 s");
  e.gate->temperature = true;
  e.gate->value = 63.0;
  e.gate->threshold = 40.0;
  EXPECT_NE(progress_line(e).find("rapl:0:package 63.0 °C > cap 40.0 °C"), std::string::npos);
  e.gate->note = "rapl:0:package: only 4 of the 10 samples needed so far";
  EXPECT_NE(progress_line(e).find("gate waiting: rapl:0:package: only 4 of the 10"),
            std::string::npos)
      << progress_line(e);
}

TEST(ProgressRenderer, OnATerminalOneLineIsRedrawnInPlace) {
  Rig rig(ProgressStyle::kTerminal);
  rig.progress.begin("kernel-bench", 2, 10 * kNsPerS);
  rig.now += kNsPerS;
  rig.progress.item(1, "relu_0");
  rig.now += kNsPerS;
  rig.progress.phase("gate");
  rig.progress.gate(unstable_gate());
  const std::string text = rig.out.str();
  EXPECT_EQ(text.find('\n'), std::string::npos) << "never a new line on a terminal";
  EXPECT_EQ(text.rfind("\r\x1b[K", 0), 0u) << "each redraw returns to the line's start, erases it";
  const std::string last = text.substr(text.rfind("\r\x1b[K") + 4);
  EXPECT_EQ(last,
            "kernel-bench · relu_0 (1/2) · gate waiting: rapl:0:package CV 0.0412 > 0.0300, check "
            "3, 6.00 s of 2 min 00 s · 2.00 s, ETA 8.00 s");
  rig.progress.end();
  EXPECT_TRUE(rig.out.str().ends_with("\r\x1b[K")) << "the line is gone when the work ends";
}

TEST(ProgressRenderer, OnATerminalRedrawsAreThrottledAndTheLineFitsTheWidth) {
  Rig rig(ProgressStyle::kTerminal, 30);
  rig.progress.begin("measure -- python train.py --epochs 3", 0, 0);
  for (int i = 0; i < 20; ++i) {
    rig.now += 10 * kNsPerMs;
    rig.progress.phase("calls");
  }
  const std::string text = rig.out.str();
  std::size_t redraws = 0;
  for (std::size_t at = text.find("\r\x1b[K"); at != std::string::npos;
       at = text.find("\r\x1b[K", at + 1))
    ++redraws;
  EXPECT_EQ(redraws, 3u) << "begin, then one redraw per 100 ms over 200 ms";
  const std::string last = text.substr(text.rfind("\r\x1b[K") + 4);
  std::size_t columns = 0;
  for (char c : last) columns += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  EXPECT_EQ(columns, 29u) << "one column short of the terminal, so it never wraps: " << last;
}

TEST(ProgressRenderer, PrintClearsTheLineFirst) {
  Rig rig(ProgressStyle::kTerminal);
  rig.progress.begin("measure", 0, 0);
  rig.renderer.print("measure: 3 repetitions × ≥ 2.1 s");
  EXPECT_TRUE(rig.out.str().ends_with("\r\x1b[Kmeasure: 3 repetitions × ≥ 2.1 s\n"))
      << rig.out.str();
}

TEST(ProgressRenderer, ElsewherePlainLinesAtMostEveryFiveSeconds) {
  Rig rig(ProgressStyle::kLines);
  rig.progress.begin("kernel-bench", 100, 0);
  for (std::size_t k = 1; k <= 100; ++k) {
    rig.now += 300 * kNsPerMs;  // 30 s in all
    rig.progress.item(k, "relu_" + std::to_string(k));
    rig.progress.phase("gate");
  }
  rig.progress.end();
  const std::string text = rig.out.str();
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << "no terminal codes in a log";
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  EXPECT_EQ(lines, 5u) << text;  // at 5.1, 10.2, … 25.5 s
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "kernel-bench · relu_17 (17/100) · 5.10 s, ETA 26.8 s");
}

TEST(ProgressRenderer, QuietPrintsNothing) {
  Rig rig(ProgressStyle::kQuiet);
  rig.progress.begin("measure", 1, 0);
  rig.now += 60 * kNsPerS;
  rig.progress.item(1, "a");
  rig.progress.gate(unstable_gate());
  rig.renderer.print("an estimate");
  rig.progress.end();
  EXPECT_EQ(rig.out.str(), "");
}

TEST(ProgressStyle, QuietWinsAndAFileIsNotATerminal) {
  EXPECT_EQ(progress_style_for(0, true), ProgressStyle::kQuiet);
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(progress_style_for(fileno(file), false), ProgressStyle::kLines);
  std::fclose(file);
}

}  // namespace
}  // namespace jouleprof::cli
