// Profile <-> JSON. The schema is documented in docs/schema.md; enums are written by name and
// times as integer nanoseconds so that a round trip is exact.
//
// The breakdown tree is as deep as its input, so it is neither built nor read by recursion: the
// writer streams the document (nlohmann's dump() recurses), emitting each node's members in the
// order nlohmann would (sorted keys) so the text is what dump() gives; the reader walks the parsed
// document with a heap stack, reading fields by reference. Error paths ("tree[run].children[…]")
// are spelled out only when an error occurs. Indentation stops growing at kMaxIndentLevels, so a
// 100 000-level tree costs linear space on disk too.
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>
#include <unordered_map>

#include "core/figure_bounds.hpp"
#include "core/json_brief.hpp"
#include "core/json_fields.hpp"
#include "core/json_file.hpp"
#include "core/output_gate.hpp"
#include "core/packed_columns.hpp"
#include "core/profile_json_text.hpp"
#include "core/text_file.hpp"
#include "jouleprof/profile.hpp"

namespace jouleprof {
namespace {

using nlohmann::json;

constexpr int kMaxIndentLevels = 64;

// A profile is read whole and parsed into a document several times its size. Profiles of week-long
// runs are tens of megabytes (series are packed, the tree is aggregated); 512 MiB leaves room for
// ten times that and keeps the parse within a few gigabytes.
constexpr std::uint64_t kMaxProfileBytes = std::uint64_t{512} << 20;

template <typename Enum, std::size_t N>
std::optional<Enum> parse_by_name(std::string_view text) {
  for (std::size_t i = 0; i < N; ++i) {
    if (to_string(static_cast<Enum>(i)) == text) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

// --- writing ---------------------------------------------------------------------------------

json channel_to_json(const Channel& c) {
  json j{{"id", c.id},
         {"source", c.source},
         {"device", c.device},
         {"label", c.label},
         {"domain", c.domain},
         {"kind", to_string(c.kind)},
         {"provenance", to_string(c.provenance)},
         {"provenance_detail", c.provenance_detail},
         {"parent_id", c.parent_id},
         {"nominal_period_ns", c.nominal_period_ns},
         {"measured_period_ns", c.measured_period_ns}};
  if (c.static_power_w) j["static_power_w"] = *c.static_power_w;
  if (c.averaging_ns > 0) j["averaging_ns"] = c.averaging_ns;
  return j;
}

// The columns of a packed block of samples and of spans (docs/schema.md).
enum SampleColumn : std::size_t { kSampleTimeDelta, kSampleValue, kSampleColumns };
enum SpanColumn : std::size_t {
  kSpanBeginDelta,
  kSpanDuration,
  kSpanTrack,
  kSpanName,
  kSpanParent,
  kSpanAttributes,
  kSpanCategoryAndPass,
  kSpanColumns
};
// The pass's bits in the packed category-and-pass column: 3 since version 4 (five passes).
constexpr unsigned kPassBits = 3;

json packed_block(std::size_t count, const PackedColumnsWriter& columns) {
  return json{{"count", count}, {"data", columns.finish()}, {"encoding", kPackedColumnsEncoding}};
}

json samples_to_json(const Series& s, ProfileArrays arrays) {
  if (arrays == ProfileArrays::kPacked) {
    PackedColumnsWriter columns(kSampleColumns);
    TimeNs previous = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      columns.put_signed(kSampleTimeDelta, s[i].t_ns - previous);
      columns.put_double(kSampleValue, s[i].value);
      previous = s[i].t_ns;
    }
    return packed_block(s.size(), columns);
  }
  json samples = json::array();
  for (std::size_t i = 0; i < s.size(); ++i)
    samples.push_back(json::array({s[i].t_ns, s[i].value}));
  return samples;
}

json series_to_json(const Series& s, ProfileArrays arrays) {
  const json samples = samples_to_json(s, arrays);
  json gaps = json::array();
  for (const Gap& g : s.gaps()) {
    gaps.push_back(json{{"begin_ns", g.begin_ns}, {"end_ns", g.end_ns}, {"reason", g.reason}});
  }
  return json{{"channel", channel_to_json(s.channel())}, {"samples", samples}, {"gaps", gaps}};
}

json stats_to_json(const RepetitionStats& s) {
  return json{{"n", s.n},         {"mean", s.mean},         {"median", s.median},
              {"stdev", s.stdev}, {"ci95_low", s.ci95_low}, {"ci95_high", s.ci95_high}};
}

json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(); }

json band_end_json(const std::optional<EnergyBand>& band, double EnergyBand::*end) {
  return band ? json((*band).*end) : json();
}

json dominant_term_json(const std::optional<EnergyBand>& band) {
  return band ? json(to_string(band->dominant)) : json();
}

json uncertainty_to_json(const std::vector<UncertaintyPart>& parts) {
  json out = json::array();
  for (const UncertaintyPart& p : parts) {
    out.push_back({{"term", to_string(p.term)},
                   {"half_width_j", p.half_width_j},
                   {"missing_low_j", p.missing_low_j},
                   {"missing_high_j", p.missing_high_j}});
  }
  return out;
}

// A parent as a packed column holds it: 0 for none, else 1 + the zigzagged distance back from the
// span to its parent (parents usually come shortly before their children).
std::uint64_t packed_parent(std::size_t span, std::uint32_t parent) {
  if (parent == kNoIndex) return 0;
  return zigzag(static_cast<std::int64_t>(span) - static_cast<std::int64_t>(parent)) + 1;
}

json spans_to_json(const Timeline& t, ProfileArrays arrays) {
  if (arrays == ProfileArrays::kPacked) {
    PackedColumnsWriter columns(kSpanColumns);
    TimeNs previous = 0;
    const std::vector<Span>& spans = t.spans();
    for (std::size_t i = 0; i < spans.size(); ++i) {
      const Span& s = spans[i];
      columns.put_signed(kSpanBeginDelta, s.begin_ns - previous);
      columns.put_unsigned(kSpanDuration, static_cast<std::uint64_t>(s.end_ns - s.begin_ns));
      columns.put_unsigned(kSpanTrack, s.track);
      columns.put_unsigned(kSpanName, s.name);
      columns.put_unsigned(kSpanParent, packed_parent(i, s.parent));
      columns.put_unsigned(kSpanAttributes,
                           s.attributes == kNoIndex ? 0 : std::uint64_t{s.attributes} + 1);
      columns.put_unsigned(kSpanCategoryAndPass,
                           (static_cast<std::uint64_t>(s.category) << kPassBits) |
                               static_cast<std::uint64_t>(s.pass));
      previous = s.begin_ns;
    }
    return packed_block(spans.size(), columns);
  }
  // One array a span: [begin_ns, end_ns, track, name, parent, attributes, category, pass];
  // kNoIndex is written as -1.
  const auto index = [](std::uint32_t i) { return i == kNoIndex ? json(-1) : json(i); };
  json spans = json::array();
  for (const Span& s : t.spans()) {
    spans.push_back(
        json::array({s.begin_ns, s.end_ns, s.track, s.name, index(s.parent), index(s.attributes),
                     static_cast<int>(s.category), static_cast<int>(s.pass)}));
  }
  return spans;
}

enum AttributeColumn : std::size_t {
  kAttributePairs,
  kAttributeKey,
  kAttributeValueSize,
  kAttributeValueBytes,
  kAttributeColumns
};

// Attribute sets packed: the keys once, in the order they first appear, then per set its number
// of pairs, and per pair its key's index and its value's size and bytes.
json attributes_to_json(const Timeline& t, ProfileArrays arrays) {
  if (arrays == ProfileArrays::kExpanded) {
    json attributes = json::array();
    for (const AttributeSet a : t.attributes()) attributes.push_back(a.to_attributes());
    return attributes;
  }
  PackedColumnsWriter columns(kAttributeColumns);
  std::vector<std::string> keys;
  std::unordered_map<std::string, std::uint32_t> key_index;
  for (const AttributeSet set : t.attributes()) {
    columns.put_unsigned(kAttributePairs, set.size());
    for (const auto& [key, value] : set) {
      const auto [it, added] =
          key_index.emplace(std::string(key), static_cast<std::uint32_t>(keys.size()));
      if (added) keys.emplace_back(key);
      columns.put_unsigned(kAttributeKey, it->second);
      columns.put_unsigned(kAttributeValueSize, value.size());
      columns.put_bytes(kAttributeValueBytes, value);
    }
  }
  json block = packed_block(t.attributes().size(), columns);
  block["keys"] = keys;
  return block;
}

json timeline_to_json(const Timeline& t, ProfileArrays arrays) {
  json tracks = json::array();
  for (const Track& tr : t.tracks()) {
    tracks.push_back(json{{"kind", to_string(tr.kind)}, {"name", tr.name}, {"device", tr.device}});
  }
  const json spans = spans_to_json(t, arrays);
  json marks = json::array();
  for (const Mark& m : t.marks()) marks.push_back(json::array({m.t_ns, m.track, m.name}));
  const json attributes = attributes_to_json(t, arrays);
  return json{{"names", t.names()},
              {"tracks", tracks},
              {"spans", spans},
              {"marks", marks},
              {"attributes", attributes}};
}

json meta_to_json(const RunMetadata& m) {
  return json{
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
      {"options", recorded_option_entries(m.options)},
      {"grid_intensity_g_per_kwh", optional_json(m.grid_intensity_g_per_kwh)}};
}

json channels_to_json(const std::vector<ChannelSummary>& summaries) {
  json channels = json::array();
  for (const ChannelSummary& c : summaries) {
    json summary{{"channel_id", c.channel_id},
                 {"energy_j", c.energy_j},
                 {"idle_power_w", optional_json(c.idle_power_w)},
                 {"net_energy_j", optional_json(c.net_energy_j)},
                 {"duration_ns", c.duration_ns},
                 {"mean_power_w", c.mean_power_w},
                 {"peak_power_w", c.peak_power_w},
                 {"provenance", to_string(c.provenance)}};
    if (c.band) {
      summary["energy_j_low"] = c.band->low_j;
      summary["energy_j_high"] = c.band->high_j;
      summary["uncertainty_dominant"] = to_string(c.band->dominant);
      summary["uncertainty"] = uncertainty_to_json(c.uncertainty);
    }
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
  return channels;
}

json epochs_to_json(const std::vector<EpochSummary>& epochs) {
  json out = json::array();
  for (const EpochSummary& e : epochs) {
    json epoch{{"begin_ns", e.begin_ns},
               {"end_ns", e.end_ns},
               {"energy_j", e.energy_j},
               {"counter_updates", e.counter_updates}};
    if (e.band) {
      epoch["energy_j_low"] = e.band->low_j;
      epoch["energy_j_high"] = e.band->high_j;
      epoch["uncertainty_dominant"] = to_string(e.band->dominant);
    }
    out.push_back(std::move(epoch));
  }
  return out;
}

json repeated_energy_to_json(const std::optional<RepeatedEnergy>& figure) {
  if (!figure) return json();
  return json{{"energy_j", figure->stats.mean},
              {"energy_j_low", figure->band.low_j},
              {"energy_j_high", figure->band.high_j},
              {"uncertainty_dominant", to_string(figure->band.dominant)},
              {"stats", stats_to_json(figure->stats)}};
}

json attribution_to_json(const std::vector<AttributionRecord>& records) {
  json attribution = json::array();
  for (const AttributionRecord& a : records) {
    attribution.push_back(json{{"channel_id", a.channel_id},
                               {"method", recorded_method_name(a.method)},
                               {"reason", a.reason},
                               {"diagnostics", diagnostics_by_name(a.diagnostics)},
                               {"notes", a.notes}});
  }
  return attribution;
}

// Writes JSON text as nlohmann's dump(indent) would lay it out (indent < 0: compact), with the
// nesting level of each value given by the caller.
class JsonStream {
 public:
  JsonStream(std::ostream& out, int indent) : out_(out), indent_(indent) {}

  std::ostream& out() { return out_; }

  // Opens a line at `level` (pretty printing only).
  void line(int level) {
    if (indent_ < 0) return;
    out_ << '\n';
    out_ << std::string(static_cast<std::size_t>(std::min(level, kMaxIndentLevels) * indent_), ' ');
  }

  // `"key": ` as the next member of an object at `level` - 1.
  void key(std::string_view name, int level, bool first) {
    if (!first) out_ << ',';
    line(level);
    out_ << '"' << name << (indent_ < 0 ? "\":" : "\": ");
  }

  // A value whose first line continues the current one; its inner lines are indented to `level`.
  void value(const json& v, int level) {
    const std::string text = v.dump(indent_, ' ', false, json::error_handler_t::replace);
    if (indent_ < 0 || text.find('\n') == std::string::npos) {
      out_ << text;
      return;
    }
    const std::string base(static_cast<std::size_t>(std::min(level, kMaxIndentLevels) * indent_),
                           ' ');
    std::size_t begin = 0;
    while (true) {
      const std::size_t end = text.find('\n', begin);
      out_.write(text.data() + begin, static_cast<std::streamsize>(
                                          (end == std::string::npos ? text.size() : end) - begin));
      if (end == std::string::npos) break;
      out_ << '\n' << base;
      begin = end + 1;
    }
  }

  void member(std::string_view name, const json& v, int level, bool first = false) {
    key(name, level, first);
    value(v, level);
  }

 private:
  std::ostream& out_;
  int indent_;
};

// One node's members up to "children" (sorted keys: calls, category, children, …).
void write_node_head(JsonStream& w, const ProfileNode& n, int level) {
  w.out() << '{';
  w.member("calls", n.calls, level + 1, true);
  w.member("category", to_string(n.category), level + 1);
  w.key("children", level + 1, false);
}

// The members after "children", and the closing brace.
void write_node_tail(JsonStream& w, const ProfileNode& n, int level) {
  const int in = level + 1;
  w.member("dynamic_energy_j", optional_json(n.dynamic_energy_j), in);
  w.member("energy_by_channel_j", n.energy_by_channel_j, in);
  w.member("energy_j", n.energy_j, in);
  w.member("energy_j_high", band_end_json(n.band, &EnergyBand::high_j), in);
  w.member("energy_j_low", band_end_json(n.band, &EnergyBand::low_j), in);
  w.member("energy_stats", n.energy_stats ? stats_to_json(*n.energy_stats) : json(), in);
  w.member("name", n.name, in);
  w.member("pass", to_string(n.pass), in);
  w.member("provenance", to_string(n.provenance), in);
  w.member("self_energy_j", n.self_energy_j, in);
  w.member("self_time_ns", n.self_time_ns, in);
  w.member("static_energy_j", optional_json(n.static_energy_j), in);
  w.member("time_ns", n.time_ns, in);
  w.member("uncertainty_dominant", dominant_term_json(n.band), in);
  w.line(level);
  w.out() << '}';
}

void write_tree(JsonStream& w, const ProfileNode& root, int level) {
  struct Open {
    const ProfileNode* node;
    std::size_t next_child;
    int level;
  };
  std::vector<Open> open;
  const auto begin = [&](const ProfileNode& n, int at) {
    write_node_head(w, n, at);
    if (n.children.empty()) {
      w.out() << "[]";
      write_node_tail(w, n, at);
      return;
    }
    w.out() << '[';
    open.push_back({&n, 0, at});
  };
  begin(root, level);
  while (!open.empty()) {
    Open& top = open.back();
    if (top.next_child < top.node->children.size()) {
      if (top.next_child > 0) w.out() << ',';
      const int child_level = top.level + 2;
      w.line(child_level);
      const ProfileNode& child = top.node->children[top.next_child++];
      begin(child, child_level);  // may grow `open`: `top` is not used again
      continue;
    }
    const Open done = top;
    open.pop_back();
    w.line(done.level + 1);
    w.out() << ']';
    write_node_tail(w, *done.node, done.level);
  }
}

void write_array(JsonStream& w, const std::vector<Series>& series, ProfileArrays arrays,
                 int level) {
  if (series.empty()) {
    w.out() << "[]";
    return;
  }
  w.out() << '[';
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (i > 0) w.out() << ',';
    w.line(level + 1);
    w.value(series_to_json(series[i], arrays), level + 1);  // one series' document at a time
  }
  w.line(level);
  w.out() << ']';
}

void write_profile(std::ostream& out, const Profile& p, int indent, ProfileArrays arrays) {
  JsonStream w(out, indent);
  out << '{';
  w.member("attribution", attribution_to_json(p.attribution), 1, true);
  w.member("channels", channels_to_json(p.channels), 1);
  w.member("energy_per_epoch", repeated_energy_to_json(p.energy_per_epoch), 1);
  w.member("energy_per_step", repeated_energy_to_json(p.energy_per_step), 1);
  w.member("epochs", epochs_to_json(p.epochs), 1);
  w.member("meta", meta_to_json(p.meta), 1);
  w.member("schema", "jouleprof.profile", 1);
  w.member("schema_version", kProfileSchemaVersion, 1);  // what this writer writes
  w.key("series", 1, false);
  write_array(w, p.series, arrays, 1);
  w.member("timeline", timeline_to_json(p.timeline, arrays), 1);
  w.key("tree", 1, false);
  if (p.tree) {
    write_tree(w, *p.tree, 1);
  } else {
    out << "null";
  }
  w.member("warnings", p.warnings, 1);
  w.line(0);
  out << '}';
}

// --- reading ---------------------------------------------------------------------------------

// A figure the output gate withheld (core/output_gate.hpp) is written as null: it reads back as
// NaN, which every report shows as invalid and figure_problems names.
template <typename W>
Result<double> figure_or_withheld(const JsonFields& f, const json& j, std::string_view key,
                                  const W& where) {
  if (const auto it = j.find(key); it != j.end() && it->is_null())
    return std::numeric_limits<double>::quiet_NaN();
  return f.get<double>(j, key, where);
}

template <typename W>
Result<std::map<std::string, double>> figures_or_withheld(const JsonFields& f, const json& j,
                                                          std::string_view key, const W& where) {
  JP_TRY(const json* by_key, f.member(j, key, where));
  JP_TRY(const json* object,
         f.object(*by_key, [&] { return spell_path(where) + "." + std::string(key); }));
  std::map<std::string, double> figures;
  for (const auto& [name, value] : object->items()) {
    JP_TRY(figures[name], figure_or_withheld(f, *object, name, [&] {
             return spell_path(where) + "." + std::string(key);
           }));
  }
  return figures;
}

// Version 1 wrote an nvidia-smi log's product name into the device ("gpu0 NVIDIA H200"), where
// no GPU track matched it: read as device "gpu0", label "NVIDIA H200".
void upgrade_version_1(Channel& c) {
  const std::size_t space = c.device.find(' ');
  if (!c.label.empty() || !c.device.starts_with("gpu") || space == std::string::npos) return;
  c.label = c.device.substr(space + 1);
  c.device.resize(space);
}

Result<Channel> channel_from_json(const JsonFields& f, const json& j, const std::string& where,
                                  int schema_version) {
  Channel c;
  JP_TRY(c.id, f.get<std::string>(j, "id", where));
  JP_TRY(c.source, f.get<std::string>(j, "source", where));
  JP_TRY(c.device, f.get<std::string>(j, "device", where));
  JP_TRY(const std::optional<std::string> label,
         f.optional<std::string>(j, "label", where));  // since version 2
  c.label = label.value_or("");
  JP_TRY(c.domain, f.get<std::string>(j, "domain", where));
  JP_TRY(c.kind, f.named<ChannelKind>(j, "kind", where, channel_kind_from_string));
  JP_TRY(c.provenance, f.named<Provenance>(j, "provenance", where, provenance_from_string));
  JP_TRY(c.provenance_detail, f.get<std::string>(j, "provenance_detail", where));
  JP_TRY(c.parent_id, f.get<std::string>(j, "parent_id", where));
  JP_TRY(c.nominal_period_ns, f.get<TimeNs>(j, "nominal_period_ns", where));
  JP_TRY(c.measured_period_ns, f.get<TimeNs>(j, "measured_period_ns", where));
  JP_TRY(c.static_power_w, f.optional<double>(j, "static_power_w", where));
  JP_TRY(const std::optional<TimeNs> averaging_ns,
         f.optional<TimeNs>(j, "averaging_ns", where));  // absent: not averaged, or not known
  c.averaging_ns = averaging_ns.value_or(0);
  if (schema_version == 1) upgrade_version_1(c);
  return c;
}

// What a packed block's columns hold, which bounds what its text may inflate to: `rows` rows of
// fixed-size values, or, with byte columns, no more than deflate's ratio allows.
struct BlockColumns {
  std::size_t varints = 0;
  std::size_t doubles = 0;
  std::size_t bytes = 0;

  std::size_t count() const { return varints + doubles + bytes; }
};

// The packed block in `j` (an object with "encoding", "count" and "data"), opened; its row count
// in `rows`. `field` names it in errors.
Result<PackedColumnsReader> open_packed(const JsonFields& f, const json& j, BlockColumns columns,
                                        std::uint64_t& rows, const std::string& field) {
  JP_TRY(const std::string encoding, f.get<std::string>(j, "encoding", field));
  if (encoding != kPackedColumnsEncoding) {
    return f.error(field + ".encoding",
                   fmt::format("is '{}', not '{}'", encoding, kPackedColumnsEncoding));
  }
  JP_TRY(rows, f.get<std::uint64_t>(j, "count", field));
  JP_TRY(const json* data, f.member(j, "data", field));
  if (!data->is_string()) return f.error(field + ".data", "is not a string");
  const std::string& text = data->get_ref<const std::string&>();
  const std::size_t max_bytes = columns.bytes > 0
                                    ? packed_text_bound(text.size())
                                    : packed_columns_bound(rows, columns.varints, columns.doubles);
  Result<PackedColumnsReader> reader = PackedColumnsReader::open(text, columns.count(), max_bytes);
  if (!reader) return f.error(field + ".data", reader.error().message());
  return reader;
}

// The end of a packed block: every column read to its end, no row short.
Status close_packed(const JsonFields& f, const PackedColumnsReader& reader, bool rows_complete,
                    std::uint64_t rows, const std::string& field) {
  if (!rows_complete) {
    return f.error(field + ".data", fmt::format("holds fewer than its count of {} rows", rows));
  }
  if (!reader.at_end()) {
    return f.error(field + ".data", fmt::format("holds more than its count of {} rows", rows));
  }
  return Status::Ok();
}

// `at` names the sample, spelled only when it is refused.
template <typename W>
Status append_sample(const JsonFields& f, Series& s, TimeNs t_ns, double value, const W& at) {
  const Status st = s.append(t_ns, value);
  if (!st) return f.error_at(at, st.error().message());
  return Status::Ok();
}

Status read_samples(const JsonFields& f, const json& samples, Series& s, const std::string& where) {
  const std::string field = where + ".samples";
  if (samples.is_object()) {
    std::uint64_t rows = 0;
    JP_TRY(PackedColumnsReader reader, open_packed(f, samples, {1, 1, 0}, rows, field));
    TimeNs t_ns = 0;
    bool complete = true;
    for (std::uint64_t i = 0; i < rows && complete; ++i) {
      std::int64_t delta = 0;
      double value = 0.0;
      complete =
          reader.next_signed(kSampleTimeDelta, delta) && reader.next_double(kSampleValue, value);
      if (!complete) break;
      if (__builtin_add_overflow(t_ns, delta, &t_ns)) {
        return f.error(fmt::format("{}[{}]", field, i), "has a time beyond 64-bit nanoseconds");
      }
      JP_RETURN_IF_ERROR(
          append_sample(f, s, t_ns, value, [&] { return fmt::format("{}[{}]", field, i); }));
    }
    return close_packed(f, reader, complete, rows, field);
  }
  if (!samples.is_array()) {
    return f.error(field, "is not an array (" + json_brief(samples) + ")");
  }
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const json& pair = samples[i];
    const auto at = [&] { return fmt::format("{}[{}]", field, i); };
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() ||
        !pair[1].is_number()) {
      return f.error(at(), "is not a [t_ns, value] pair (" + json_brief(pair) + ")");
    }
    JP_RETURN_IF_ERROR(append_sample(f, s, pair[0].get<TimeNs>(), pair[1].get<double>(), at));
  }
  return Status::Ok();
}

Result<Series> series_from_json(const JsonFields& f, const json& j, std::size_t index,
                                int schema_version) {
  const auto where = [index] { return fmt::format("series[{}]", index); };
  JP_TRY(const json* channel, f.member(j, "channel", where));
  JP_TRY(Channel c, channel_from_json(f, *channel, where() + ".channel", schema_version));
  Series s(std::move(c));
  JP_TRY(const json* samples, f.member(j, "samples", where));
  JP_RETURN_IF_ERROR(read_samples(f, *samples, s, where()));
  const auto gaps_at = [&] { return where() + ".gaps"; };
  JP_TRY(const json* gaps, f.array(j, "gaps", where));
  for (const json& g : *gaps) {
    Gap gap;
    JP_TRY(gap.begin_ns, f.get<TimeNs>(g, "begin_ns", gaps_at));
    JP_TRY(gap.end_ns, f.get<TimeNs>(g, "end_ns", gaps_at));
    JP_TRY(gap.reason, f.get<std::string>(g, "reason", gaps_at));
    s.add_gap(std::move(gap));
  }
  return s;
}

Result<RepetitionStats> stats_from_json(const JsonFields& f, const json& j,
                                        const std::string& where) {
  RepetitionStats r;
  JP_TRY(r.n, f.get<std::uint32_t>(j, "n", where));
  JP_TRY(r.mean, f.get<double>(j, "mean", where));
  JP_TRY(r.median, f.get<double>(j, "median", where));
  JP_TRY(r.stdev, f.get<double>(j, "stdev", where));
  JP_TRY(r.ci95_low, f.get<double>(j, "ci95_low", where));
  JP_TRY(r.ci95_high, f.get<double>(j, "ci95_high", where));
  return r;
}

// A figure's interval: energy_j_low and energy_j_high, both or neither (files before schema 3 have
// neither), around the figure, with the term that dominates it.
template <typename W>
Result<std::optional<EnergyBand>> band_from_json(const JsonFields& f, const json& j,
                                                 double energy_j, const W& where) {
  JP_TRY(const std::optional<double> low, f.optional<double>(j, "energy_j_low", where));
  JP_TRY(const std::optional<double> high, f.optional<double>(j, "energy_j_high", where));
  if (!low && !high) return std::optional<EnergyBand>();
  if (!low || !high) {
    return f.error_at(where, "has one of energy_j_low and energy_j_high without the other");
  }
  if (!(*low <= energy_j && energy_j <= *high)) {
    return f.error_at(where, fmt::format("has an interval [{}, {}] J that does not contain its "
                                         "energy_j {}",
                                         *low, *high, energy_j));
  }
  EnergyBand band;
  band.low_j = *low;
  band.high_j = *high;
  JP_TRY(band.dominant,
         f.named<UncertaintyTerm>(j, "uncertainty_dominant", where, uncertainty_term_from_string));
  return std::optional<EnergyBand>(band);
}

// Every node of the tree, read breadth first; `parent` indexes this list, for error paths.
class TreeReader {
 public:
  explicit TreeReader(const JsonFields& fields) : f_(fields) {}

  Result<ProfileNode> read(const json& root) {
    ProfileNode tree;
    pending_.push_back({&root, &tree, kNone, 0});
    for (std::size_t i = 0; i < pending_.size(); ++i) JP_RETURN_IF_ERROR(read_node(i));
    return tree;
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  struct Pending {
    const json* j;
    ProfileNode* node;
    std::size_t parent;
    std::size_t depth;
  };

  // "tree[run].children[encoder].children[gemm]": at most the first and the last few levels.
  std::string path(std::size_t i) const {
    constexpr std::size_t kShownLevels = 8;
    std::vector<std::size_t> chain;
    for (std::size_t k = i; k != kNone; k = pending_[k].parent) chain.push_back(k);
    std::string text = "tree";
    for (std::size_t level = 0; level < chain.size(); ++level) {
      const std::size_t from_end = chain.size() - 1 - level;
      if (level >= 2 && from_end >= kShownLevels) {
        if (level == 2)
          text += fmt::format(".children[…{} levels…]", chain.size() - 2 - kShownLevels);
        continue;
      }
      if (level > 0) text += ".children";
      const std::string& name = pending_[chain[chain.size() - 1 - level]].node->name;
      text += "[" + (name.empty() && level + 1 == chain.size() ? std::string("?") : name) + "]";
    }
    return text;
  }

  Status read_node(std::size_t i) {
    const json& j = *pending_[i].j;
    ProfileNode& n = *pending_[i].node;
    const auto where = [&] { return path(i); };
    if (pending_[i].parent != kNone && !j.is_object()) {
      return f_.error(path(pending_[i].parent) + ".children",
                      "holds a node that is not an object (" + json_brief(j) + ")");
    }
    JP_TRY(n.name, f_.get<std::string>(j, "name", where));
    JP_TRY(n.category,
           f_.named<SpanCategory>(j, "category", where, parse_by_name<SpanCategory, 9>));
    JP_TRY(n.pass, f_.named<Pass>(j, "pass", where, parse_by_name<Pass, 5>));
    JP_TRY(n.energy_j, figure_or_withheld(f_, j, "energy_j", where));
    JP_TRY(n.self_energy_j, figure_or_withheld(f_, j, "self_energy_j", where));
    JP_TRY(n.static_energy_j, f_.optional<double>(j, "static_energy_j", where));
    JP_TRY(n.dynamic_energy_j, f_.optional<double>(j, "dynamic_energy_j", where));
    JP_TRY(n.time_ns, f_.get<TimeNs>(j, "time_ns", where));
    JP_TRY(n.self_time_ns, f_.get<TimeNs>(j, "self_time_ns", where));
    JP_TRY(n.calls, f_.get<std::uint64_t>(j, "calls", where));
    JP_TRY(n.provenance, f_.named<Provenance>(j, "provenance", where, provenance_from_string));
    JP_TRY(n.energy_by_channel_j, figures_or_withheld(f_, j, "energy_by_channel_j", where));
    if (const auto it = j.find("energy_stats"); it != j.end() && !it->is_null()) {
      JP_TRY(n.energy_stats, stats_from_json(f_, *it, where() + ".energy_stats"));
    }
    JP_TRY(n.band, band_from_json(f_, j, n.energy_j, where));
    JP_TRY(const json* children, f_.array(j, "children", where));
    if (!children->empty() && pending_[i].depth + 1 >= kMaxProfileTreeDepth) {
      return f_.error(
          where() + ".children",
          fmt::format("go deeper than the {} levels of the deepest tree jouleprof reads",
                      kMaxProfileTreeDepth));
    }
    // Sized once, so that the pointers queued below stay valid.
    n.children.resize(children->size());
    for (std::size_t c = 0; c < children->size(); ++c) {
      pending_.push_back({&(*children)[c], &n.children[c], i, pending_[i].depth + 1});
    }
    return Status::Ok();
  }

  const JsonFields& f_;
  std::vector<Pending> pending_;
};

// A span read from either layout, checked against what the timeline holds; `count` is the number
// of spans in the file (parents may come after their children). `at` is spelled only on an error.
template <typename W>
Status add_checked_span(const JsonFields& f, Timeline& t, const Span& s, std::size_t count,
                        const W& at) {
  if (s.end_ns < s.begin_ns) return f.error_at(at, "ends before it begins");
  if (s.track >= t.tracks().size() || s.name >= t.names().size() ||
      (s.parent != kNoIndex && s.parent >= count) ||
      (s.attributes != kNoIndex && s.attributes >= t.attributes().size())) {
    return f.error_at(at, "refers to a track, name, parent or attribute set that does not exist");
  }
  t.add_span(s);
  return Status::Ok();
}

bool set_category_and_pass(Span& s, std::int64_t category, std::int64_t pass) {
  if (category < 0 || category > static_cast<int>(SpanCategory::kMemory) || pass < 0 ||
      pass > static_cast<int>(Pass::kCommunication)) {
    return false;
  }
  s.category = static_cast<SpanCategory>(category);
  s.pass = static_cast<Pass>(pass);
  return true;
}

Status read_packed_spans(const JsonFields& f, const json& j, Timeline& t, int schema_version) {
  const int pass_bits = schema_version >= 4 ? kPassBits : 2;  // 2 bits before [communication]
  const std::string field = "timeline.spans";
  std::uint64_t rows = 0;
  JP_TRY(PackedColumnsReader reader, open_packed(f, j, {kSpanColumns, 0, 0}, rows, field));
  if (rows >= kNoIndex) return f.error(field + ".count", "is more spans than a timeline holds");
  TimeNs begin_ns = 0;
  bool complete = true;
  for (std::uint64_t i = 0; i < rows && complete; ++i) {
    std::int64_t delta = 0;
    std::uint64_t duration = 0, track = 0, name = 0, parent = 0, attributes = 0, kind = 0;
    complete = reader.next_signed(kSpanBeginDelta, delta) &&
               reader.next_unsigned(kSpanDuration, duration) &&
               reader.next_unsigned(kSpanTrack, track) && reader.next_unsigned(kSpanName, name) &&
               reader.next_unsigned(kSpanParent, parent) &&
               reader.next_unsigned(kSpanAttributes, attributes) &&
               reader.next_unsigned(kSpanCategoryAndPass, kind);
    if (!complete) break;
    const auto at = [&] { return fmt::format("{}[{}]", field, i); };
    Span s;
    if (__builtin_add_overflow(begin_ns, delta, &begin_ns) ||
        duration > static_cast<std::uint64_t>(std::numeric_limits<TimeNs>::max()) ||
        __builtin_add_overflow(begin_ns, static_cast<TimeNs>(duration), &s.end_ns)) {
      return f.error(at(), "has a time beyond 64-bit nanoseconds");
    }
    s.begin_ns = begin_ns;
    // Indices past 32 bits are made out of range, so add_checked_span refuses them.
    const auto index = [](std::uint64_t v) {
      return v >= kNoIndex ? kNoIndex - 1 : static_cast<std::uint32_t>(v);
    };
    s.track = index(track);
    s.name = index(name);
    s.attributes = attributes == 0 ? kNoIndex : index(attributes - 1);
    if (parent != 0) {
      const std::int64_t back = unzigzag(parent - 1);
      std::int64_t parent_index = 0;
      if (__builtin_sub_overflow(static_cast<std::int64_t>(i), back, &parent_index) ||
          parent_index < 0 || static_cast<std::uint64_t>(parent_index) >= rows) {
        return f.error(at(), "refers to a parent that does not exist");
      }
      s.parent = static_cast<std::uint32_t>(parent_index);
    }
    if (!set_category_and_pass(s, static_cast<std::int64_t>(kind >> pass_bits),
                               static_cast<std::int64_t>(kind & ((1U << pass_bits) - 1)))) {
      return f.error(at(), "has an unknown category or pass");
    }
    JP_RETURN_IF_ERROR(add_checked_span(f, t, s, rows, at));
  }
  return close_packed(f, reader, complete, rows, field);
}

Status read_packed_attributes(const JsonFields& f, const json& j, Timeline& t) {
  const std::string field = "timeline.attributes";
  JP_TRY(const auto keys, f.get<std::vector<std::string>>(j, "keys", field));
  std::uint64_t rows = 0;
  JP_TRY(PackedColumnsReader reader, open_packed(f, j, {3, 0, 1}, rows, field));
  bool complete = true;
  for (std::uint64_t i = 0; i < rows && complete; ++i) {
    std::uint64_t pairs = 0;
    complete = reader.next_unsigned(kAttributePairs, pairs);
    Attributes set;
    for (std::uint64_t k = 0; k < pairs && complete; ++k) {
      std::uint64_t key = 0;
      std::uint64_t size = 0;
      std::string_view value;
      complete = reader.next_unsigned(kAttributeKey, key) &&
                 reader.next_unsigned(kAttributeValueSize, size) &&
                 reader.next_bytes(kAttributeValueBytes, size, value);
      if (complete && key >= keys.size()) {
        return f.error(fmt::format("{}[{}]", field, i),
                       fmt::format("names key {} of the {} keys", key, keys.size()));
      }
      if (complete) set.emplace_back(keys[key], std::string(value));
    }
    if (complete) t.add_attributes(std::move(set));
  }
  return close_packed(f, reader, complete, rows, field);
}

// [["key", "value"], …]: pairs of strings.
bool is_attribute_list(const json& set) {
  if (!set.is_array()) return false;
  for (const json& pair : set) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
      return false;
  }
  return true;
}

Status read_attributes(const JsonFields& f, const json& attributes, Timeline& t) {
  if (attributes.is_object()) return read_packed_attributes(f, attributes, t);
  if (!attributes.is_array()) {
    return f.error("timeline.attributes", "is not an array (" + json_brief(attributes) + ")");
  }
  for (std::size_t i = 0; i < attributes.size(); ++i) {
    const json& set = attributes[i];
    if (!is_attribute_list(set)) {
      return f.error(fmt::format("timeline.attributes[{}]", i),
                     "is not a list of [key, value] string pairs (" + json_brief(set) + ")");
    }
    Attributes pairs;
    pairs.reserve(set.size());
    for (const json& pair : set) {
      pairs.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
    }
    t.add_attributes(std::move(pairs));
  }
  return Status::Ok();
}

Status read_spans(const JsonFields& f, const json& spans, Timeline& t, int schema_version) {
  if (spans.is_object()) return read_packed_spans(f, spans, t, schema_version);
  if (!spans.is_array()) {
    return f.error("timeline.spans", "is not an array (" + json_brief(spans) + ")");
  }
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const json& a = spans[i];
    const auto at = [&] { return fmt::format("timeline.spans[{}]", i); };
    if (!a.is_array() || a.size() != 8) return f.error(at(), "is not an 8-element span array");
    for (const json& v : a) {
      if (!v.is_number_integer()) {
        return f.error(at(), "holds a value that is not an integer (" + json_brief(v) + ")");
      }
    }
    // Negative: none; past 32 bits: refused.
    std::array<std::uint32_t, 4> indices{};
    for (std::size_t k = 0; k < indices.size(); ++k) {
      const auto x = a[2 + k].get<std::int64_t>();
      if (x >= static_cast<std::int64_t>(kNoIndex)) return f.error(at(), "index out of range");
      indices[k] = x < 0 ? kNoIndex : static_cast<std::uint32_t>(x);
    }
    Span s;
    s.begin_ns = a[0].get<TimeNs>();
    s.end_ns = a[1].get<TimeNs>();
    s.track = indices[0];
    s.name = indices[1];
    s.parent = indices[2];
    s.attributes = indices[3];
    if (!set_category_and_pass(s, a[6].get<std::int64_t>(), a[7].get<std::int64_t>())) {
      return f.error(at(), "has an unknown category or pass");
    }
    JP_RETURN_IF_ERROR(add_checked_span(f, t, s, spans.size(), at));
  }
  return Status::Ok();
}

Result<Timeline> timeline_from_json(const JsonFields& f, const json& j, int schema_version) {
  const char* where = "timeline";
  Timeline t;
  JP_TRY(const json* names, f.array(j, "names", where));
  for (std::size_t i = 0; i < names->size(); ++i) {
    const json& name = (*names)[i];
    if (!name.is_string()) {
      return f.error(fmt::format("timeline.names[{}]", i),
                     "is not a string (" + json_brief(name) + ")");
    }
    t.intern(name.get_ref<const std::string&>());
  }
  if (t.names().size() != names->size()) {
    return f.error("timeline.names", "holds the same name twice");
  }
  JP_TRY(const json* tracks, f.array(j, "tracks", where));
  for (const json& tr : *tracks) {
    Track track;
    JP_TRY(track.kind,
           f.named<TrackKind>(tr, "kind", "timeline.tracks", parse_by_name<TrackKind, 3>));
    JP_TRY(track.name, f.get<std::string>(tr, "name", "timeline.tracks"));
    JP_TRY(track.device, f.get<std::string>(tr, "device", "timeline.tracks"));
    t.add_track(std::move(track));
  }
  JP_TRY(const json* attributes, f.member(j, "attributes", where));
  JP_RETURN_IF_ERROR(read_attributes(f, *attributes, t));
  JP_TRY(const json* spans, f.member(j, "spans", where));
  JP_RETURN_IF_ERROR(read_spans(f, *spans, t, schema_version));
  if (const std::optional<std::uint32_t> cycle = t.find_parent_cycle()) {
    return f.error(fmt::format("timeline.spans[{}]", *cycle),
                   "is its own ancestor (the parent indices form a cycle)");
  }
  JP_TRY(const json* marks, f.array(j, "marks", where));
  for (std::size_t i = 0; i < marks->size(); ++i) {
    const json& m = (*marks)[i];
    if (!m.is_array() || m.size() != 3 || !m[0].is_number_integer() || !m[1].is_number_unsigned() ||
        !m[2].is_number_unsigned() || !json_holds_integer<std::uint32_t>(m[1]) ||
        !json_holds_integer<std::uint32_t>(m[2])) {
      return f.error(fmt::format("timeline.marks[{}]", i), "is not a [t_ns, track, name] array");
    }
    // Marks may name track 0 of a timeline without tracks (attribute's window marks): the
    // readers of marks check their indices.
    t.add_mark(Mark{m[0].get<TimeNs>(), m[1].get<std::uint32_t>(), m[2].get<std::uint32_t>()});
  }
  return t;
}

Status read_meta(const JsonFields& f, const json& meta, RunMetadata& m) {
  JP_TRY(m.tool_version, f.get<std::string>(meta, "tool_version", "meta"));
  JP_TRY(m.kind, f.get<std::string>(meta, "kind", "meta"));
  JP_TRY(m.command, f.get<std::vector<std::string>>(meta, "command", "meta"));
  JP_TRY(m.host, f.get<std::string>(meta, "host", "meta"));
  JP_TRY(m.rank, f.optional<int>(meta, "rank", "meta"));
  JP_TRY(m.world_size, f.optional<int>(meta, "world_size", "meta"));
  JP_TRY(const json* anchor, f.member(meta, "anchor", "meta"));
  JP_TRY(m.anchor.monotonic_ns, f.get<TimeNs>(*anchor, "monotonic_ns", "meta.anchor"));
  JP_TRY(m.anchor.realtime_ns, f.get<TimeNs>(*anchor, "realtime_ns", "meta.anchor"));
  JP_TRY(m.begin_ns, f.get<TimeNs>(meta, "begin_ns", "meta"));
  JP_TRY(m.end_ns, f.get<TimeNs>(meta, "end_ns", "meta"));
  JP_TRY(m.exit_code, f.optional<int>(meta, "exit_code", "meta"));
  JP_TRY(m.partial, f.get<bool>(meta, "partial", "meta"));
  JP_TRY(const auto options, (f.get<std::map<std::string, std::string>>(meta, "options", "meta")));
  JP_TRY(m.options, recorded_options_from_entries(options, f.origin()));
  JP_TRY(m.grid_intensity_g_per_kwh, f.optional<double>(meta, "grid_intensity_g_per_kwh", "meta"));
  if (m.grid_intensity_g_per_kwh) {
    JP_RETURN_IF_ERROR(check_figure(FigureKind::kGridIntensity, f.origin(),
                                    "meta.grid_intensity_g_per_kwh", *m.grid_intensity_g_per_kwh));
  }
  return Status::Ok();
}

Result<ChannelSummary> channel_summary_from_json(const JsonFields& f, const json& c) {
  ChannelSummary s;
  JP_TRY(s.channel_id, f.get<std::string>(c, "channel_id", "channels"));
  const auto where = [&] { return "channels[" + s.channel_id + "]"; };
  JP_TRY(s.energy_j, figure_or_withheld(f, c, "energy_j", where));
  JP_TRY(s.idle_power_w, f.optional<double>(c, "idle_power_w", where));
  JP_TRY(s.net_energy_j, f.optional<double>(c, "net_energy_j", where));
  JP_TRY(s.duration_ns, f.get<TimeNs>(c, "duration_ns", where));
  JP_TRY(s.mean_power_w, figure_or_withheld(f, c, "mean_power_w", where));
  JP_TRY(s.peak_power_w, figure_or_withheld(f, c, "peak_power_w", where));
  JP_TRY(s.provenance, f.named<Provenance>(c, "provenance", where, provenance_from_string));
  JP_TRY(s.band, band_from_json(f, c, s.energy_j, where));
  if (s.band) {
    JP_TRY(const json* parts, f.array(c, "uncertainty", where));
    for (std::size_t k = 0; k < parts->size(); ++k) {
      const auto at = [&] { return fmt::format("{}.uncertainty[{}]", where(), k); };
      const json& part = (*parts)[k];
      UncertaintyPart u;
      JP_TRY(u.term, f.named<UncertaintyTerm>(part, "term", at, uncertainty_term_from_string));
      JP_TRY(u.half_width_j, f.get<double>(part, "half_width_j", at));
      JP_TRY(u.missing_low_j, f.get<double>(part, "missing_low_j", at));
      JP_TRY(u.missing_high_j, f.get<double>(part, "missing_high_j", at));
      s.uncertainty.push_back(u);
    }
  }
  JP_TRY(const std::optional<double> process_j, f.optional<double>(c, "process_energy_j", where));
  if (process_j) {
    ProcessFigures p;
    p.energy_j = *process_j;
    JP_TRY(p.share, f.get<double>(c, "process_share", where));
    JP_TRY(p.dynamic_energy_j, f.optional<double>(c, "process_dynamic_energy_j", where));
    JP_TRY(p.others_activity_share, f.optional<double>(c, "others_activity_share", where));
    JP_TRY(p.rule, f.get<std::string>(c, "process_rule", where));
    s.process = std::move(p);
  }
  return s;
}

Result<AttributionRecord> attribution_record_from_json(const JsonFields& f, const json& a) {
  AttributionRecord r;
  JP_TRY(r.channel_id, f.get<std::string>(a, "channel_id", "attribution"));
  const auto where = [&] { return "attribution[" + r.channel_id + "]"; };
  JP_TRY(const std::string method, f.get<std::string>(a, "method", where));
  if (method != "none") {
    r.method = attribution_method_from_string(method);
    if (!r.method || *r.method == AttributionMethod::kAuto) {
      return f.error(where() + ".method", "is not a method jouleprof knows ('" + method + "')");
    }
  }
  JP_TRY(r.reason, f.get<std::string>(a, "reason", where));
  JP_TRY(const auto names, (f.get<std::map<std::string, double>>(a, "diagnostics", where)));
  Result<AttributionDiagnostics> diagnostics = diagnostics_from_names(names);
  if (!diagnostics) return f.error(where() + ".diagnostics", diagnostics.error().message());
  r.diagnostics = std::move(*diagnostics);
  JP_TRY(r.notes, f.get<std::vector<std::string>>(a, "notes", where));
  return r;
}

Result<EpochSummary> epoch_from_json(const JsonFields& f, const json& j, std::size_t index) {
  const std::string where = fmt::format("epochs[{}]", index);
  EpochSummary e;
  JP_TRY(e.begin_ns, f.get<TimeNs>(j, "begin_ns", where));
  JP_TRY(e.end_ns, f.get<TimeNs>(j, "end_ns", where));
  JP_TRY(e.energy_j, f.get<double>(j, "energy_j", where));
  JP_TRY(e.counter_updates, f.get<std::uint64_t>(j, "counter_updates", where));
  if (e.end_ns < e.begin_ns) return f.error(where + ".end_ns", "is before its begin_ns");
  JP_TRY(e.band, band_from_json(f, j, e.energy_j, where));
  return e;
}

// energy_per_step, energy_per_epoch: null, or the mean, its interval and the repetitions' stats.
Result<std::optional<RepeatedEnergy>> repeated_energy_from_json(const JsonFields& f, const json& j,
                                                                const std::string& key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<RepeatedEnergy>();
  if (!it->is_object()) return f.error("profile." + key, "is not an object or null");
  RepeatedEnergy figure;
  JP_TRY(const json* stats, f.member(*it, "stats", key));
  JP_TRY(figure.stats, stats_from_json(f, *stats, key + ".stats"));
  JP_TRY(const double energy_j, f.get<double>(*it, "energy_j", key));
  if (energy_j != figure.stats.mean)
    return f.error(key + ".energy_j", "differs from its stats.mean");
  JP_TRY(const std::optional<EnergyBand> band, band_from_json(f, *it, energy_j, key));
  if (!band) return f.error(key, "has no energy_j_low and energy_j_high");
  figure.band = *band;
  return std::optional<RepeatedEnergy>(figure);
}

Result<Profile> from_json(const JsonFields& f, const json& j) {
  Profile p;
  // Another document (a run's spans.json beside its profile) is told apart from a broken profile.
  Result<std::string> schema = f.get<std::string>(j, "schema", "profile");
  if (!schema || *schema != "jouleprof.profile") {
    const Error e =
        schema ? f.error("profile.schema", "is not 'jouleprof.profile'") : schema.error();
    return Error(e.code(), e.message(), ErrorSubject::kNotAProfile);
  }
  JP_TRY(p.schema_version, f.get<int>(j, "schema_version", "profile"));
  if (p.schema_version > kProfileSchemaVersion) {
    return f.error("profile.schema_version",
                   fmt::format("{} is newer than this jouleprof reads ({})", p.schema_version,
                               kProfileSchemaVersion));
  }
  JP_TRY(const json* meta, f.member(j, "meta", "profile"));
  JP_RETURN_IF_ERROR(read_meta(f, *meta, p.meta));

  JP_TRY(const json* series, f.array(j, "series", "profile"));
  for (std::size_t i = 0; i < series->size(); ++i) {
    JP_TRY(Series s, series_from_json(f, (*series)[i], i, p.schema_version));
    p.series.push_back(std::move(s));
  }
  JP_TRY(const json* channels, f.array(j, "channels", "profile"));
  for (const json& c : *channels) {
    JP_TRY(ChannelSummary s, channel_summary_from_json(f, c));
    p.channels.push_back(std::move(s));
  }
  JP_TRY(const json* timeline, f.member(j, "timeline", "profile"));
  JP_TRY(p.timeline, timeline_from_json(f, *timeline, p.schema_version));
  if (const auto tree = j.find("tree"); tree != j.end() && !tree->is_null()) {
    JP_TRY(p.tree, TreeReader(f).read(*tree));
  }
  JP_TRY(const json* attribution, f.array(j, "attribution", "profile"));
  for (const json& a : *attribution) {
    JP_TRY(AttributionRecord r, attribution_record_from_json(f, a));
    p.attribution.push_back(std::move(r));
  }
  // Profiles written before epochs were summarised have no "epochs".
  if (j.contains("epochs")) {
    JP_TRY(const json* epochs, f.array(j, "epochs", "profile"));
    for (std::size_t i = 0; i < epochs->size(); ++i) {
      JP_TRY(EpochSummary e, epoch_from_json(f, (*epochs)[i], i));
      p.epochs.push_back(e);
    }
  }
  // Written from schema 5 on.
  JP_TRY(p.energy_per_step, repeated_energy_from_json(f, j, "energy_per_step"));
  JP_TRY(p.energy_per_epoch, repeated_energy_from_json(f, j, "energy_per_epoch"));
  JP_TRY(p.warnings, f.get<std::vector<std::string>>(j, "warnings", "profile"));
  return p;
}

}  // namespace

std::string ungated_profile_json(const Profile& profile, int indent, ProfileArrays arrays) {
  std::ostringstream out;
  write_profile(out, profile, indent, arrays);
  return std::move(out).str();
}

std::string profile_to_json_string(const Profile& profile, int indent, ProfileArrays arrays) {
  const std::optional<Profile> flagged = withheld_for_output(profile);
  return ungated_profile_json(flagged ? *flagged : profile, indent, arrays);
}

Result<Profile> profile_from_json_string(const std::string& text, const std::string& origin) {
  JP_TRY(const json j, parse_json(text, origin));
  return from_json(JsonFields(origin), j);
}

Status write_profile_json(const Profile& profile, const std::string& path, ProfileArrays arrays) {
  // Written beside the target and renamed over it: a run cut short, a full disk or a crash
  // leaves the previous file or none, never a truncated one.
  const std::filesystem::path target(path);
  const std::filesystem::path temporary =
      target.parent_path() / fmt::format(".{}.{}.tmp", target.filename().string(), getpid());
  {
    std::ofstream out(temporary);
    if (!out) {
      return Error(ErrorCode::kIo,
                   fmt::format("{}: cannot open for writing: {}", path, std::strerror(errno)));
    }
    const std::optional<Profile> flagged = withheld_for_output(profile);
    write_profile(out, flagged ? *flagged : profile, 1, arrays);
    out << '\n';
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      return Error(ErrorCode::kIo, fmt::format("{}: write failed", path));
    }
  }
  if (std::rename(temporary.c_str(), target.c_str()) != 0) {
    const int err = errno;
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    return Error(ErrorCode::kIo,
                 fmt::format("{}: cannot be written: {}", path, std::strerror(err)));
  }
  return Status::Ok();
}

Result<Profile> read_profile_json(const std::string& path) {
  JP_TRY(std::string text, read_text_file(path, "profile", kMaxProfileBytes));
  return profile_from_json_string(text, path);
}

}  // namespace jouleprof
