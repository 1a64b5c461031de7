#include "jouleprof/span_dump.hpp"

#include <fmt/format.h>
#include <simdjson.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unordered_set>

#include "core/json_file.hpp"
#include "timeline/json_text.hpp"
#include "timeline/span_dump_parse.hpp"

namespace jouleprof {
namespace {

using timeline::append_json_string;

void append_int(std::string& out, std::int64_t value) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  (void)ec;  // 24 characters hold every int64
  out.append(digits, end);
}

void append_index(std::string& out, std::uint32_t index) {
  append_int(out, index == kNoIndex ? -1 : static_cast<std::int64_t>(index));
}

// Reading: errors carry the path of the offending field, e.g. spans[12][4].
struct Reader {
  std::string_view origin;

  Error bad(std::string_view field, std::string_view value, std::string_view problem) const {
    return invalid_input(origin, field, value, problem);
  }
};

template <typename T>
std::optional<T> as(simdjson::dom::element e);

template <>
std::optional<std::int64_t> as(simdjson::dom::element e) {
  std::int64_t v = 0;
  if (e.get_int64().get(v) != simdjson::SUCCESS) return std::nullopt;
  return v;
}

template <>
std::optional<std::string_view> as(simdjson::dom::element e) {
  std::string_view v;
  if (e.get_string().get(v) != simdjson::SUCCESS) return std::nullopt;
  return v;
}

std::string shown(simdjson::dom::element e) {
  std::string text = simdjson::minify(e);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

template <std::size_t N, typename Enum>
std::optional<Enum> enum_by_name(std::string_view text) {
  for (std::size_t i = 0; i < N; ++i) {
    if (to_string(static_cast<Enum>(i)) == text) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

// A key given twice in `object` (at `path`): simdjson's lookup takes the first of the two
// without a word (core/json_file.hpp, repeated_key_error).
Status keys_given_once(const Reader& r, simdjson::dom::object object, std::string_view path) {
  std::unordered_set<std::string_view> keys;
  for (const auto field : object) {
    if (!keys.insert(field.key).second) return repeated_key_error(r.origin, path, field.key);
  }
  return Status::Ok();
}

Result<simdjson::dom::array> array_field(const Reader& r, simdjson::dom::object root,
                                         const char* key) {
  simdjson::dom::element e;
  if (root.at_key(key).get(e) != simdjson::SUCCESS) return r.bad(key, "", "missing");
  simdjson::dom::array a;
  if (e.get_array().get(a) != simdjson::SUCCESS) return r.bad(key, shown(e), "is not an array");
  return a;
}

Status read_tracks(const Reader& r, simdjson::dom::object root, Timeline& t) {
  JP_TRY(auto tracks, array_field(r, root, "tracks"));
  std::size_t i = 0;
  for (simdjson::dom::element e : tracks) {
    const std::string at = fmt::format("tracks[{}]", i++);
    simdjson::dom::object track;
    if (e.get_object().get(track) != simdjson::SUCCESS)
      return r.bad(at, shown(e), "is not an object");
    JP_RETURN_IF_ERROR(keys_given_once(r, track, at));
    std::string_view kind;
    std::string_view name;
    std::string_view device;
    if (track["kind"].get_string().get(kind) != simdjson::SUCCESS)
      return r.bad(at + ".kind", shown(e), "missing or not a string");
    if (track["name"].get_string().get(name) != simdjson::SUCCESS)
      return r.bad(at + ".name", shown(e), "missing or not a string");
    if (track["device"].get_string().get(device) != simdjson::SUCCESS)
      return r.bad(at + ".device", shown(e), "missing or not a string");
    const auto parsed = enum_by_name<3, TrackKind>(kind);
    if (!parsed) return r.bad(at + ".kind", kind, "is not cpu-thread, gpu-stream or process");
    t.add_track(Track{*parsed, std::string(name), std::string(device)});
  }
  return Status::Ok();
}

Status read_attributes(const Reader& r, simdjson::dom::object root, Timeline& t) {
  JP_TRY(auto sets, array_field(r, root, "attributes"));
  std::size_t i = 0;
  for (simdjson::dom::element set : sets) {
    const std::string at = fmt::format("attributes[{}]", i++);
    simdjson::dom::array pairs;
    if (set.get_array().get(pairs) != simdjson::SUCCESS)
      return r.bad(at, shown(set), "is not an array of pairs");
    Attributes attrs;
    for (simdjson::dom::element pair : pairs) {
      simdjson::dom::array kv;
      std::string_view key;
      std::string_view value;
      if (pair.get_array().get(kv) != simdjson::SUCCESS || kv.size() != 2 ||
          kv.at(0).get_string().get(key) != simdjson::SUCCESS ||
          kv.at(1).get_string().get(value) != simdjson::SUCCESS) {
        return r.bad(at, shown(pair), "is not a [key, value] pair of strings");
      }
      attrs.emplace_back(std::string(key), std::string(value));
    }
    t.add_attributes(std::move(attrs));
  }
  return Status::Ok();
}

Status read_spans(const Reader& r, simdjson::dom::object root, Timeline& t) {
  JP_TRY(auto spans, array_field(r, root, "spans"));
  std::size_t i = 0;
  for (simdjson::dom::element e : spans) {
    const std::string at = fmt::format("spans[{}]", i);
    simdjson::dom::array a;
    if (e.get_array().get(a) != simdjson::SUCCESS || a.size() != 8) {
      return r.bad(at, shown(e),
                   "is not [begin_ns, end_ns, track, name, parent, attributes, category, pass]");
    }
    std::int64_t v[8];
    for (std::size_t k = 0; k < 8; ++k) {
      const auto x = as<std::int64_t>(a.at(k).value_unsafe());
      if (!x)
        return r.bad(fmt::format("{}[{}]", at, k), shown(a.at(k).value_unsafe()),
                     "is not an integer");
      v[k] = *x;
    }
    const auto index_in = [](std::int64_t x, std::size_t count) {
      return x >= 0 && static_cast<std::size_t>(x) < count;
    };
    if (v[1] < v[0])
      return r.bad(at + "[1]", std::to_string(v[1]),
                   fmt::format("end_ns is before begin_ns {}", v[0]));
    if (!index_in(v[2], t.tracks().size()))
      return r.bad(at + "[2]", std::to_string(v[2]), "no such track");
    if (!index_in(v[3], t.names().size()))
      return r.bad(at + "[3]", std::to_string(v[3]), "no such name");
    // Parents precede their children: this also rules out cycles.
    if (v[4] != -1 && !index_in(v[4], i))
      return r.bad(at + "[4]", std::to_string(v[4]), "parent must be -1 or an earlier span");
    if (v[5] != -1 && !index_in(v[5], t.attributes().size()))
      return r.bad(at + "[5]", std::to_string(v[5]), "no such attribute set");
    if (!index_in(v[6], 9)) return r.bad(at + "[6]", std::to_string(v[6]), "category must be 0..8");
    if (!index_in(v[7], 5)) return r.bad(at + "[7]", std::to_string(v[7]), "pass must be 0..4");
    Span s;
    s.begin_ns = v[0];
    s.end_ns = v[1];
    s.track = static_cast<std::uint32_t>(v[2]);
    s.name = static_cast<std::uint32_t>(v[3]);
    s.parent = v[4] < 0 ? kNoIndex : static_cast<std::uint32_t>(v[4]);
    s.attributes = v[5] < 0 ? kNoIndex : static_cast<std::uint32_t>(v[5]);
    s.category = static_cast<SpanCategory>(v[6]);
    s.pass = static_cast<Pass>(v[7]);
    t.add_span(s);
    ++i;
  }
  return Status::Ok();
}

Status read_marks(const Reader& r, simdjson::dom::object root, Timeline& t) {
  JP_TRY(auto marks, array_field(r, root, "marks"));
  std::size_t i = 0;
  for (simdjson::dom::element e : marks) {
    const std::string at = fmt::format("marks[{}]", i++);
    simdjson::dom::array a;
    std::int64_t v[3];
    bool ok = e.get_array().get(a) == simdjson::SUCCESS && a.size() == 3;
    for (std::size_t k = 0; ok && k < 3; ++k)
      ok = a.at(k).get_int64().get(v[k]) == simdjson::SUCCESS;
    if (!ok) return r.bad(at, shown(e), "is not [t_ns, track, name]");
    if (v[1] < 0 || static_cast<std::size_t>(v[1]) >= t.tracks().size())
      return r.bad(at + "[1]", std::to_string(v[1]), "no such track");
    if (v[2] < 0 || static_cast<std::size_t>(v[2]) >= t.names().size())
      return r.bad(at + "[2]", std::to_string(v[2]), "no such name");
    t.add_mark(Mark{v[0], static_cast<std::uint32_t>(v[1]), static_cast<std::uint32_t>(v[2])});
  }
  return Status::Ok();
}

// Optional (dumps of processes that no launcher started have none): an object of strings.
Status read_launcher_environment(const Reader& r, simdjson::dom::object root,
                                 std::map<std::string, std::string>& out) {
  simdjson::dom::element e;
  if (root.at_key("launcher_environment").get(e) != simdjson::SUCCESS) return Status::Ok();
  simdjson::dom::object variables;
  if (e.get_object().get(variables) != simdjson::SUCCESS)
    return r.bad("launcher_environment", shown(e), "is not an object");
  JP_RETURN_IF_ERROR(keys_given_once(r, variables, "launcher_environment"));
  for (const auto field : variables) {
    std::string_view value;
    if (field.value.get_string().get(value) != simdjson::SUCCESS) {
      return r.bad(fmt::format("launcher_environment.{}", field.key), shown(field.value),
                   "is not a string");
    }
    out[std::string(field.key)] = std::string(value);
  }
  return Status::Ok();
}

}  // namespace

std::string span_dump_to_json(const SpanDump& dump) {
  const Timeline& t = dump.timeline;
  std::string out;
  out.reserve(256 + t.spans().size() * 48 + t.names().size() * 32);
  out += "{\"format\":";
  append_json_string(out, kSpanDumpFormat);
  out += ",\"version\":";
  append_int(out, kSpanDumpVersion);
  out += ",\"clock\":\"CLOCK_MONOTONIC\",\"time_unit\":\"ns\",\"pid\":";
  append_int(out, dump.pid);
  out += ",\"dropped\":";
  out += std::to_string(dump.dropped);
  out += ",\"recorder_clock\":";
  append_json_string(out, dump.recorder_clock);
  if (!dump.launcher_environment.empty()) {
    out += ",\"launcher_environment\":{";
    bool first = true;
    for (const auto& [name, value] : dump.launcher_environment) {
      if (!first) out += ',';
      first = false;
      append_json_string(out, name);
      out += ':';
      append_json_string(out, value);
    }
    out += '}';
  }
  out += ",\n\"names\":[";
  for (std::size_t i = 0; i < t.names().size(); ++i) {
    if (i > 0) out += ',';
    append_json_string(out, t.names()[i]);
  }
  out += "],\n\"tracks\":[";
  for (std::size_t i = 0; i < t.tracks().size(); ++i) {
    const Track& tr = t.tracks()[i];
    out += i > 0 ? ",\n{\"kind\":" : "\n{\"kind\":";
    append_json_string(out, to_string(tr.kind));
    out += ",\"name\":";
    append_json_string(out, tr.name);
    out += ",\"device\":";
    append_json_string(out, tr.device);
    out += '}';
  }
  out += "],\n\"attributes\":[";
  for (std::size_t i = 0; i < t.attributes().size(); ++i) {
    out += i > 0 ? ",\n[" : "\n[";
    bool first = true;
    for (const auto& [key, value] : t.attributes()[i]) {
      out += first ? "[" : ",[";
      first = false;
      append_json_string(out, key);
      out += ',';
      append_json_string(out, value);
      out += ']';
    }
    out += ']';
  }
  out += "],\n\"spans\":[";
  for (std::size_t i = 0; i < t.spans().size(); ++i) {
    const Span& s = t.spans()[i];
    out += i > 0 ? ",\n[" : "\n[";
    append_int(out, s.begin_ns);
    out += ',';
    append_int(out, s.end_ns);
    out += ',';
    append_int(out, s.track);
    out += ',';
    append_int(out, s.name);
    out += ',';
    append_index(out, s.parent);
    out += ',';
    append_index(out, s.attributes);
    out += ',';
    append_int(out, static_cast<int>(s.category));
    out += ',';
    append_int(out, static_cast<int>(s.pass));
    out += ']';
  }
  out += "],\n\"marks\":[";
  for (std::size_t i = 0; i < t.marks().size(); ++i) {
    const Mark& m = t.marks()[i];
    out += i > 0 ? ",\n[" : "\n[";
    append_int(out, m.t_ns);
    out += ',';
    append_int(out, m.track);
    out += ',';
    append_int(out, m.name);
    out += ']';
  }
  out += "]}\n";
  return out;
}

Status write_span_dump(const SpanDump& dump, const std::string& path) {
  const std::string text = span_dump_to_json(dump);
  const std::string temporary = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return Error(ErrorCode::kIo, fmt::format("{}: cannot open for writing", temporary));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) return Error(ErrorCode::kIo, fmt::format("{}: write failed", temporary));
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    return Error(ErrorCode::kIo,
                 fmt::format("{}: cannot rename the written spans into place", path));
  }
  return Status::Ok();
}

namespace timeline {

Result<SpanDump> parse_span_dump(const TraceText& text, std::string_view origin) {
  const Reader r{origin};
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (const auto error = parser.parse(text.data(), text.size(), false).get(doc);
      error != simdjson::SUCCESS) {
    return r.bad("(document)", "",
                 fmt::format("not valid JSON ({})", simdjson::error_message(error)));
  }
  simdjson::dom::object root;
  if (doc.get_object().get(root) != simdjson::SUCCESS)
    return r.bad("(document)", shown(doc), "is not a JSON object");
  JP_RETURN_IF_ERROR(keys_given_once(r, root, "(document)"));
  std::string_view format;
  if (root["format"].get_string().get(format) != simdjson::SUCCESS || format != kSpanDumpFormat) {
    return r.bad("format", format,
                 fmt::format("is not \"{}\": not a jouleprof span dump", kSpanDumpFormat));
  }
  std::int64_t version = 0;
  if (root["version"].get_int64().get(version) != simdjson::SUCCESS)
    return r.bad("version", "", "missing or not an integer");
  if (version != kSpanDumpVersion) {
    return Error(ErrorCode::kUnsupported,
                 fmt::format("{}: span dump version {}; this jouleprof reads version {}", origin,
                             version, kSpanDumpVersion));
  }
  std::string_view clock;
  if (root["clock"].get_string().get(clock) != simdjson::SUCCESS || clock != "CLOCK_MONOTONIC") {
    return r.bad("clock", clock, "must be CLOCK_MONOTONIC");
  }
  SpanDump dump;
  std::int64_t pid = 0;
  if (root["pid"].get_int64().get(pid) == simdjson::SUCCESS) dump.pid = pid;
  std::uint64_t dropped = 0;
  if (root["dropped"].get_uint64().get(dropped) == simdjson::SUCCESS) dump.dropped = dropped;
  std::string_view recorder_clock;
  if (root["recorder_clock"].get_string().get(recorder_clock) == simdjson::SUCCESS) {
    dump.recorder_clock = std::string(recorder_clock);
  }
  JP_RETURN_IF_ERROR(read_launcher_environment(r, root, dump.launcher_environment));
  Timeline& t = dump.timeline;
  JP_TRY(auto names, array_field(r, root, "names"));
  std::size_t i = 0;
  for (simdjson::dom::element e : names) {
    const auto name = as<std::string_view>(e);
    if (!name) return r.bad(fmt::format("names[{}]", i), shown(e), "is not a string");
    // Names are unique in a dump; intern() would merge duplicates and shift every later index.
    if (t.intern(*name) != i) return r.bad(fmt::format("names[{}]", i), *name, "appears twice");
    ++i;
  }
  JP_RETURN_IF_ERROR(read_tracks(r, root, t));
  JP_RETURN_IF_ERROR(read_attributes(r, root, t));
  JP_RETURN_IF_ERROR(read_spans(r, root, t));
  JP_RETURN_IF_ERROR(read_marks(r, root, t));
  return dump;
}

}  // namespace timeline

Result<SpanDump> span_dump_from_json(std::string_view text, std::string_view origin) {
  return timeline::parse_span_dump(timeline::TraceText(std::string(text)), origin);
}

Result<SpanDump> read_span_dump(const std::string& path) {
  JP_TRY(auto text, timeline::read_trace_file(path));
  return timeline::parse_span_dump(text, path);
}

}  // namespace jouleprof
