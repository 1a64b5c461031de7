#include <array>

#include "command.hpp"

namespace jouleprof::cli {

CommandRunner add_measure_command(CLI::App& parent);
CommandRunner add_version_command(CLI::App& parent);
CommandRunner add_sensors_command(CLI::App& parent);
CommandRunner add_run_command(CLI::App& parent);
CommandRunner add_burn_command(CLI::App& parent);
CommandRunner add_attribute_command(CLI::App& parent);
CommandRunner add_train_predictor_command(CLI::App& parent);
CommandRunner add_predict_command(CLI::App& parent);
CommandRunner add_score_command(CLI::App& parent);
CommandRunner add_report_command(CLI::App& parent);
CommandRunner add_history_command(CLI::App& parent);
CommandRunner add_compare_command(CLI::App& parent);
CommandRunner add_serve_command(CLI::App& parent);
CommandRunner add_merge_command(CLI::App& parent);
CommandRunner add_project_command(CLI::App& parent);
CommandRunner add_estimate_command(CLI::App& parent);
#ifdef JOULEPROF_TORCH_COMMANDS
CommandRunner add_calibrate_command(CLI::App& parent);
CommandRunner add_kernel_bench_command(CLI::App& parent);
CommandRunner add_detect_rules_command(CLI::App& parent);
CommandRunner add_profile_command(CLI::App& parent);
CommandRunner add_sweep_command(CLI::App& parent);
#endif

std::span<const CommandSpec> commands() {
  static constexpr std::array kCommands{
      CommandSpec{"sensors", add_sensors_command},
      CommandSpec{"run", add_run_command},
      CommandSpec{"burn", add_burn_command},
      CommandSpec{"measure", add_measure_command},
#ifdef JOULEPROF_TORCH_COMMANDS
      CommandSpec{"profile", add_profile_command},
      CommandSpec{"sweep", add_sweep_command},
#endif
#ifdef JOULEPROF_TORCH_COMMANDS
      CommandSpec{"calibrate", add_calibrate_command},
#endif
      CommandSpec{"attribute", add_attribute_command},
      CommandSpec{"report", add_report_command},
      CommandSpec{"history", add_history_command},
      CommandSpec{"compare", add_compare_command},
      CommandSpec{"merge", add_merge_command},
      CommandSpec{"serve", add_serve_command},
      CommandSpec{"project", add_project_command},
      CommandSpec{"estimate", add_estimate_command},
#ifdef JOULEPROF_TORCH_COMMANDS
      CommandSpec{"kernel-bench", add_kernel_bench_command},
      CommandSpec{"detect-rules", add_detect_rules_command},
#endif
      CommandSpec{"train-predictor", add_train_predictor_command},
      CommandSpec{"predict", add_predict_command},
      CommandSpec{"score", add_score_command},
      CommandSpec{"version", add_version_command},
  };
  return kCommands;
}

}  // namespace jouleprof::cli
