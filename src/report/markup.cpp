#include "report/markup.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace jouleprof::report {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') break;
        out += c;
    }
  }
  return out;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

namespace {

std::string three_digits(double value, std::string_view unit) {
  const double a = std::fabs(value);
  if (a >= 100.0) return fmt::format("{:.0f} {}", value, unit);
  if (a >= 10.0) return fmt::format("{:.1f} {}", value, unit);
  return fmt::format("{:.2f} {}", value, unit);
}

}  // namespace

std::string format_energy(double joules) {
  if (!std::isfinite(joules)) return "invalid";  // a warning says which figure and why
  const double a = std::fabs(joules);
  if (a == 0.0) return "0 J";
  if (a >= 1e6) return three_digits(joules / 1e6, "MJ");
  if (a >= 1e3) return three_digits(joules / 1e3, "kJ");
  if (a >= 1.0) return three_digits(joules, "J");
  if (a >= 1e-3) return three_digits(joules * 1e3, "mJ");
  return three_digits(joules * 1e6, "µJ");
}

std::string format_duration(TimeNs ns) {
  const double s = ns_to_s(ns);
  if (s >= 120.0) {
    const auto whole = static_cast<long long>(s);
    return fmt::format("{} min {:02d} s", whole / 60, whole % 60);
  }
  if (s >= 1.0) return three_digits(s, "s");
  if (s >= 1e-3) return three_digits(s * 1e3, "ms");
  if (s >= 1e-6) return three_digits(s * 1e6, "µs");
  return fmt::format("{} ns", ns);
}

std::string format_share(double fraction) {
  if (!std::isfinite(fraction)) return "invalid";
  return fmt::format("{:.1f} %", fraction * 100.0);
}

std::string_view category_colour(SpanCategory category) {
  // Index = the category's fixed number (timeline.hpp).
  static constexpr std::array<std::string_view, 9> kColours{
      "#9aa5b1",  // region
      "#6c8ebf",  // model
      "#82b366",  // layer
      "#e6a23c",  // op
      "#d9534f",  // kernel
      "#8e7cc3",  // step
      "#5bc0de",  // epoch
      "#f0ad4e",  // call
      "#b0855f",  // memory
  };
  const auto i = static_cast<std::size_t>(category);
  return i < kColours.size() ? kColours[i] : kColours[0];
}

}  // namespace jouleprof::report
