// One handler for a set of signals for the life of the object; the handlers it replaced come back
// when it ends. The one way jouleprof catches signals: a command's Ctrl-C/SIGTERM turned into a
// stop request (tools/jouleprof/command_progress.cpp, serve), and every terminating signal passed
// on to a measured child (SignalForwarder).
//
//   void on_stop(int, siginfo_t*, void*) { g_stop.store(true); }   // async-signal-safe only
//   const CaughtSignals caught({SIGINT, SIGTERM}, on_stop, SA_RESTART);
#pragma once

#include <signal.h>

#include <cstddef>
#include <utility>
#include <vector>

namespace jouleprof {

class CaughtSignals {
 public:
  using Handler = void (*)(int signal, siginfo_t* info, void* context);

  // `flags` are sigaction's (SA_RESTART; SA_RESETHAND: a second signal takes the default
  // action); SA_SIGINFO is always added, for `handler`'s signature.
  CaughtSignals(std::vector<int> signals, Handler handler, int flags)
      : signals_(std::move(signals)), previous_(signals_.size()) {
    struct sigaction action {};
    action.sa_sigaction = handler;
    action.sa_flags = flags | SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < signals_.size(); ++i)
      sigaction(signals_[i], &action, &previous_[i]);
  }
  ~CaughtSignals() {
    for (std::size_t i = 0; i < signals_.size(); ++i)
      sigaction(signals_[i], &previous_[i], nullptr);
  }
  CaughtSignals(const CaughtSignals&) = delete;
  CaughtSignals& operator=(const CaughtSignals&) = delete;

 private:
  std::vector<int> signals_;
  std::vector<struct sigaction> previous_;
};

}  // namespace jouleprof
