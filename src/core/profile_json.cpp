// Profile <-> JSON. The schema is documented in docs/schema.md; enums are written by name and
// times as integer nanoseconds so that a round trip is exact.
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "jouleprof/profile.hpp"

namespace jouleprof {
namespace {

using nlohmann::json;

// Reading errors are thrown inside this file only and turned into an Error at the boundary.
struct FieldError {
  std::string field;
  std::string problem;
};

template <typename T>
T get_field(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw FieldError{where + "." + key, "missing"};
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    throw FieldError{where + "." + key, "has the wrong type (" + j.at(key).dump() + ")"};
  }
}

template <typename T>
std::optional<T> get_optional(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return get_field<T>(j, key, where);
}

template <typename Enum, typename Parse>
Enum get_enum(const json& j, const char* key, const std::string& where, Parse parse) {
  const auto text = get_field<std::string>(j, key, where);
  const auto value = parse(text);
  if (!value) throw FieldError{where + "." + key, "unknown value '" + text + "'"};
  return *value;
}

template <typename Enum, std::size_t N>
std::optional<Enum> parse_by_name(std::string_view text) {
  for (std::size_t i = 0; i < N; ++i) {
    if (to_string(static_cast<Enum>(i)) == text) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

json channel_to_json(const Channel& c) {
  json j{{"id", c.id},
         {"source", c.source},
         {"device", c.device},
         {"domain", c.domain},
         {"kind", to_string(c.kind)},
         {"provenance", to_string(c.provenance)},
         {"provenance_detail", c.provenance_detail},
         {"parent_id", c.parent_id},
         {"nominal_period_ns", c.nominal_period_ns},
         {"measured_period_ns", c.measured_period_ns}};
  if (c.static_power_w) j["static_power_w"] = *c.static_power_w;
  return j;
}

Channel channel_from_json(const json& j, const std::string& where) {
  Channel c;
  c.id = get_field<std::string>(j, "id", where);
  c.source = get_field<std::string>(j, "source", where);
  c.device = get_field<std::string>(j, "device", where);
  c.domain = get_field<std::string>(j, "domain", where);
  c.kind = get_enum<ChannelKind>(j, "kind", where, channel_kind_from_string);
  c.provenance = get_enum<Provenance>(j, "provenance", where, provenance_from_string);
  c.provenance_detail = get_field<std::string>(j, "provenance_detail", where);
  c.parent_id = get_field<std::string>(j, "parent_id", where);
  c.nominal_period_ns = get_field<TimeNs>(j, "nominal_period_ns", where);
  c.measured_period_ns = get_field<TimeNs>(j, "measured_period_ns", where);
  c.static_power_w = get_optional<double>(j, "static_power_w", where);
  return c;
}

json series_to_json(const Series& s) {
  json samples = json::array();
  for (std::size_t i = 0; i < s.size(); ++i)
    samples.push_back(json::array({s[i].t_ns, s[i].value}));
  json gaps = json::array();
  for (const Gap& g : s.gaps()) {
    gaps.push_back(json{{"begin_ns", g.begin_ns}, {"end_ns", g.end_ns}, {"reason", g.reason}});
  }
  return json{{"channel", channel_to_json(s.channel())}, {"samples", samples}, {"gaps", gaps}};
}

Series series_from_json(const json& j, const std::string& where) {
  Series s(channel_from_json(j.value("channel", json::object()), where + ".channel"));
  const auto samples = get_field<json>(j, "samples", where);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const json& pair = samples[i];
    const std::string at = fmt::format("{}.samples[{}]", where, i);
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() ||
        !pair[1].is_number()) {
      throw FieldError{at, "is not a [t_ns, value] pair (" + pair.dump() + ")"};
    }
    const Status st = s.append(pair[0].get<TimeNs>(), pair[1].get<double>());
    if (!st) throw FieldError{at, st.error().message()};
  }
  for (const json& g : get_field<json>(j, "gaps", where)) {
    s.add_gap(Gap{get_field<TimeNs>(g, "begin_ns", where + ".gaps"),
                  get_field<TimeNs>(g, "end_ns", where + ".gaps"),
                  get_field<std::string>(g, "reason", where + ".gaps")});
  }
  return s;
}

json stats_to_json(const RepetitionStats& s) {
  return json{{"n", s.n},         {"mean", s.mean},         {"median", s.median},
              {"stdev", s.stdev}, {"ci95_low", s.ci95_low}, {"ci95_high", s.ci95_high}};
}

RepetitionStats stats_from_json(const json& j, const std::string& where) {
  return RepetitionStats{
      get_field<std::uint32_t>(j, "n", where), get_field<double>(j, "mean", where),
      get_field<double>(j, "median", where),   get_field<double>(j, "stdev", where),
      get_field<double>(j, "ci95_low", where), get_field<double>(j, "ci95_high", where)};
}

json node_to_json(const ProfileNode& n) {
  json children = json::array();
  for (const ProfileNode& c : n.children) children.push_back(node_to_json(c));
  json j{{"name", n.name},
         {"category", to_string(n.category)},
         {"pass", to_string(n.pass)},
         {"energy_j", n.energy_j},
         {"self_energy_j", n.self_energy_j},
         {"static_energy_j", n.static_energy_j ? json(*n.static_energy_j) : json()},
         {"dynamic_energy_j", n.dynamic_energy_j ? json(*n.dynamic_energy_j) : json()},
         {"time_ns", n.time_ns},
         {"self_time_ns", n.self_time_ns},
         {"calls", n.calls},
         {"provenance", to_string(n.provenance)},
         {"energy_by_channel_j", n.energy_by_channel_j},
         {"energy_stats", n.energy_stats ? stats_to_json(*n.energy_stats) : json()},
         {"children", children}};
  return j;
}

ProfileNode node_from_json(const json& j, const std::string& where) {
  ProfileNode n;
  n.name = get_field<std::string>(j, "name", where);
  const std::string here = where + "[" + n.name + "]";
  n.category = get_enum<SpanCategory>(j, "category", here, parse_by_name<SpanCategory, 9>);
  n.pass = get_enum<Pass>(j, "pass", here, parse_by_name<Pass, 4>);
  n.energy_j = get_field<double>(j, "energy_j", here);
  n.self_energy_j = get_field<double>(j, "self_energy_j", here);
  n.static_energy_j = get_optional<double>(j, "static_energy_j", here);
  n.dynamic_energy_j = get_optional<double>(j, "dynamic_energy_j", here);
  n.time_ns = get_field<TimeNs>(j, "time_ns", here);
  n.self_time_ns = get_field<TimeNs>(j, "self_time_ns", here);
  n.calls = get_field<std::uint64_t>(j, "calls", here);
  n.provenance = get_enum<Provenance>(j, "provenance", here, provenance_from_string);
  n.energy_by_channel_j = get_field<std::map<std::string, double>>(j, "energy_by_channel_j", here);
  if (j.contains("energy_stats") && !j.at("energy_stats").is_null()) {
    n.energy_stats = stats_from_json(j.at("energy_stats"), here + ".energy_stats");
  }
  for (const json& c : get_field<json>(j, "children", here)) {
    n.children.push_back(node_from_json(c, here + ".children"));
  }
  return n;
}

json timeline_to_json(const Timeline& t) {
  json tracks = json::array();
  for (const Track& tr : t.tracks()) {
    tracks.push_back(json{{"kind", to_string(tr.kind)}, {"name", tr.name}, {"device", tr.device}});
  }
  // Spans as compact arrays: [begin_ns, end_ns, track, name, parent, attributes, category, pass];
  // kNoIndex is written as -1.
  const auto index = [](std::uint32_t i) { return i == kNoIndex ? json(-1) : json(i); };
  json spans = json::array();
  for (const Span& s : t.spans()) {
    spans.push_back(
        json::array({s.begin_ns, s.end_ns, s.track, s.name, index(s.parent), index(s.attributes),
                     static_cast<int>(s.category), static_cast<int>(s.pass)}));
  }
  json marks = json::array();
  for (const Mark& m : t.marks()) marks.push_back(json::array({m.t_ns, m.track, m.name}));
  json attributes = json::array();
  for (const Attributes& a : t.attributes()) attributes.push_back(a);
  return json{{"names", t.names()},
              {"tracks", tracks},
              {"spans", spans},
              {"marks", marks},
              {"attributes", attributes}};
}

Timeline timeline_from_json(const json& j, const std::string& where) {
  Timeline t;
  const auto names = get_field<std::vector<std::string>>(j, "names", where);
  for (const std::string& n : names) t.intern(n);
  for (const json& tr : get_field<json>(j, "tracks", where)) {
    t.add_track(
        Track{get_enum<TrackKind>(tr, "kind", where + ".tracks", parse_by_name<TrackKind, 3>),
              get_field<std::string>(tr, "name", where + ".tracks"),
              get_field<std::string>(tr, "device", where + ".tracks")});
  }
  for (const json& a : get_field<json>(j, "attributes", where))
    t.add_attributes(a.get<Attributes>());
  const auto spans = get_field<json>(j, "spans", where);
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const json& a = spans[i];
    const std::string at = fmt::format("{}.spans[{}]", where, i);
    if (!a.is_array() || a.size() != 8) throw FieldError{at, "is not an 8-element span array"};
    const auto index = [&](const json& v) {
      const auto x = v.get<std::int64_t>();
      return x < 0 ? kNoIndex : static_cast<std::uint32_t>(x);
    };
    Span s;
    s.begin_ns = a[0].get<TimeNs>();
    s.end_ns = a[1].get<TimeNs>();
    s.track = a[2].get<std::uint32_t>();
    s.name = a[3].get<std::uint32_t>();
    s.parent = index(a[4]);
    s.attributes = index(a[5]);
    s.category = static_cast<SpanCategory>(a[6].get<int>());
    s.pass = static_cast<Pass>(a[7].get<int>());
    if (s.track >= t.tracks().size() || s.name >= t.names().size() ||
        (s.parent != kNoIndex && s.parent >= spans.size()) ||
        (s.attributes != kNoIndex && s.attributes >= t.attributes().size())) {
      throw FieldError{at, "refers to a track, name, parent or attribute set that does not exist"};
    }
    t.add_span(s);
  }
  for (const json& m : get_field<json>(j, "marks", where)) {
    t.add_mark(
        Mark{m.at(0).get<TimeNs>(), m.at(1).get<std::uint32_t>(), m.at(2).get<std::uint32_t>()});
  }
  return t;
}

json to_json(const Profile& p) {
  const RunMetadata& m = p.meta;
  json meta{
      {"tool_version", m.tool_version},
      {"kind", m.kind},
      {"command", m.command},
      {"host", m.host},
      {"rank", m.rank ? json(*m.rank) : json()},
      {"world_size", m.world_size ? json(*m.world_size) : json()},
      {"anchor", {{"monotonic_ns", m.anchor.monotonic_ns}, {"realtime_ns", m.anchor.realtime_ns}}},
      {"begin_ns", m.begin_ns},
      {"end_ns", m.end_ns},
      {"exit_code", m.exit_code ? json(*m.exit_code) : json()},
      {"partial", m.partial},
      {"options", m.options},
      {"grid_intensity_g_per_kwh",
       m.grid_intensity_g_per_kwh ? json(*m.grid_intensity_g_per_kwh) : json()}};
  json series = json::array();
  for (const Series& s : p.series) series.push_back(series_to_json(s));
  json channels = json::array();
  for (const ChannelSummary& c : p.channels) {
    json summary{{"channel_id", c.channel_id},
                 {"energy_j", c.energy_j},
                 {"idle_power_w", c.idle_power_w ? json(*c.idle_power_w) : json()},
                 {"net_energy_j", c.net_energy_j ? json(*c.net_energy_j) : json()},
                 {"duration_ns", c.duration_ns},
                 {"mean_power_w", c.mean_power_w},
                 {"peak_power_w", c.peak_power_w},
                 {"provenance", to_string(c.provenance)}};
    // Process figures appear only where processes were observed (schema version 1 readers that
    // predate them ignore the keys).
    if (const std::optional<ProcessFigures>& f = c.process) {
      summary["process_energy_j"] = f->energy_j;
      summary["process_share"] = f->share;
      if (f->dynamic_energy_j) summary["process_dynamic_energy_j"] = *f->dynamic_energy_j;
      if (f->others_activity_share) summary["others_activity_share"] = *f->others_activity_share;
      summary["process_rule"] = f->rule;
    }
    channels.push_back(std::move(summary));
  }
  json attribution = json::array();
  for (const AttributionRecord& a : p.attribution) {
    attribution.push_back(json{{"channel_id", a.channel_id},
                               {"method", a.method},
                               {"reason", a.reason},
                               {"diagnostics", a.diagnostics},
                               {"notes", a.notes}});
  }
  json epochs = json::array();
  for (const EpochSummary& e : p.epochs) {
    epochs.push_back(json{{"begin_ns", e.begin_ns},
                          {"end_ns", e.end_ns},
                          {"energy_j", e.energy_j},
                          {"counter_updates", e.counter_updates}});
  }
  return json{{"schema", "jouleprof.profile"},
              {"schema_version", p.schema_version},
              {"meta", meta},
              {"series", series},
              {"channels", channels},
              {"timeline", timeline_to_json(p.timeline)},
              {"tree", p.tree ? node_to_json(*p.tree) : json()},
              {"attribution", attribution},
              {"epochs", epochs},
              {"warnings", p.warnings}};
}

Profile from_json(const json& j) {
  Profile p;
  if (get_field<std::string>(j, "schema", "profile") != "jouleprof.profile") {
    throw FieldError{"profile.schema", "is not 'jouleprof.profile'"};
  }
  p.schema_version = get_field<int>(j, "schema_version", "profile");
  if (p.schema_version > kProfileSchemaVersion) {
    throw FieldError{"profile.schema_version",
                     fmt::format("{} is newer than this jouleprof reads ({})", p.schema_version,
                                 kProfileSchemaVersion)};
  }
  const json meta = get_field<json>(j, "meta", "profile");
  RunMetadata& m = p.meta;
  m.tool_version = get_field<std::string>(meta, "tool_version", "meta");
  m.kind = get_field<std::string>(meta, "kind", "meta");
  m.command = get_field<std::vector<std::string>>(meta, "command", "meta");
  m.host = get_field<std::string>(meta, "host", "meta");
  m.rank = get_optional<int>(meta, "rank", "meta");
  m.world_size = get_optional<int>(meta, "world_size", "meta");
  const json anchor = get_field<json>(meta, "anchor", "meta");
  m.anchor = ClockAnchor{get_field<TimeNs>(anchor, "monotonic_ns", "meta.anchor"),
                         get_field<TimeNs>(anchor, "realtime_ns", "meta.anchor")};
  m.begin_ns = get_field<TimeNs>(meta, "begin_ns", "meta");
  m.end_ns = get_field<TimeNs>(meta, "end_ns", "meta");
  m.exit_code = get_optional<int>(meta, "exit_code", "meta");
  m.partial = get_field<bool>(meta, "partial", "meta");
  m.options = get_field<std::map<std::string, std::string>>(meta, "options", "meta");
  m.grid_intensity_g_per_kwh = get_optional<double>(meta, "grid_intensity_g_per_kwh", "meta");

  const json series = get_field<json>(j, "series", "profile");
  for (std::size_t i = 0; i < series.size(); ++i) {
    p.series.push_back(series_from_json(series[i], fmt::format("series[{}]", i)));
  }
  for (const json& c : get_field<json>(j, "channels", "profile")) {
    ChannelSummary s;
    s.channel_id = get_field<std::string>(c, "channel_id", "channels");
    const std::string where = "channels[" + s.channel_id + "]";
    s.energy_j = get_field<double>(c, "energy_j", where);
    s.idle_power_w = get_optional<double>(c, "idle_power_w", where);
    s.net_energy_j = get_optional<double>(c, "net_energy_j", where);
    s.duration_ns = get_field<TimeNs>(c, "duration_ns", where);
    s.mean_power_w = get_field<double>(c, "mean_power_w", where);
    s.peak_power_w = get_field<double>(c, "peak_power_w", where);
    s.provenance = get_enum<Provenance>(c, "provenance", where, provenance_from_string);
    if (const std::optional<double> process_j =
            get_optional<double>(c, "process_energy_j", where)) {
      ProcessFigures f;
      f.energy_j = *process_j;
      f.share = get_field<double>(c, "process_share", where);
      f.dynamic_energy_j = get_optional<double>(c, "process_dynamic_energy_j", where);
      f.others_activity_share = get_optional<double>(c, "others_activity_share", where);
      f.rule = get_field<std::string>(c, "process_rule", where);
      s.process = std::move(f);
    }
    p.channels.push_back(std::move(s));
  }
  p.timeline = timeline_from_json(get_field<json>(j, "timeline", "profile"), "timeline");
  if (j.contains("tree") && !j.at("tree").is_null()) p.tree = node_from_json(j.at("tree"), "tree");
  for (const json& a : get_field<json>(j, "attribution", "profile")) {
    AttributionRecord r;
    r.channel_id = get_field<std::string>(a, "channel_id", "attribution");
    const std::string where = "attribution[" + r.channel_id + "]";
    r.method = get_field<std::string>(a, "method", where);
    r.reason = get_field<std::string>(a, "reason", where);
    r.diagnostics = get_field<std::map<std::string, double>>(a, "diagnostics", where);
    r.notes = get_field<std::vector<std::string>>(a, "notes", where);
    p.attribution.push_back(std::move(r));
  }
  // Profiles written before epochs were summarised have no "epochs".
  if (j.contains("epochs")) {
    const json epochs = get_field<json>(j, "epochs", "profile");
    for (std::size_t i = 0; i < epochs.size(); ++i) {
      const std::string where = fmt::format("epochs[{}]", i);
      EpochSummary e;
      e.begin_ns = get_field<TimeNs>(epochs[i], "begin_ns", where);
      e.end_ns = get_field<TimeNs>(epochs[i], "end_ns", where);
      e.energy_j = get_field<double>(epochs[i], "energy_j", where);
      e.counter_updates = get_field<std::uint64_t>(epochs[i], "counter_updates", where);
      if (e.end_ns < e.begin_ns) throw FieldError{where + ".end_ns", "is before its begin_ns"};
      p.epochs.push_back(e);
    }
  }
  p.warnings = get_field<std::vector<std::string>>(j, "warnings", "profile");
  return p;
}

}  // namespace

std::string profile_to_json_string(const Profile& profile, int indent) {
  return to_json(profile).dump(indent);
}

Result<Profile> profile_from_json_string(const std::string& text, const std::string& origin) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    return Error(ErrorCode::kInvalidInput, fmt::format("{}: not valid JSON: {}", origin, e.what()));
  }
  try {
    return from_json(j);
  } catch (const FieldError& e) {
    return Error(ErrorCode::kInvalidInput,
                 fmt::format("{}: field '{}' {}", origin, e.field, e.problem));
  } catch (const json::exception& e) {
    return Error(ErrorCode::kInvalidInput, fmt::format("{}: {}", origin, e.what()));
  }
}

Status write_profile_json(const Profile& profile, const std::string& path) {
  std::ofstream out(path);
  if (!out) return Error(ErrorCode::kIo, fmt::format("{}: cannot open for writing", path));
  out << profile_to_json_string(profile, 1) << '\n';
  if (!out) return Error(ErrorCode::kIo, fmt::format("{}: write failed", path));
  return Status::Ok();
}

Result<Profile> read_profile_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error(ErrorCode::kNotFound, fmt::format("{}: cannot open profile", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return profile_from_json_string(buffer.str(), path);
}

}  // namespace jouleprof
