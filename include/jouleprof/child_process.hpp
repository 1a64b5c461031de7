// Running a command as a child process and forwarding signals to it (POSIX).
//
//   SignalForwarder forwarder;                          // SIGINT/SIGTERM now recorded
//   JP_TRY(ChildProcess child, ChildProcess::spawn({"python3", "train.py"}));
//   forwarder.forward_to(child.pid());                  // and from now on passed to the child
//   JP_TRY(ChildExit exit, child.wait());
//   return exit.shell_code();                           // code, or 128 + signal like a shell
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof {

struct ChildExit {
  bool exited = false;  // returned from main or called exit
  int code = 0;         // its exit status, when exited
  int signal = 0;       // the signal that ended it, otherwise
  bool core_dumped = false;

  int shell_code() const { return exited ? code : 128 + signal; }
  std::string describe() const;  // "exited with code 3", "killed by signal 11 (Segmentation fault)"
};

class ChildProcess {
 public:
  // Variables the child gets on top of this process's environment (a name given replaces the
  // inherited value); this process's own environment is left as it is.
  using Environment = std::vector<std::pair<std::string, std::string>>;

  // fork + execvpe. A command that cannot be started (not found, not executable) is an error
  // naming it and the reason; the child never runs jouleprof code after the fork.
  static Result<ChildProcess> spawn(const std::vector<std::string>& argv,
                                    const Environment& environment = {});

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() = default;  // a still-running child is left running (it is not ours to kill)

  pid_t pid() const { return pid_; }
  // Non-blocking: the exit once the child has ended, nullopt while it runs.
  std::optional<ChildExit> poll();
  // Non-blocking, without reaping: whether the child has ended. Until poll() or wait() reaps it,
  // its /proc entry keeps its final CPU times (a last reading can still see them).
  bool has_ended() const;
  // Blocks until the child ends.
  Result<ChildExit> wait();

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_ = -1;
  std::optional<ChildExit> exit_;
};

// The signals SignalForwarder catches: every asynchronous signal whose default action would end
// jouleprof (SIGHUP, SIGINT, SIGQUIT, SIGUSR1/2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ, …,
// the real-time signals); not SIGKILL/SIGSTOP (uncatchable) nor the synchronous faults.
std::vector<int> forwarded_signals();

// While alive, catches forwarded_signals(). A signal sent to jouleprof by another process (kill,
// a job scheduler) is forwarded to the child; one raised by the terminal (Ctrl-C) is not, because
// the terminal already delivers it to the child, which shares jouleprof's process group. Either
// way the signal is remembered, so the run can be marked as cut short. One instance at a time.
class SignalForwarder {
 public:
  SignalForwarder();
  ~SignalForwarder();
  SignalForwarder(const SignalForwarder&) = delete;
  SignalForwarder& operator=(const SignalForwarder&) = delete;

  void forward_to(pid_t child);
  // The last signal received (0: none).
  int received() const;
};

}  // namespace jouleprof
