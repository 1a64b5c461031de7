#include <array>

#include "command.hpp"

namespace jouleprof::cli {

CommandRunner add_measure_command(CLI::App& parent);
CommandRunner add_version_command(CLI::App& parent);
CommandRunner add_sensors_command(CLI::App& parent);
CommandRunner add_run_command(CLI::App& parent);
CommandRunner add_burn_command(CLI::App& parent);
CommandRunner add_attribute_command(CLI::App& parent);

std::span<const CommandSpec> commands() {
  static constexpr std::array kCommands{
      CommandSpec{"measure", add_measure_command},
      CommandSpec{"version", add_version_command},
      CommandSpec{"sensors", add_sensors_command},
      CommandSpec{"run", add_run_command},
      CommandSpec{"burn", add_burn_command},
      CommandSpec{"attribute", add_attribute_command},
  };
  return kCommands;
}

}  // namespace jouleprof::cli
