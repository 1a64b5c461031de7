#include "jouleprof/child_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <optional>
#include <string_view>

#include "core/caught_signals.hpp"

namespace jouleprof {
namespace {

// Shared with the signal handler: lock-free atomics only.
std::atomic<pid_t> g_forward_pid{0};
std::atomic<int> g_received_signal{0};
// A signal sent by a process before there was a child to pass it to: forward_to passes it on.
std::atomic<int> g_unforwarded_signal{0};
static_assert(std::atomic<pid_t>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

void forward_signal(int sig, siginfo_t* info, void*) {
  g_received_signal.store(sig);
  // si_code <= 0: sent by a process (kill, sigqueue, tgkill); > 0: raised by the kernel, e.g. the
  // terminal's Ctrl-C, which already reached the child through the foreground process group.
  if (info == nullptr || info->si_code > 0) return;
  const pid_t child = g_forward_pid.load();
  if (child > 0) {
    kill(child, sig);
  } else {
    g_unforwarded_signal.store(sig);
  }
}

// The asynchronous signals whose default action ends a process. Left out: SIGKILL and SIGSTOP
// (uncatchable), and the synchronous faults (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS,
// SIGABRT), which, raised by jouleprof's own code, must end it as they would.
constexpr int kFixedSignals[] = {SIGHUP,  SIGINT,    SIGQUIT, SIGUSR1,   SIGUSR2,
                                 SIGPIPE, SIGALRM,   SIGTERM, SIGSTKFLT, SIGXCPU,
                                 SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,     SIGPWR};
// The forwarder alive (one at a time).
std::optional<CaughtSignals> g_caught;

ChildExit exit_from_status(int status) {
  ChildExit e;
  if (WIFEXITED(status)) {
    e.exited = true;
    e.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    e.signal = WTERMSIG(status);
    e.core_dumped = WCOREDUMP(status);
  }
  return e;
}

}  // namespace

std::vector<int> forwarded_signals() {
  std::vector<int> signals(std::begin(kFixedSignals), std::end(kFixedSignals));
  for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig) signals.push_back(sig);
  return signals;
}

std::string ChildExit::describe() const {
  if (exited) return fmt::format("exited with code {}", code);
  return fmt::format("killed by signal {} ({}){}", signal, strsignal(signal),
                     core_dumped ? ", core dumped" : "");
}

Result<ChildProcess> ChildProcess::spawn(const std::vector<std::string>& argv,
                                         const Environment& environment) {
  if (argv.empty()) return invalid_input("command line", "command", "", "no command given");
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The child's environment is built here: after the fork only async-signal-safe calls are made.
  std::vector<std::string> variables;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    const bool replaced = std::any_of(environment.begin(), environment.end(),
                                      [&](const auto& v) { return v.first == name; });
    if (!replaced) variables.emplace_back(entry);
  }
  for (const auto& [name, value] : environment) variables.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& v : variables) envp.push_back(v.data());
  envp.push_back(nullptr);

  // exec's errno travels back through a close-on-exec pipe: EOF means exec succeeded.
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return Error(ErrorCode::kIo, fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  }
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return Error(ErrorCode::kIo, fmt::format("cannot fork: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    close(fds[0]);
    // The child starts with default signal dispositions and an empty mask, whatever jouleprof
    // installed (exec keeps ignored signals ignored, and the mask as it is).
    for (int sig : forwarded_signals()) signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execvpe(args[0], args.data(), envp.data());
    const int err = errno;
    (void)!write(fds[1], &err, sizeof(err));
    _exit(127);
  }
  close(fds[1]);
  int exec_errno = 0;
  ssize_t n = 0;
  do {
    n = read(fds[0], &exec_errno, sizeof(exec_errno));
  } while (n < 0 && errno == EINTR);
  close(fds[0]);
  if (n == static_cast<ssize_t>(sizeof(exec_errno))) {
    int status = 0;
    waitpid(pid, &status, 0);
    const ErrorCode code = exec_errno == ENOENT   ? ErrorCode::kNotFound
                           : exec_errno == EACCES ? ErrorCode::kPermissionDenied
                                                  : ErrorCode::kIo;
    return Error(code, fmt::format("cannot run '{}': {}", argv[0], std::strerror(exec_errno)));
  }
  return ChildProcess(pid);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept : pid_(other.pid_), exit_(other.exit_) {
  other.pid_ = -1;
}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  pid_ = other.pid_;
  exit_ = other.exit_;
  other.pid_ = -1;
  return *this;
}

std::optional<ChildExit> ChildProcess::poll() {
  if (exit_ || pid_ <= 0) return exit_;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) exit_ = exit_from_status(status);
  return exit_;
}

bool ChildProcess::has_ended() const {
  if (exit_ || pid_ <= 0) return true;
  siginfo_t info{};
  if (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    return errno == ECHILD;  // not our child (any more): nothing left to wait for
  }
  return info.si_pid == pid_;  // 0 while it runs
}

Result<ChildExit> ChildProcess::wait() {
  if (exit_) return *exit_;
  if (pid_ <= 0) return Error(ErrorCode::kInternal, "wait on a child that was never started");
  int status = 0;
  pid_t r = 0;
  do {
    r = waitpid(pid_, &status, 0);
  } while (r < 0 && errno == EINTR);
  if (r != pid_) {
    return Error(ErrorCode::kIo, fmt::format("waitpid({}): {}", pid_, std::strerror(errno)));
  }
  exit_ = exit_from_status(status);
  return *exit_;
}

SignalForwarder::SignalForwarder() {
  g_forward_pid.store(0);
  g_received_signal.store(0);
  g_unforwarded_signal.store(0);
  g_caught.emplace(forwarded_signals(), forward_signal, SA_RESTART);
}

SignalForwarder::~SignalForwarder() {
  g_caught.reset();
  g_forward_pid.store(0);
}

void SignalForwarder::forward_to(pid_t child) {
  g_forward_pid.store(child);
  // One that came between the child's start and now (it would otherwise run on, never told).
  if (const int pending = g_unforwarded_signal.exchange(0); pending != 0 && child > 0)
    kill(child, pending);
}

int SignalForwarder::received() const { return g_received_signal.load(); }

}  // namespace jouleprof
