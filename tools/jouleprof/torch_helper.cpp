#include "torch_helper.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <system_error>

#include "command.hpp"
#include "torch_commands.hpp"

namespace jouleprof::cli {
namespace {

bool asks_for_op_or_help(std::string_view arg) {
  return arg == "--op" || arg.starts_with("--op=") || arg == "--help" || arg == "-h";
}

}  // namespace

std::string_view torch_command_in(std::span<const char* const> argv) {
  const std::span<const char* const> args = argv.empty() ? argv : argv.subspan(1);
  const auto command = std::find_if(args.begin(), args.end(),
                                    [](std::string_view arg) { return !arg.starts_with('-'); });
  if (command == args.end()) return "";
  const std::string_view name = *command;
  if (std::ranges::any_of(kTorchCommands, [&](const TorchCommand& c) { return c.name == name; })) {
    return name;
  }
  if (name != "measure") return "";
  for (auto arg = command + 1; arg != args.end() && std::string_view(*arg) != "--"; ++arg) {
    if (asks_for_op_or_help(*arg)) return name;
  }
  return "";
}

int exec_torch_helper(std::string_view command, char* const argv[]) {
  std::filesystem::path helper;
  std::error_code error;
  if (const char* path = std::getenv("JOULEPROF_TORCH_HELPER"); path != nullptr && *path != '\0') {
    helper = path;
  } else {
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error) {
      std::cerr << "jouleprof: '" << command
                << "' needs jouleprof-torch, found beside this executable, but /proc/self/exe "
                   "cannot be read: "
                << error.message() << " (set JOULEPROF_TORCH_HELPER to its path)\n";
      return kExitError;
    }
    helper = (self.parent_path() / "../libexec/jouleprof/jouleprof-torch").lexically_normal();
  }
  execv(helper.c_str(), argv);
  error.assign(errno, std::generic_category());
  std::cerr << "jouleprof: '" << command << "' needs jouleprof-torch, expected at "
            << helper.string() << ": " << error.message()
            << " (build the jouleprof-torch target, or set JOULEPROF_TORCH_HELPER to its path)\n";
  return kExitError;
}

}  // namespace jouleprof::cli
