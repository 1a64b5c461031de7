#include <exception>
#include <iostream>
#include <map>
#include <new>
#include <string>

#include "command.hpp"
#include "flag_names.hpp"
#include "terminal.hpp"
#ifdef JOULEPROF_EXEC_TORCH_HELPER
#include "torch_helper.hpp"
#endif

namespace jouleprof::cli {

int report_error(const Error& error) {
  std::cerr << "jouleprof: " << with_flag_names(error.message()) << '\n';
  return kExitError;
}

}  // namespace jouleprof::cli

int main(int argc, char** argv) {
  using namespace jouleprof::cli;
#ifdef JOULEPROF_EXEC_TORCH_HELPER
  // Before CLI11 parses anything: jouleprof-torch parses these command lines itself, --help too.
  if (const std::string_view command = torch_command_in({argv, static_cast<std::size_t>(argc)});
      !command.empty()) {
    return exec_torch_helper(command, argv);
  }
#endif
  // Span names, commands, paths and warnings come from input: none reaches the terminal raw.
  const EscapedStandardStreams escaped;
  CLI::App app{
      "jouleprof: where the energy of your models goes.\n"
      "Measures energy counters (RAPL, NVML, ROCm SMI, Level Zero, hwmon, batteries, meters),\n"
      "attributes the energy to your program's layers, operators and calls, projects and\n"
      "predicts it."};
  app.require_subcommand(1);
  app.set_version_flag("--version", JOULEPROF_VERSION);

  std::map<std::string, CommandRunner> runners;
  for (const CommandSpec& spec : commands()) runners.emplace(spec.name, spec.add(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  // Library code reports bad input as errors; what still escapes as an exception is a bug or an
  // exhausted machine, and ends with one clear line rather than an abort.
  try {
    for (const CLI::App* sub : app.get_subcommands()) {
      if (auto it = runners.find(sub->get_name()); it != runners.end()) return it->second();
    }
  } catch (const std::bad_alloc&) {
    std::cerr << "jouleprof: out of memory (the input is larger than this machine can hold)\n";
    return kExitError;
  } catch (const std::exception& e) {
    std::cerr << "jouleprof: internal error: " << e.what()
              << " (a bug: please report it with the command line)\n";
    return kExitError;
  }
  return kExitUsage;
}
