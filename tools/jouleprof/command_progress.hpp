// What a long command shares: --quiet, a progress reporter rendered on stderr, and SIGINT/SIGTERM
// turned into a stop request, so that the work ends at its next checkpoint, keeps what it
// finished and says what is missing. A second signal ends the process at once.
//
//   CommandProgress progress(flags, "kernel-bench");
//   progress.print(estimate_text);                       // stderr, unless --quiet
//   progress->begin("kernel-bench", kernels.size(), estimate_ns);
//   measure_kernels(..., progress.reporter());
//   if (progress.interrupted()) ... list what is missing, return kExitInterrupted
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>

#include "core/caught_signals.hpp"
#include "jouleprof/progress.hpp"
#include "progress_renderer.hpp"

namespace jouleprof::cli {

struct ProgressFlags {
  bool quiet = false;
  void add_to(CLI::App& command);
};

// 128 + SIGINT, as shells report a command ended by Ctrl-C.
inline constexpr int kExitInterrupted = 130;

class CommandProgress {
 public:
  explicit CommandProgress(const ProgressFlags& flags);
  ~CommandProgress();  // restores the signal handlers
  CommandProgress(const CommandProgress&) = delete;
  CommandProgress& operator=(const CommandProgress&) = delete;

  ProgressReporter* reporter() { return &reporter_; }
  ProgressReporter* operator->() { return &reporter_; }
  // A line of its own on stderr (an estimate, a note), unless --quiet.
  void print(const std::string& line) { renderer_.print(line); }
  // Clears the updating line before the command writes to stdout on the same terminal.
  void clear() { renderer_.clear(); }
  bool interrupted() const { return reporter_.stop_requested(); }

 private:
  ProgressRenderer renderer_;
  ProgressReporter reporter_;
  std::optional<CaughtSignals> stop_signals_;
};

}  // namespace jouleprof::cli
