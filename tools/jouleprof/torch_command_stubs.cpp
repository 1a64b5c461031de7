// The libtorch commands as jouleprof (without libtorch) declares them: a name and a description for
// its help, nothing more. main() execs jouleprof-torch for them before parsing (torch_helper.hpp),
// so their runners never run; an empty one would end as an internal error if one did.
#include "command.hpp"
#include "torch_commands.hpp"

namespace jouleprof::cli {
namespace {

CommandRunner add_stub(CLI::App& parent, const TorchCommand& command) {
  parent.add_subcommand(std::string(command.name), std::string(command.description));
  return {};
}

}  // namespace

CommandRunner add_profile_command(CLI::App& parent) { return add_stub(parent, kProfileCommand); }
CommandRunner add_sweep_command(CLI::App& parent) { return add_stub(parent, kSweepCommand); }
CommandRunner add_calibrate_command(CLI::App& parent) {
  return add_stub(parent, kCalibrateCommand);
}
CommandRunner add_kernel_bench_command(CLI::App& parent) {
  return add_stub(parent, kKernelBenchCommand);
}
CommandRunner add_detect_rules_command(CLI::App& parent) {
  return add_stub(parent, kDetectRulesCommand);
}

}  // namespace jouleprof::cli
