// jouleprof without libtorch, handing its libtorch commands to jouleprof-torch: which command lines
// it hands over (torch_helper.cpp, compiled in), and end to end that jouleprof loads no libtorch,
// lists the commands it does not run, and says so in one line when the helper is missing.
#include "torch_helper.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "jouleprof_runner.hpp"
#include "torch_commands.hpp"

namespace jouleprof::testing {
namespace {

using cli::kTorchCommands;
using cli::torch_command_in;

std::string command_in(std::vector<const char*> argv) {
  return std::string(torch_command_in(argv));
}

TEST(TorchCommandIn, EveryTorchCommandWhereverTheTopLevelFlagsAre) {
  for (const cli::TorchCommand& command : kTorchCommands) {
    SCOPED_TRACE(command.name);
    const std::string name(command.name);
    EXPECT_EQ(command_in({"jouleprof", name.c_str()}), name);
    EXPECT_EQ(command_in({"jouleprof", name.c_str(), "--help"}), name);
    EXPECT_EQ(command_in({"jouleprof", "--version", name.c_str(), "--device", "cpu"}), name);
  }
}

TEST(TorchCommandIn, MeasureOnlyWithOpOrHelpBeforeTheMeasuredCommand) {
  EXPECT_EQ(command_in({"jouleprof", "measure", "--op", "matmul", "--sizes", "64"}), "measure");
  EXPECT_EQ(command_in({"jouleprof", "measure", "--quick", "--op=matmul"}), "measure");
  EXPECT_EQ(command_in({"jouleprof", "measure", "--help"}), "measure");
  EXPECT_EQ(command_in({"jouleprof", "measure", "-h"}), "measure");
  EXPECT_EQ(command_in({"jouleprof", "measure", "--repeat", "3", "--", "./step"}), "");
  EXPECT_EQ(command_in({"jouleprof", "measure", "--", "./step", "--op", "x", "--help"}), "");
  EXPECT_EQ(command_in({"jouleprof", "measure", "--operator"}), "");
}

TEST(TorchCommandIn, NotForTheOtherCommandsNorWithoutOne) {
  EXPECT_EQ(command_in({"jouleprof", "run", "--", "jouleprof", "profile"}), "");
  EXPECT_EQ(command_in({"jouleprof", "sensors", "--help"}), "");
  EXPECT_EQ(command_in({"jouleprof", "--help"}), "");
  EXPECT_EQ(command_in({"jouleprof"}), "");
  EXPECT_EQ(command_in({}), "");
}

// Every library the loader opens for `jouleprof version`, needed or dlopen()ed: LD_DEBUG=files
// writes a "file=<name> [ns];  needed by …" or "…dynamically loaded by …" line for each.
std::vector<std::string> libraries_loaded(const std::string& binary) {
  TempDir dir;
  // Through env(1), so that the shell's own libraries are not in the trace.
  const std::string command = "exec env LD_DEBUG=files " + shell_quote(binary) + " version 2>" +
                              shell_quote((dir.path() / "loader").string()) + " >/dev/null";
  Result<ChildProcess> child = ChildProcess::spawn({"sh", "-c", command});
  EXPECT_TRUE(child.ok()) << child.error().message();
  if (!child.ok()) return {};
  Result<ChildExit> exit = child->wait();
  EXPECT_TRUE(exit.ok() && exit->shell_code() == 0);
  std::vector<std::string> libraries;
  std::istringstream lines(read_file(dir.path() / "loader"));
  for (std::string line; std::getline(lines, line);) {
    const std::size_t file = line.find("file=");
    if (file == std::string::npos) continue;
    libraries.push_back(line.substr(file + 5, line.find_first_of(" ;", file) - file - 5));
  }
  return libraries;
}

bool any_contains(const std::vector<std::string>& libraries, const std::string& part) {
  for (const std::string& library : libraries) {
    if (library.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(TorchHelper, JouleprofLoadsNoLibtorchAndTheHelperDoes) {
  const std::vector<std::string> lean = libraries_loaded(jouleprof_binary());
  ASSERT_TRUE(any_contains(lean, "libfmt")) << "the loader's trace was not read";
  EXPECT_FALSE(any_contains(lean, "libtorch"));
  EXPECT_FALSE(any_contains(lean, "libc10"));
  // Nor XGBoost, which only the predicting commands open (src/predict/xgboost_library.hpp).
  EXPECT_FALSE(any_contains(lean, "libxgboost"));
  // The same check sees libtorch where it is loaded.
  EXPECT_TRUE(any_contains(libraries_loaded(jouleprof_torch_binary()), "libtorch"));
}

TEST(TorchHelper, HelpListsTheTorchCommandsAndMeasureHelpListsOp) {
  TempDir dir;
  const Invocation help = run_jouleprof({"--help"}, dir);
  ASSERT_EQ(help.exit_code, 0) << help.err;
  for (const cli::TorchCommand& command : kTorchCommands) {
    EXPECT_NE(help.out.find("  " + std::string(command.name) + " "), std::string::npos)
        << command.name << '\n'
        << help.out;
    EXPECT_NE(help.out.find(command.description), std::string::npos) << command.name;
  }
  TempDir measure_dir;
  const Invocation measure = run_jouleprof({"measure", "--help"}, measure_dir);
  ASSERT_EQ(measure.exit_code, 0) << measure.err;
  EXPECT_NE(measure.out.find("--op"), std::string::npos) << measure.out;
}

TEST(TorchHelper, ATorchCommandRunsInTheHelperUnderJouleprofsName) {
  TempDir dir;
  const Invocation list = run_jouleprof({"profile", "--list-models"}, dir);
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("bert-mini"), std::string::npos) << list.out;
  TempDir help_dir;
  const Invocation help = run_jouleprof({"calibrate", "--help"}, help_dir);
  ASSERT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find("Usage: " + jouleprof_binary() + " calibrate"), std::string::npos)
      << help.out;
}

TEST(TorchHelper, AMissingHelperIsOneLineAndExitCode1) {
  const ChildProcess::Environment missing{{"JOULEPROF_TORCH_HELPER", "/nonexistent"}};
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"profile", "--model", "bert-mini"},
        std::vector<std::string>{"measure", "--op", "matmul", "--sizes", "64"}}) {
    SCOPED_TRACE(args[0]);
    TempDir dir;
    const Invocation inv = run_jouleprof(args, dir, missing);
    EXPECT_EQ(inv.exit_code, 1);
    EXPECT_EQ(inv.out, "");
    EXPECT_EQ(inv.err, "jouleprof: '" + args[0] +
                           "' needs jouleprof-torch, expected at /nonexistent: No such file or "
                           "directory (build the jouleprof-torch target, or set "
                           "JOULEPROF_TORCH_HELPER to its path)\n");
  }
  TempDir dir;
  const Invocation version = run_jouleprof({"version"}, dir, missing);
  EXPECT_EQ(version.exit_code, 0) << "commands without libtorch need no helper: " << version.err;
}

}  // namespace
}  // namespace jouleprof::testing
