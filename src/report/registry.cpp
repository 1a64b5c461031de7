// The report registry: format name -> writer. Adding a format is one row here plus its file.
#include "core/output_gate.hpp"
#include "core/text_file.hpp"
#include "jouleprof/report.hpp"
#include "report/writers.hpp"

namespace jouleprof {

const std::vector<ReportFormat>& report_formats() {
  static const std::vector<ReportFormat> kFormats{
      {"text", "txt", "the breakdown tree as indented text", false, report::write_text},
      {"json", "json", "the profile itself (docs/schema.md)", false, report::write_json},
      {"csv", "csv", "the breakdown tree flattened, one row per node", false, report::write_csv},
      {"trace", "json", "Chrome/Perfetto trace: spans on their tracks + power counters", false,
       report::write_trace},
      {"flamegraph", "svg", "SVG energy flame graph (differential against a second profile)", true,
       report::write_flamegraph},
      {"html", "html", "self-contained HTML report (no network needed)", false, report::write_html},
  };
  return kFormats;
}

const ReportFormat* find_report_format(std::string_view name) {
  for (const ReportFormat& f : report_formats()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

Result<std::string> render_report(std::string_view format, const Profile& profile,
                                  const ReportOptions& options) {
  const ReportFormat* f = find_report_format(format);
  if (f == nullptr) {
    std::string known;
    for (const ReportFormat& k : report_formats())
      known += (known.empty() ? "" : ", ") + std::string(k.name);
    return invalid_input("report", "format", format, "is not a report format (" + known + ")");
  }
  if (options.baseline != nullptr && !f->supports_diff) {
    return invalid_input("report", "diff", format,
                         "has no differential form (use flamegraph, or `jouleprof compare`)");
  }
  // Figures that cannot be true are said in every format (beside the profile's own warnings);
  // the copy is made only for such a profile.
  const std::optional<Profile> flagged = withheld_for_output(profile);
  return f->write(flagged ? *flagged : profile, options);
}

Status write_report(std::string_view format, const Profile& profile, const ReportOptions& options,
                    const std::string& path) {
  JP_TRY(const std::string text, render_report(format, profile, options));
  return write_text_file(path, text);
}

}  // namespace jouleprof
