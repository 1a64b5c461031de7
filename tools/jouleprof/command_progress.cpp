#include "command_progress.hpp"

#include <unistd.h>

#include <atomic>
#include <iostream>

#include "terminal.hpp"

namespace jouleprof::cli {
namespace {

// Shared with the signal handler: a lock-free atomic pointer, and request_stop() is a lock-free
// atomic store.
std::atomic<ProgressReporter*> g_stoppable{nullptr};
static_assert(std::atomic<ProgressReporter*>::is_always_lock_free);

void ask_to_stop(int, siginfo_t*, void*) {
  if (ProgressReporter* r = g_stoppable.load()) r->request_stop();
}

}  // namespace

void ProgressFlags::add_to(CLI::App& command) {
  command.add_flag("--quiet,-q", quiet,
                   "No progress line and no up-front estimate on stderr (results still print)");
}

CommandProgress::CommandProgress(const ProgressFlags& flags)
    : renderer_(raw_stderr(), progress_style_for(STDERR_FILENO, flags.quiet),
                terminal_width(STDERR_FILENO)),
      reporter_([this](const ProgressEvent& e) { renderer_.show(e); }) {
  g_stoppable.store(&reporter_);
  // Reset on delivery: the next one ends the process (a user who presses Ctrl-C twice means it).
  stop_signals_.emplace(std::vector<int>{SIGINT, SIGTERM}, ask_to_stop, SA_RESETHAND);
}

CommandProgress::~CommandProgress() {
  stop_signals_.reset();
  g_stoppable.store(nullptr);
  renderer_.clear();
}

}  // namespace jouleprof::cli
