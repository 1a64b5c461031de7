#include <array>

#include "command.hpp"

namespace jouleprof::cli {

CommandRunner add_measure_command(CLI::App& parent);
CommandRunner add_version_command(CLI::App& parent);
CommandRunner add_sensors_command(CLI::App& parent);
CommandRunner add_run_command(CLI::App& parent);
CommandRunner add_burn_command(CLI::App& parent);
CommandRunner add_project_command(CLI::App& parent);
CommandRunner add_estimate_command(CLI::App& parent);
#ifdef JOULEPROF_TORCH_COMMANDS
CommandRunner add_calibrate_command(CLI::App& parent);
#endif
#ifdef JOULEPROF_TORCH_PROFILE_COMMANDS
CommandRunner add_profile_command(CLI::App& parent);
CommandRunner add_sweep_command(CLI::App& parent);
#endif

std::span<const CommandSpec> commands() {
  static constexpr std::array kCommands{
      CommandSpec{"measure", add_measure_command},
      CommandSpec{"version", add_version_command},
      CommandSpec{"sensors", add_sensors_command},
      CommandSpec{"run", add_run_command},
      CommandSpec{"burn", add_burn_command},
      CommandSpec{"project", add_project_command},
      CommandSpec{"estimate", add_estimate_command},
#ifdef JOULEPROF_TORCH_COMMANDS
      CommandSpec{"calibrate", add_calibrate_command},
#endif
#ifdef JOULEPROF_TORCH_PROFILE_COMMANDS
      CommandSpec{"profile", add_profile_command},
      CommandSpec{"sweep", add_sweep_command},
#endif
  };
  return kCommands;
}

}  // namespace jouleprof::cli
