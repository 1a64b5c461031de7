#include <iostream>

#include "command.hpp"

namespace jouleprof::cli {

CommandRunner add_version_command(CLI::App& parent) {
  parent.add_subcommand("version", "Print jouleprof's version and build options");
  return [] {
    std::cout << "jouleprof " << JOULEPROF_VERSION << '\n';
    return kExitOk;
  };
}

}  // namespace jouleprof::cli
