#include <unistd.h>

#include <iostream>

#include "command.hpp"
#include "jouleprof/report.hpp"
#include "text_view_flags.hpp"

namespace jouleprof::cli {

CommandRunner add_report_command(CLI::App& parent) {
  auto* cmd = parent.add_subcommand(
      "report", "Render a profile as text, JSON, CSV, a Perfetto trace, a flame graph or HTML");
  struct Options {
    std::string profile;
    std::string format = "text";
    std::string output;
    std::string diff;
    TextViewFlags view;
  };
  auto o = std::make_shared<Options>();
  std::vector<std::string> names;
  std::string help = "Output format:";
  for (const ReportFormat& f : report_formats()) {
    names.emplace_back(f.name);
    help += "\n  " + std::string(f.name) + ": " + std::string(f.description);
  }
  cmd->add_option("PROFILE", o->profile,
                  "Profile file (profile.json) written by run/profile/measure/attribute/merge")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--format,-f", o->format, help)
      ->check(CLI::IsMember(names))
      ->capture_default_str();
  cmd->add_option("--output,-o", o->output, "Write to FILE instead of standard output");
  cmd->add_option("--diff", o->diff,
                  "Baseline profile: a differential flame graph (flamegraph format only)")
      ->check(CLI::ExistingFile);
  o->view.add_to(*cmd);
  return [o, cmd] {
    auto profile = read_profile_json(o->profile);
    if (!profile) return report_error(profile.error());
    // Every format shows these too; on stderr they reach the user of a CSV or SVG as well.
    for (const std::string& w : figure_problems(*profile)) {
      std::cerr << "jouleprof: warning: " << o->profile << ": " << w << '\n';
    }
    Profile baseline;
    ReportOptions options;
    // --top is the top-operator table's rows in both the text and the HTML report.
    if (cmd->count("--top") > 0) options.top_operators = o->view.top;
    // Laid out for where it goes: the terminal's width, or 100 columns for a file or a pipe.
    options.text = o->view.options_for(o->output.empty() ? STDOUT_FILENO : -1);
    if (!o->diff.empty()) {
      auto b = read_profile_json(o->diff);
      if (!b) return report_error(b.error());
      baseline = std::move(b).value();
      options.baseline = &baseline;
    }
    if (!o->output.empty()) {
      const Status s = write_report(o->format, *profile, options, o->output);
      if (!s) return report_error(s.error());
      std::cerr << "wrote " << o->format << " report to " << o->output << '\n';
      return kExitOk;
    }
    auto text = render_report(o->format, *profile, options);
    if (!text) return report_error(text.error());
    std::cout << *text;
    return kExitOk;
  };
}

}  // namespace jouleprof::cli
