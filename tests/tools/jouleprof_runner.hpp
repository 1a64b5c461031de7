// Runs the built jouleprof executable in a shell with stdout and stderr captured to files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "jouleprof/child_process.hpp"
#include "test_support.hpp"

namespace jouleprof::testing {

inline std::string jouleprof_binary() { return JOULEPROF_BINARY_DIR "/bin/jouleprof"; }

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

// `exec` keeps jouleprof's pid equal to the spawned child's, so tests can signal it.
inline Result<ChildProcess> start_jouleprof(const std::vector<std::string>& args,
                                            const TempDir& dir) {
  std::string command = "exec " + shell_quote(jouleprof_binary());
  for (const std::string& a : args) command += " " + shell_quote(a);
  command += " >" + shell_quote((dir.path() / "stdout").string()) + " 2>" +
             shell_quote((dir.path() / "stderr").string());
  return ChildProcess::spawn({"sh", "-c", command});
}

inline Invocation finish(ChildProcess& child, const TempDir& dir) {
  Invocation inv;
  Result<ChildExit> exit = child.wait();
  if (exit.ok()) inv.exit_code = exit->shell_code();
  inv.out = read_file(dir.path() / "stdout");
  inv.err = read_file(dir.path() / "stderr");
  return inv;
}

inline Invocation run_jouleprof(const std::vector<std::string>& args, const TempDir& dir) {
  Result<ChildProcess> child = start_jouleprof(args, dir);
  if (!child.ok()) return Invocation{-1, "", child.error().message()};
  return finish(*child, dir);
}

}  // namespace jouleprof::testing
