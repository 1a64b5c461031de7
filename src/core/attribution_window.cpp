#include "jouleprof/attribution_window.hpp"

namespace jouleprof {

std::string_view to_string(AttributionWindow window) {
  return window == AttributionWindow::kTimeline ? "timeline" : "run";
}

std::optional<AttributionWindow> attribution_window_from_string(std::string_view text) {
  if (text == "run") return AttributionWindow::kRun;
  if (text == "timeline") return AttributionWindow::kTimeline;
  return std::nullopt;
}

}  // namespace jouleprof
