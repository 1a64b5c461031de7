#include "command_progress.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <iostream>

namespace jouleprof::cli {
namespace {

// Shared with the signal handler: a lock-free atomic pointer, and request_stop() is a lock-free
// atomic store.
std::atomic<ProgressReporter*> g_stoppable{nullptr};
static_assert(std::atomic<ProgressReporter*>::is_always_lock_free);

constexpr int kStopSignals[] = {SIGINT, SIGTERM};
struct sigaction g_previous[2];

void ask_to_stop(int sig) {
  if (ProgressReporter* r = g_stoppable.load()) r->request_stop();
  // The next one ends the process: a user who presses Ctrl-C twice means it.
  signal(sig, SIG_DFL);
}

}  // namespace

void ProgressFlags::add_to(CLI::App& command) {
  command.add_flag("--quiet,-q", quiet,
                   "No progress line and no up-front estimate on stderr (results still print)");
}

CommandProgress::CommandProgress(const ProgressFlags& flags)
    : renderer_(std::cerr, progress_style_for(STDERR_FILENO, flags.quiet),
                terminal_width(STDERR_FILENO)),
      reporter_([this](const ProgressEvent& e) { renderer_.show(e); }) {
  g_stoppable.store(&reporter_);
  struct sigaction action {};
  action.sa_handler = ask_to_stop;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < 2; ++i) sigaction(kStopSignals[i], &action, &g_previous[i]);
}

CommandProgress::~CommandProgress() {
  for (std::size_t i = 0; i < 2; ++i) sigaction(kStopSignals[i], &g_previous[i], nullptr);
  g_stoppable.store(nullptr);
  renderer_.clear();
}

}  // namespace jouleprof::cli
