// The energy-source flags shared by `sensors` and `run`: --source, --sysfs-root, --simulate,
// --tdp and --set KEY=VALUE, turned into SourceOptions.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "jouleprof/result.hpp"
#include "jouleprof/source.hpp"

namespace jouleprof::cli {

struct SourceFlags {
  std::string sources;
  std::string sysfs_root = "/";
  std::optional<double> simulate_w;
  std::optional<double> tdp_w;
  std::vector<std::string> settings;  // KEY=VALUE

  void add_to(CLI::App& app);
  Result<SourceOptions> to_options() const;
};

}  // namespace jouleprof::cli
