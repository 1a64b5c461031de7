// Runs the built jouleprof executable in a shell with stdout and stderr captured to files.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "jouleprof/child_process.hpp"
#include "test_support.hpp"

namespace jouleprof::testing {

inline std::string jouleprof_binary() { return JOULEPROF_BINARY_DIR "/bin/jouleprof"; }

// What jouleprof execs for its libtorch commands, in a build with libtorch
// (tools/jouleprof/torch_commands.hpp).
inline std::string jouleprof_torch_binary() {
  return JOULEPROF_BINARY_DIR "/libexec/jouleprof/jouleprof-torch";
}

inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Invocation {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Returns once `child` is jouleprof itself, or jouleprof-torch that it execs for a libtorch
// command, or has ended. Until the shell execs jouleprof, the pid is the shell's, and dash with -c
// catches SIGINT: a test that signals the pid, or reads its /proc/PID/status to see whether
// jouleprof catches a signal yet, would meet the shell instead. jouleprof itself may be missed: it
// execs jouleprof-torch at once.
inline void wait_until_jouleprof_runs(ChildProcess& child) {
  const std::filesystem::path exe = "/proc/" + std::to_string(child.pid()) + "/exe";
  const std::filesystem::path binary = std::filesystem::canonical(jouleprof_binary());
  const std::filesystem::path torch_binary =
      std::filesystem::weakly_canonical(jouleprof_torch_binary());
  std::error_code unreadable;  // a process that ended has no exe to read
  while (!child.has_ended()) {
    const std::filesystem::path running = std::filesystem::read_symlink(exe, unreadable);
    if (running == binary || running == torch_binary) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// `exec` keeps jouleprof's pid equal to the spawned child's, so tests can signal it; the call
// returns once that pid is jouleprof's. `environment` is added to this process's for jouleprof.
inline Result<ChildProcess> start_jouleprof(const std::vector<std::string>& args,
                                            const TempDir& dir,
                                            const ChildProcess::Environment& environment = {}) {
  std::string command = "exec " + shell_quote(jouleprof_binary());
  for (const std::string& a : args) command += " " + shell_quote(a);
  command += " >" + shell_quote((dir.path() / "stdout").string()) + " 2>" +
             shell_quote((dir.path() / "stderr").string());
  Result<ChildProcess> child = ChildProcess::spawn({"sh", "-c", command}, environment);
  if (child.ok()) wait_until_jouleprof_runs(*child);
  return child;
}

inline Invocation finish(ChildProcess& child, const TempDir& dir) {
  Invocation inv;
  Result<ChildExit> exit = child.wait();
  if (exit.ok()) inv.exit_code = exit->shell_code();
  inv.out = read_file(dir.path() / "stdout");
  inv.err = read_file(dir.path() / "stderr");
  return inv;
}

inline Invocation run_jouleprof(const std::vector<std::string>& args, const TempDir& dir,
                                const ChildProcess::Environment& environment = {}) {
  Result<ChildProcess> child = start_jouleprof(args, dir, environment);
  if (!child.ok()) return Invocation{-1, "", child.error().message()};
  return finish(*child, dir);
}

}  // namespace jouleprof::testing
