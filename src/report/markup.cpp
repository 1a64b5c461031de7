#include "report/markup.hpp"

#include <fmt/format.h>

#include <algorithm>
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

// 100 → "100", 12.34 → "12.3", 1.234 → "1.23": three significant digits for 1 <= |m| < 1000.
std::string three_digits(double mantissa) {
  const double a = std::fabs(mantissa);
  if (a >= 99.95) return fmt::format("{:.0f}", mantissa);
  if (a >= 9.995) return fmt::format("{:.1f}", mantissa);
  return fmt::format("{:.2f}", mantissa);
}

}  // namespace

std::string format_si(double value, std::string_view unit) {
  if (!std::isfinite(value)) return "invalid";
  static constexpr std::array<std::string_view, 10> kPrefixes{"p", "n", "µ", "m", "",
                                                              "k", "M", "G", "T", "P"};
  constexpr int kUnitIndex = 4;  // kPrefixes[4] = no prefix
  const double a = std::fabs(value);
  if (a < 0.995e-12) return fmt::format("0 {}", unit);
  int index = static_cast<int>(std::floor(std::log10(a) / 3.0)) + kUnitIndex;
  index = std::clamp(index, 0, static_cast<int>(kPrefixes.size()) - 1);
  double mantissa = value / std::pow(1000.0, index - kUnitIndex);
  // 999.7 rounds to "1000": the next prefix says it in three digits ("1.00 k").
  if (std::fabs(mantissa) >= 999.5 && index + 1 < static_cast<int>(kPrefixes.size())) {
    ++index;
    mantissa /= 1000.0;
  }
  return fmt::format("{} {}{}", three_digits(mantissa), kPrefixes[static_cast<std::size_t>(index)],
                     unit);
}

std::string format_energy(double joules) { return format_si(joules, "J"); }

std::string format_power(double watts) { return format_si(watts, "W"); }

std::string format_duration(TimeNs ns) {
  const double s = ns_to_s(ns);
  if (s >= 119.5) {
    const auto whole = static_cast<long long>(std::llround(s));
    return fmt::format("{} min {:02d} s", whole / 60, whole % 60);
  }
  if (ns < 1000 && ns > -1000) return fmt::format("{} ns", ns);
  return format_si(s, "s");
}

std::string format_share(double fraction) {
  if (!std::isfinite(fraction)) return "invalid";
  if (std::fabs(fraction) < 0.0005) return "0.0 %";
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
