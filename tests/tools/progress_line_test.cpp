#include "progress_line.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace jouleprof::cli {
namespace {

TEST(ProgressLine, ALogGetsPlainLinesOnly) {
  std::ostringstream log;
  {
    ProgressLine progress(log, /*terminal=*/false);
    progress.status("[jouleprof] 0.5 s");
    progress.line("[jouleprof] epoch 1/2: 5.00 J in 100 ms");
    progress.status("[jouleprof] 1.0 s");
    progress.line("[jouleprof] epoch 2/2: 5.00 J in 100 ms");
  }
  // The status ticks are left out: a log would otherwise hold one line per tick.
  EXPECT_EQ(log.str(),
            "[jouleprof] epoch 1/2: 5.00 J in 100 ms\n[jouleprof] epoch 2/2: 5.00 J in 100 ms\n");
}

TEST(ProgressLine, ATerminalRewritesTheStatusAndKeepsTheLines) {
  std::ostringstream tty;
  {
    ProgressLine progress(tty, /*terminal=*/true);
    progress.status("a");
    progress.status("b");
    progress.line("epoch 1");
    progress.clear();
    progress.line("done");
  }
  EXPECT_EQ(tty.str(), "\r\033[Ka\r\033[Kb\r\033[Kepoch 1\nb\r\033[Kdone\n");
}

TEST(ProgressLine, NothingIsClearedThatWasNotShown) {
  std::ostringstream tty;
  {
    ProgressLine progress(tty, /*terminal=*/true);
    progress.line("only this");
  }
  EXPECT_EQ(tty.str(), "only this\n");
}

}  // namespace
}  // namespace jouleprof::cli
