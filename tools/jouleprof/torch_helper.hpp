// How jouleprof hands the libtorch commands to jouleprof-torch (torch_commands.hpp says why they
// live there): main() looks for them before parsing anything and execs the helper with the same
// arguments, so that the helper's own parser, help, messages and exit code are the command's.
#pragma once

#include <span>
#include <string_view>

namespace jouleprof::cli {

// The command that needs jouleprof-torch, or "" when jouleprof runs `argv` (as main() has it)
// itself. The command is the first argument that does not start with '-'; it needs the helper when
// it is one of kTorchCommands, or when it is `measure` with --op (or --help, whose text lists --op)
// before any `--` (after which the arguments are the measured command's).
std::string_view torch_command_in(std::span<const char* const> argv);

// Replaces this process by jouleprof-torch with the same argv (argv[0] kept, so that its help and
// messages still say jouleprof). The helper is $JOULEPROF_TORCH_HELPER when that is set, else
// ../libexec/jouleprof/jouleprof-torch from this executable's directory: the same relative path
// in the build tree and in an install. Returns only when the exec fails, after one line on stderr
// naming the command, the path and the reason: kExitError.
int exec_torch_helper(std::string_view command, char* const argv[]);

}  // namespace jouleprof::cli
