#include "source_flags.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "jouleprof/sources.hpp"
#include "number_checks.hpp"

namespace jouleprof::cli {

void SourceFlags::add_to(CLI::App& app) {
  app.add_option("--source", sources,
                 fmt::format("Energy sources to use, comma-separated ({}); default: "
                             "$JOULEPROF_SOURCE, else every measured source available, else the "
                             "CPU estimate",
                             source_names()))
      ->type_name("NAME[,NAME...]")
      ->envname("JOULEPROF_SOURCE");
  app.add_option("--sysfs-root", sysfs_root,
                 "Read /sys, /proc and /dev under this directory instead of / (fake trees)")
      ->type_name("DIR");
  app.add_option("--simulate", simulate_w,
                 "Add the simulated source with one constant-power package channel of WATTS")
      ->type_name("WATTS")
      ->check(figure_of(FigureKind::kDevicePower, true));
  app.add_option("--tdp", tdp_w, "CPU TDP in watts for the CPU estimate (else: model table)")
      ->type_name("W")
      ->check(figure_of(FigureKind::kDevicePower));
  app.add_option("--set", settings,
                 "Backend setting, repeatable, e.g. simulate.profile=20:1;80:2 (docs/sources.md); "
                 "default: $JOULEPROF_SET, settings separated by spaces")
      ->type_name("KEY=VALUE");
}

Result<SourceOptions> SourceFlags::to_options() const {
  SourceOptions options;
  options.sysfs_root = sysfs_root;
  options.selected = split_source_list(sources);
  std::vector<std::string> given = settings;
  if (given.empty()) {
    // What a CI job or a docs test sets once for every command (--set wins when given).
    if (const char* env = std::getenv("JOULEPROF_SET")) {
      std::istringstream words(env);
      for (std::string w; words >> w;) given.push_back(w);
    }
  }
  for (const std::string& s : given) {
    const std::size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) {
      return invalid_input("--set", "KEY=VALUE", s, "expected KEY=VALUE");
    }
    options.settings[s.substr(0, eq)] = s.substr(eq + 1);
  }
  if (simulate_w) {
    options.settings["simulate.watts"] = fmt::format("{}", *simulate_w);
    if (std::find(options.selected.begin(), options.selected.end(), "simulated") ==
        options.selected.end()) {
      options.selected.emplace_back("simulated");
    }
  }
  if (tdp_w) options.settings["estimate.tdp_w"] = fmt::format("{}", *tdp_w);
  return options;
}

}  // namespace jouleprof::cli
