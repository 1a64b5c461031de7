#include "jouleprof/samples_csv.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "core/line_reader.hpp"
#include "core/parse.hpp"
#include "sources/plausibility.hpp"

namespace jouleprof {
namespace {

constexpr std::string_view kMagic = "# jouleprof samples 1";
constexpr std::string_view kHeader = "t_ns,channel,kind,value";
constexpr std::string_view kEscaped = " ,%=\t\r\n";

std::string encode(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (kEscaped.find(c) != std::string_view::npos) {
      out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out;
}

std::string decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::optional<unsigned char> escaped =
        s[i] == '%' && i + 2 < s.size() ? to_integer<unsigned char>(s.substr(i + 1, 2), 16)
                                        : std::nullopt;
    if (escaped) {
      out += static_cast<char>(*escaped);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = s.find(sep, begin);
    parts.push_back(
        s.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
    if (end == std::string_view::npos) return parts;
    begin = end + 1;
  }
}

// Reading errors carry "file:line" as their location.
class LineErrors {
 public:
  LineErrors(const std::string& origin, std::size_t line)
      : where_(fmt::format("{}:{}", origin, line)) {}

  Result<TimeNs> integer(std::string_view field, std::string_view text) const {
    return parse_int64(where_, field, text);
  }
  Result<double> number(std::string_view field, std::string_view text) const {
    return parse_number(where_, field, text);
  }
  Error error(std::string_view field, std::string_view value, std::string_view problem) const {
    return invalid_input(where_, field, value, problem);
  }

 private:
  std::string where_;
};

struct Table {
  std::vector<Series> series;
  std::map<std::string, std::size_t> index;

  Series& get(const std::string& id, ChannelKind kind) {
    auto it = index.find(id);
    if (it != index.end()) return series[it->second];
    Channel c;
    c.id = id;
    c.source = "samples.csv";
    c.kind = kind;
    c.provenance = Provenance::kImported;
    index.emplace(id, series.size());
    series.emplace_back(c);
    return series.back();
  }
};

Status parse_channel_line(const LineErrors& at, std::string_view rest, Table& table) {
  const std::vector<std::string_view> words = split(rest, ' ');
  if (words.empty() || words[0].empty()) return at.error("channel", rest, "no channel id");
  Channel c;
  c.id = decode(words[0]);
  if (table.index.count(c.id) > 0) return at.error("channel", c.id, "declared twice");
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::size_t eq = words[i].find('=');
    if (eq == std::string_view::npos)
      return at.error("channel attribute", words[i], "expected key=value");
    const std::string_view key = words[i].substr(0, eq);
    const std::string value = decode(words[i].substr(eq + 1));
    if (key == "source") {
      c.source = value;
    } else if (key == "device") {
      c.device = value;
    } else if (key == "domain") {
      c.domain = value;
    } else if (key == "parent") {
      c.parent_id = value;
    } else if (key == "detail") {
      c.provenance_detail = value;
    } else if (key == "kind") {
      const auto kind = channel_kind_from_string(value);
      if (!kind) return at.error("kind", value, "unknown channel kind");
      c.kind = *kind;
    } else if (key == "provenance") {
      const auto p = provenance_from_string(value);
      if (!p) return at.error("provenance", value, "unknown provenance");
      c.provenance = *p;
    } else if (key == "nominal_period_ns") {
      JP_TRY(c.nominal_period_ns, at.integer(key, value));
    } else if (key == "measured_period_ns") {
      JP_TRY(c.measured_period_ns, at.integer(key, value));
    } else if (key == "static_power_w") {
      JP_TRY(c.static_power_w, at.number(key, value));
    } else if (key == "averaging_ns") {
      JP_TRY(c.averaging_ns, at.integer(key, value));
    }  // unknown keys are kept for newer writers: ignored
  }
  table.index.emplace(c.id, table.series.size());
  table.series.emplace_back(c);
  return Status::Ok();
}

Status parse_gap_line(const LineErrors& at, std::string_view rest, Table& table) {
  const std::vector<std::string_view> words = split(rest, ' ');
  const std::string id = decode(words[0]);
  const auto it = table.index.find(id);
  if (it == table.index.end())
    return at.error("gap channel", id, "not declared by a '# channel' line");
  Gap gap;
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::size_t eq = words[i].find('=');
    if (eq == std::string_view::npos)
      return at.error("gap attribute", words[i], "expected key=value");
    const std::string_view key = words[i].substr(0, eq);
    const std::string_view value = words[i].substr(eq + 1);
    if (key == "begin_ns") {
      JP_TRY(gap.begin_ns, at.integer(key, value));
    } else if (key == "end_ns") {
      JP_TRY(gap.end_ns, at.integer(key, value));
    } else if (key == "reason") {
      gap.reason = decode(value);
    }
  }
  if (gap.end_ns < gap.begin_ns)
    return at.error("end_ns", std::to_string(gap.end_ns), "before begin_ns");
  table.series[it->second].add_gap(std::move(gap));
  return Status::Ok();
}

}  // namespace

Status write_samples_csv(const std::vector<Series>& series, const std::string& path) {
  std::ofstream out(path);
  if (!out) return cannot_open_for_writing(path, errno);
  out << kMagic << '\n';
  for (const Series& s : series) {
    const Channel& c = s.channel();
    out << fmt::format(
        "# channel {} source={} device={} domain={} kind={} provenance={} parent={} "
        "nominal_period_ns={} measured_period_ns={}{}{} detail={}\n",
        encode(c.id), encode(c.source), encode(c.device), encode(c.domain), to_string(c.kind),
        to_string(c.provenance), encode(c.parent_id), c.nominal_period_ns, c.measured_period_ns,
        c.static_power_w ? fmt::format(" static_power_w={}", *c.static_power_w) : std::string(),
        c.averaging_ns > 0 ? fmt::format(" averaging_ns={}", c.averaging_ns) : std::string(),
        encode(c.provenance_detail));
  }
  for (const Series& s : series) {
    for (const Gap& g : s.gaps()) {
      out << fmt::format("# gap {} begin_ns={} end_ns={} reason={}\n", encode(s.channel().id),
                         g.begin_ns, g.end_ns, encode(g.reason));
    }
  }
  out << kHeader << '\n';
  for (const Series& s : series) {
    const std::string id = encode(s.channel().id);
    const std::string_view kind = to_string(s.channel().kind);
    for (std::size_t i = 0; i < s.size(); ++i) {
      out << fmt::format("{},{},{},{}\n", s[i].t_ns, id, kind, s[i].value);
    }
  }
  out.flush();
  if (!out) return Error(ErrorCode::kIo, fmt::format("{}: write failed", path));
  return Status::Ok();
}

namespace {

Result<std::vector<Series>> parse_samples(LineReader& lines, std::vector<std::string>* warnings) {
  const std::string& origin = lines.origin();
  Table table;
  bool header_seen = false;
  JP_RETURN_IF_ERROR(for_each_line(lines, [&](const TextLine& text_line) -> Status {
    const std::string_view line = text_line.text;
    if (line.empty()) return Status::Ok();
    const LineErrors at(origin, text_line.number);
    if (line.front() == '#') {
      if (line.starts_with("# channel ")) return parse_channel_line(at, line.substr(10), table);
      if (line.starts_with("# gap ")) return parse_gap_line(at, line.substr(6), table);
      return Status::Ok();
    }
    if (!header_seen) {
      if (line != kHeader) return at.error("header", line, fmt::format("expected '{}'", kHeader));
      header_seen = true;
      return Status::Ok();
    }
    const std::vector<std::string_view> fields = split(line, ',');
    if (fields.size() != 4) {
      return at.error("line", line, fmt::format("expected 4 fields, found {}", fields.size()));
    }
    JP_TRY(const TimeNs t_ns, at.integer("t_ns", fields[0]));
    const auto kind = channel_kind_from_string(fields[2]);
    if (!kind)
      return at.error("kind", fields[2],
                      "unknown kind (energy_j, power_w, temperature_c, utilisation, busy_s)");
    JP_TRY(const double value, at.number("value", fields[3]));
    const std::string id = decode(fields[1]);
    if (id.empty()) return at.error("channel", fields[1], "empty channel id");
    Series& series = table.get(id, *kind);
    if (series.channel().kind != *kind) {
      return at.error(
          "kind", fields[2],
          fmt::format("channel {} was declared as {}", id, to_string(series.channel().kind)));
    }
    const Status appended = series.append(t_ns, value);
    if (!appended) return at.error("t_ns", fields[0], appended.error().message());
    return Status::Ok();
  }));
  if (!header_seen)
    return invalid_input(origin, "header", "", fmt::format("no '{}' line", kHeader));
  // A hand-made or foreign file may hold counters that step back or jump: those readings become
  // gaps (a file jouleprof wrote passes unchanged: the sampler judged its readings already).
  std::vector<std::string> implausible = enforce_plausibility(table.series, origin);
  if (warnings != nullptr) {
    warnings->insert(warnings->end(), std::make_move_iterator(implausible.begin()),
                     std::make_move_iterator(implausible.end()));
  }
  return std::move(table.series);
}

}  // namespace

Result<std::vector<Series>> parse_samples_csv(std::string_view text, const std::string& origin,
                                              std::vector<std::string>* warnings) {
  LineReader lines = LineReader::over_text(text, origin);
  return parse_samples(lines, warnings);
}

Result<std::vector<Series>> read_samples_csv(const std::string& path,
                                             std::vector<std::string>* warnings) {
  JP_TRY(LineReader lines, LineReader::open(path, "samples file"));
  return parse_samples(lines, warnings);
}

}  // namespace jouleprof
