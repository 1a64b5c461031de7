#include "jouleprof/recorded_options.hpp"

#include <fmt/format.h>

#include <type_traits>
#include <utility>

#include "core/parse.hpp"

namespace jouleprof {
namespace {

// A codec is how one kind of field is written as text and read back: write(value) → text,
// read(text) → value or nullopt, and what() for the error when it is not one.

struct TextCodec {
  std::string write(const std::string& value) const { return value; }
  std::optional<std::string> read(std::string_view text) const { return std::string(text); }
  std::string_view what() const { return "not text"; }
};

template <typename Int>
struct IntegerCodec {
  std::string write(Int value) const { return fmt::format("{}", value); }
  std::optional<Int> read(std::string_view text) const {
    const auto v = [&] {
      if constexpr (std::is_signed_v<Int>) {
        return to_int64(text);
      } else {
        return to_uint64(text);
      }
    }();
    if (!v || !std::in_range<Int>(*v)) return std::nullopt;
    return static_cast<Int>(*v);
  }
  std::string_view what() const {
    return std::is_signed_v<Int> ? "not an integer" : "not a non-negative integer";
  }
};

// The digits each number has always been written with; every one reads back to the same text.
enum class Digits : std::uint8_t { kShortest, kSignificant6, kSignificant9, kFixed4 };

struct NumberCodec {
  Digits digits;
  std::string write(double value) const {
    switch (digits) {
      case Digits::kShortest:
        return fmt::format("{}", value);
      case Digits::kSignificant6:
        return fmt::format("{:.6g}", value);
      case Digits::kSignificant9:
        return fmt::format("{:.9g}", value);
      case Digits::kFixed4:
        return fmt::format("{:.4f}", value);
    }
    return fmt::format("{}", value);
  }
  std::optional<double> read(std::string_view text) const { return to_number(text); }
  std::string_view what() const { return "not a number"; }
};

struct FlagCodec {
  std::string write(bool value) const { return value ? "true" : "false"; }
  std::optional<bool> read(std::string_view text) const {
    if (text == "true") return true;
    if (text == "false") return false;
    return std::nullopt;
  }
  std::string_view what() const { return "neither true nor false"; }
};

template <typename Enum>
struct NameCodec {
  std::optional<Enum> (*from_string)(std::string_view);
  std::string write(Enum value) const { return std::string(to_string(value)); }
  std::optional<Enum> read(std::string_view text) const { return from_string(text); }
  std::string_view what() const { return "not a name this version knows"; }
};

struct ListCodec {
  std::string write(const std::vector<std::string>& names) const {
    std::string text;
    for (const std::string& n : names) text += (text.empty() ? "" : ",") + n;
    return text;
  }
  std::optional<std::vector<std::string>> read(std::string_view text) const {
    std::vector<std::string> names;
    if (text.empty()) return names;
    for (;;) {
      const std::size_t comma = text.find(',');
      names.emplace_back(text.substr(0, comma));
      if (comma == std::string_view::npos) return names;
      text = text.substr(comma + 1);
    }
  }
  std::string_view what() const { return "not a list"; }
};

template <typename Int>
constexpr IntegerCodec<Int> kInteger{};
constexpr TextCodec kText{};
constexpr FlagCodec kFlag{};
constexpr ListCodec kList{};
constexpr NumberCodec kShortest{Digits::kShortest};
constexpr NumberCodec kSixDigits{Digits::kSignificant6};
constexpr NumberCodec kNineDigits{Digits::kSignificant9};
constexpr NumberCodec kFourDecimals{Digits::kFixed4};

// Every key, its field and how it is written: the one list both directions walk. `Options` is
// RecordedOptions (reading) or const RecordedOptions (writing).
template <typename Options, typename Visitor>
void visit_entries(Options& o, Visitor& v) {
  v.entry("attribution.default_method", o.attribution.default_method,
          NameCodec<AttributionMethod>{attribution_method_from_string});
  v.entry("attribution.window", o.attribution.window,
          NameCodec<AttributionWindow>{attribution_window_from_string});
  v.entry("attribution.window_begin_ns", o.attribution.window_begin_ns, kInteger<TimeNs>);
  v.entry("attribution.window_end_ns", o.attribution.window_end_ns, kInteger<TimeNs>);
  v.entry("auto_window.max_cv", o.auto_window.max_cv, kShortest);
  v.entry("auto_window.window_ns", o.auto_window.window_ns, kInteger<TimeNs>);
  v.entry("auto_window.cooldown_ns", o.auto_window.cooldown_ns, kInteger<TimeNs>);
  v.entry("capi.record_spans", o.capi.record_spans, kFlag);
  v.entry("cluster.launcher", o.cluster.launcher, kText);
  v.entry("cluster.local_rank", o.cluster.local_rank, kInteger<int>);
  v.entry("cluster.node_rank", o.cluster.node_rank, kInteger<int>);
  v.entry("epochs.first_begin", o.epochs.first_begin,
          NameCodec<EpochStart>{epoch_start_from_string});
  v.entry("epochs.total", o.epochs.total, kInteger<int>);
  v.entry("gated.preset", o.gated.preset, kText);
  v.entry("idle.begin_ns", o.idle.begin_ns, kInteger<TimeNs>);
  v.entry("idle.end_ns", o.idle.end_ns, kInteger<TimeNs>);
  v.entry("merge.ranks", o.merge.ranks, kInteger<std::uint64_t>);
  v.family("merge.origin.", o.merge.origin, kText);
  v.family("merge.offset_ns.", o.merge.offset_ns, kInteger<TimeNs>);
  v.family("merge.rank_energy_j.", o.merge.rank_energy_j, kNineDigits);
  v.family("merge.host_energy_j.", o.merge.host_energy_j, kNineDigits);
  v.family("merge.steps.", o.merge.steps, kInteger<std::uint64_t>);
  v.family("merge.step_time_s.", o.merge.step_time_s, kNineDigits);
  v.family("merge.communication_time_s.", o.merge.communication_time_s, kNineDigits);
  v.family("merge.communication_energy_j.", o.merge.communication_energy_j, kNineDigits);
  v.entry("process.observed", o.process.observed, kText);
  v.entry("process.static_share", o.process.static_share,
          NameCodec<StaticShare>{static_share_from_string});
  v.entry("run.idle_s", o.run.idle_s, kShortest);
  v.entry("run.interval_ms", o.run.interval_ms, kShortest);
  v.entry("run.source", o.run.source, kText);
  v.entry("run.sysfs_root", o.run.sysfs_root, kText);
  v.family("sampler.period_ns.", o.sampler.period_ns, kInteger<TimeNs>);
  v.entry("sampler.thread_cpu_ns", o.sampler.thread_cpu_ns, kInteger<TimeNs>);
  v.entry("sampler.wall_ns", o.sampler.wall_ns, kInteger<TimeNs>);
  v.entry("sampler.polls", o.sampler.polls, kInteger<std::uint64_t>);
  v.entry("sampler.cpu_percent_of_one_core", o.sampler.cpu_percent_of_one_core, kFourDecimals);
  v.entry("sampler.memory_limit_bytes", o.sampler.memory_limit_bytes, kInteger<std::uint64_t>);
  v.entry("sources", o.sources.names, kList);
  v.family("sources.unavailable.", o.sources.unavailable, kText);
  v.family("setting.", o.settings, kText);
  v.entry("torch.steps", o.torch.steps, kInteger<int>);
  v.entry("torch.warmup", o.torch.warmup, kInteger<int>);
  v.entry("torch.samples_per_step", o.torch.samples_per_step, kInteger<std::int64_t>);
  v.entry("torch.parameters", o.torch.parameters, kInteger<std::int64_t>);
  v.entry("torch.calibration", o.torch.calibration, kText);
  v.entry("trace.path", o.trace.path, kText);
  v.entry("trace.format", o.trace.format, NameCodec<TraceFormat>{trace_format_from_string});
  v.entry("trace.clock_mapping", o.trace.clock_mapping, kText);
  v.entry("trace.offset_ns", o.trace.offset_ns, kInteger<TimeNs>);
  v.entry("trace.backward_s", o.trace.backward_s, kNineDigits);
  v.entry("trace.backward_linked_share", o.trace.backward_linked_share, kSixDigits);
  v.entry("trace.backward_module_share", o.trace.backward_module_share, kSixDigits);
}

class EntryWriter {
 public:
  explicit EntryWriter(std::map<std::string, std::string>& entries) : entries_(entries) {}

  template <typename T, typename Codec>
  void entry(const char* key, const std::optional<T>& field, const Codec& codec) {
    if (field) entries_[key] = codec.write(*field);
  }
  template <typename T, typename Codec>
  void family(std::string_view prefix, const std::map<std::string, T>& field, const Codec& codec) {
    for (const auto& [name, value] : field)
      entries_[std::string(prefix) + name] = codec.write(value);
  }

 private:
  std::map<std::string, std::string>& entries_;
};

// Takes each known key out of the entries; what is left is unknown.
class EntryReader {
 public:
  EntryReader(std::map<std::string, std::string> entries, std::string_view origin)
      : remaining_(std::move(entries)), origin_(origin) {}

  template <typename T, typename Codec>
  void entry(const char* key, std::optional<T>& field, const Codec& codec) {
    const auto it = remaining_.find(key);
    if (it == remaining_.end()) return;
    field = read(it->first, it->second, codec);
    remaining_.erase(it);
  }
  template <typename T, typename Codec>
  void family(std::string_view prefix, std::map<std::string, T>& field, const Codec& codec) {
    auto it = remaining_.lower_bound(std::string(prefix));
    while (it != remaining_.end() && it->first.starts_with(prefix)) {
      if (std::optional<T> value = read(it->first, it->second, codec))
        field.emplace(it->first.substr(prefix.size()), std::move(*value));
      it = remaining_.erase(it);
    }
  }

  std::map<std::string, std::string> take_unknown() { return std::move(remaining_); }
  const std::optional<Error>& error() const { return error_; }

 private:
  template <typename Codec>
  auto read(const std::string& key, const std::string& text, const Codec& codec) {
    auto value = codec.read(text);
    if (!value && !error_)
      error_ = invalid_input(origin_, "meta.options." + key, text, codec.what());
    return value;
  }

  std::map<std::string, std::string> remaining_;
  std::string_view origin_;
  std::optional<Error> error_;
};

}  // namespace

std::map<std::string, std::string> recorded_option_entries(const RecordedOptions& options) {
  // Known keys are written after the unknown ones, so that a field always wins over stray text.
  std::map<std::string, std::string> entries = options.unknown;
  EntryWriter writer(entries);
  visit_entries(options, writer);
  return entries;
}

Result<RecordedOptions> recorded_options_from_entries(
    const std::map<std::string, std::string>& entries, std::string_view origin) {
  RecordedOptions options;
  EntryReader reader(entries, origin);
  visit_entries(options, reader);
  if (reader.error()) return *reader.error();
  options.unknown = reader.take_unknown();
  return options;
}

}  // namespace jouleprof
