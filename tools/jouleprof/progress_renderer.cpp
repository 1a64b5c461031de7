#include "progress_renderer.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/control_escapes.hpp"
#include "core/quantity_text.hpp"

namespace jouleprof::cli {
namespace {

// A terminal redraws at most this often: more is flicker, not information.
constexpr TimeNs kTerminalRedrawNs = 100 * kNsPerMs;

// Cuts a UTF-8 string to `columns` code points (every character here is one column wide).
std::string fit(const std::string& text, std::size_t columns) {
  std::size_t points = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if ((byte & 0xC0) != 0x80 && points++ == columns) return text.substr(0, i);
  }
  return text;
}

std::string gate_text(const GateState& g) {
  std::string judged;
  if (!g.note.empty() && !g.passed) {
    judged = g.note;
  } else if (!g.channel_id.empty()) {
    judged = g.temperature ? fmt::format("{} {:.1f} °C {} cap {:.1f} °C", g.channel_id, g.value,
                                         g.passed ? "≤" : ">", g.threshold)
                           : fmt::format("{} CV {:.4f} {} {:.4f}", g.channel_id, g.value,
                                         g.value <= g.threshold ? "≤" : ">", g.threshold);
  }
  return fmt::format("gate {}: {}{}check {}, {} of {}", g.passed ? "passed" : "waiting", judged,
                     judged.empty() ? "" : ", ", g.checks, format_duration(g.waited_ns),
                     format_duration(g.timeout_ns));
}

}  // namespace

ProgressStyle progress_style_for(int fd, bool quiet) {
  if (quiet) return ProgressStyle::kQuiet;
  return isatty(fd) != 0 ? ProgressStyle::kTerminal : ProgressStyle::kLines;
}

std::size_t terminal_width(int fd) {
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 100;
}

std::string progress_line(const ProgressEvent& e) {
  std::string line = e.task;
  const auto part = [&line](const std::string& text) {
    if (!text.empty()) line += (line.empty() ? "" : " · ") + text;
  };
  if (e.item > 0) {
    part(e.items > 0 ? fmt::format("{} ({}/{})", e.item_name, e.item, e.items)
                     : fmt::format("{} ({})", e.item_name, e.item));
  }
  if (e.step > 0) part(fmt::format("rep {}/{}", e.step, e.steps));
  if (e.gate) {
    part(gate_text(*e.gate));
  } else {
    part(e.phase);
  }
  std::string time = format_duration(e.elapsed_ns);
  if (e.kind == ProgressEventKind::kEnd) {
    time += e.stop_requested ? ", stopped" : ", done";
  } else if (e.stop_requested) {
    time += ", stopping";
  } else if (e.eta_ns) {
    time += ", ETA " + format_duration(*e.eta_ns);
  }
  part(time);
  return line;
}

ProgressRenderer::ProgressRenderer(std::ostream& out, ProgressStyle style, std::size_t width,
                                   TimeNs line_period_ns)
    : out_(out), style_(style), width_(width), line_period_ns_(line_period_ns) {}

ProgressRenderer::~ProgressRenderer() { clear(); }

void ProgressRenderer::show(const ProgressEvent& e) {
  switch (style_) {
    case ProgressStyle::kQuiet:
      return;
    case ProgressStyle::kTerminal: {
      const bool forced = e.kind == ProgressEventKind::kItem || e.kind == ProgressEventKind::kEnd ||
                          e.kind == ProgressEventKind::kGate;
      if (shown_any_ && !forced && e.elapsed_ns - last_shown_ns_ < kTerminalRedrawNs) return;
      if (e.kind == ProgressEventKind::kEnd) {
        clear();
        return;
      }
      // One column less than the terminal: writing the last column makes some terminals wrap.
      out_ << "\r\x1b[K"
           << escape_control_characters(fit(progress_line(e), width_ > 1 ? width_ - 1 : width_))
           << std::flush;
      line_on_screen_ = true;
      break;
    }
    case ProgressStyle::kLines:
      if (e.kind == ProgressEventKind::kBegin || e.kind == ProgressEventKind::kEnd) return;
      if (e.elapsed_ns - last_shown_ns_ < line_period_ns_) return;
      out_ << escape_control_characters(progress_line(e)) << '\n' << std::flush;
      break;
  }
  shown_any_ = true;
  last_shown_ns_ = e.elapsed_ns;
}

void ProgressRenderer::print(const std::string& line) {
  if (style_ == ProgressStyle::kQuiet) return;
  clear();
  out_ << escape_control_characters(line) << '\n' << std::flush;
}

void ProgressRenderer::clear() {
  if (!line_on_screen_) return;
  out_ << "\r\x1b[K" << std::flush;
  line_on_screen_ = false;
}

}  // namespace jouleprof::cli
