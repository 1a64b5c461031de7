// How subcommands plug into the jouleprof executable: each subcommand lives in its own file and
// provides one `add_<name>_command` function that declares its options on a CLI11 subcommand and
// returns the function to run once the command line is parsed. commands.cpp lists them all.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <span>
#include <string_view>

#include "jouleprof/result.hpp"

namespace jouleprof::cli {

using CommandRunner = std::function<int()>;

struct CommandSpec {
  std::string_view name;
  CommandRunner (*add)(CLI::App& parent);
};

std::span<const CommandSpec> commands();

// Exit codes shared by every subcommand (a `run` returns its child's code instead).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;       // the command failed (bad input, unavailable source …)
inline constexpr int kExitUsage = 2;       // the command line itself was wrong
inline constexpr int kExitRegression = 3;  // an energy budget was exceeded

// Prints "jouleprof: <message>" on stderr, the library's option fields named by their flags
// (flag_names.hpp), and returns kExitError.
int report_error(const Error& error);

}  // namespace jouleprof::cli
