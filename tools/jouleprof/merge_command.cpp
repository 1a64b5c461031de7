#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "jouleprof/cluster.hpp"
#include "jouleprof/history.hpp"

namespace jouleprof::cli {

CommandRunner add_merge_command(CLI::App& parent) {
  auto* cmd = parent.add_subcommand(
      "merge",
      "Combine per-rank profiles of one job into one cluster profile (totals per node and rank)");
  struct Options {
    std::vector<std::string> inputs;
    std::string output;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("PROFILE", o->inputs,
                  "Per-rank profile files; files that are not profiles (a run's FILE.spans.json "
                  "beside FILE.json, which a glob also matches) are skipped with a note")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--output,-o", o->output,
                  "Write the merged profile here (default: standard output)");
  return [o] {
    std::vector<Profile> profiles;
    std::vector<std::string> origins;
    std::vector<std::string> skipped;  // a glob's side files: FILE.spans.json beside FILE.json
    for (const std::string& path : o->inputs) {
      auto p = read_profile_json(path);
      if (!p && p.error().subject() == ErrorSubject::kNotAProfile) {
        skipped.push_back(path);
        continue;
      }
      if (!p) return report_error(p.error());
      profiles.push_back(std::move(p).value());
      origins.push_back(path);
    }
    if (!skipped.empty()) {
      std::string list;
      for (const std::string& path : skipped) list += (list.empty() ? "" : ", ") + path;
      std::cerr << fmt::format("note: skipped {} file{} that {} not a jouleprof profile: {}\n",
                               skipped.size(), skipped.size() == 1 ? "" : "s",
                               skipped.size() == 1 ? "is" : "are", list);
    }
    if (profiles.empty()) {
      return report_error(Error(ErrorCode::kInvalidInput, "merge: none of the files is a profile"));
    }
    auto merged = merge_profiles(profiles, origins);
    if (!merged) return report_error(merged.error());
    if (o->output.empty()) {
      std::cout << profile_to_json_string(*merged, 2) << '\n';
    } else {
      const Status s = write_profile_json(*merged, o->output);
      if (!s) return report_error(s.error());
    }
    std::cerr << fmt::format("merged {} profiles: {:.6g} J in total\n", profiles.size(),
                             energy_total_of(*merged));
    const RecordedOptions::Merge& merge = merged->meta.options.merge;
    for (const auto& [host, j] : merge.host_energy_j)
      std::cerr << fmt::format("  host {}: {:.9g} J\n", host, j);
    // Rank labels are "r<rank>".
    for (const auto& [label, j] : merge.rank_energy_j) {
      std::cerr << fmt::format("  rank {}: {:.9g} J", label.substr(1), j);
      if (const auto wait = merge.communication_time_s.find(label);
          wait != merge.communication_time_s.end()) {
        std::cerr << fmt::format(
            "; {} steps in {:.6g} s, {:.6g} s and {:.6g} J of it in collectives",
            merge.steps.at(label), merge.step_time_s.at(label), wait->second,
            merge.communication_energy_j.at(label));
      }
      std::cerr << '\n';
    }
    for (const std::string& w : merged->warnings) std::cerr << "  warning: " << w << '\n';
    return kExitOk;
  };
}

}  // namespace jouleprof::cli
