#include "training/epoch_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <optional>

#include "core/time_range.hpp"
#include "sources/trace_text.hpp"

namespace jouleprof {

std::string_view to_string(EpochOrigin origin) {
  switch (origin) {
    case EpochOrigin::kMarks:
      return "epoch_end marks";
    case EpochOrigin::kCsv:
      return "epochs CSV";
    case EpochOrigin::kEqualSplit:
      return "equal split";
  }
  return "unknown";
}

Result<EpochLog> epochs_from_marks(const Timeline& timeline, TimeNs training_begin_ns) {
  EpochLog log;
  log.begin_ns = training_begin_ns;
  log.origin = EpochOrigin::kMarks;
  for (const Mark& mark : timeline.marks()) {
    if (timeline.name(mark.name) == kEpochEndMarkName && mark.t_ns > training_begin_ns) {
      log.end_ns.push_back(mark.t_ns);
    }
  }
  std::sort(log.end_ns.begin(), log.end_ns.end());
  log.end_ns.erase(std::unique(log.end_ns.begin(), log.end_ns.end()), log.end_ns.end());
  if (log.end_ns.empty()) {
    return invalid_input("timeline", "marks", std::string(kEpochEndMarkName),
                         "no epoch_end mark after the training began");
  }
  log.note = fmt::format("{} epochs from epoch_end marks", log.size());
  return log;
}

Result<EpochLog> read_epochs_csv(const std::string& path, TimeNs training_begin_ns) {
  JP_TRY(std::string content, trace_text::read_all(path));
  EpochLog log;
  log.begin_ns = training_begin_ns;
  log.origin = EpochOrigin::kCsv;
  bool header = true;
  for (const trace_text::Line& line : trace_text::split_lines(content)) {
    if (trace_text::trim(line.text).empty()) continue;
    const auto fields = trace_text::split_fields(line.text, ',');
    if (header) {
      header = false;
      if (fields.size() < 2 || fields[0] != "epoch" || fields[1] != "end_s") {
        return invalid_input(trace_text::where(path, line.number), "header", line.text,
                             "expected 'epoch,end_s'");
      }
      continue;
    }
    const std::string where = trace_text::where(path, line.number);
    if (fields.size() < 2) return invalid_input(where, "fields", line.text, "expected epoch,end_s");
    const auto epoch = trace_text::parse_integer(fields[0]);
    if (!epoch || *epoch != static_cast<std::int64_t>(log.size())) {
      return invalid_input(where, "epoch", fields[0],
                           fmt::format("expected epoch {} (rows in order, from 0)", log.size()));
    }
    const auto end_s = trace_text::parse_number(fields[1]);
    const std::optional<TimeNs> offset_ns = end_s ? checked_s_to_ns(*end_s) : std::nullopt;
    const TimeNs end_ns = offset_ns ? training_begin_ns + *offset_ns : 0;
    if (!offset_ns || end_ns <= (log.end_ns.empty() ? training_begin_ns : log.end_ns.back())) {
      return invalid_input(where, "end_s", fields[1],
                           "must be a number of seconds after the previous epoch's end");
    }
    log.end_ns.push_back(end_ns);
  }
  if (log.end_ns.empty()) return invalid_input(path, "rows", "", "no epochs in the file");
  log.note = fmt::format("{} epoch end times from {}", log.size(), path);
  return log;
}

Result<EpochLog> equal_split_epochs(TimeNs begin_ns, TimeNs end_ns, int epochs) {
  if (epochs < 1) {
    return invalid_input("equal split", "epochs", std::to_string(epochs), "must be at least 1");
  }
  if (end_ns <= begin_ns) {
    return invalid_input("equal split", "duration", std::to_string(end_ns - begin_ns),
                         "the training window must be longer than zero");
  }
  EpochLog log;
  log.begin_ns = begin_ns;
  log.origin = EpochOrigin::kEqualSplit;
  const double length = static_cast<double>(end_ns - begin_ns);
  for (int e = 1; e <= epochs; ++e) {
    log.end_ns.push_back(begin_ns + static_cast<TimeNs>(length * e / epochs));
  }
  log.note = fmt::format(
      "no epoch times known: {:.1f} s split into {} equal epochs of {:.1f} s (an assumption)",
      ns_to_s(end_ns - begin_ns), epochs, ns_to_s(end_ns - begin_ns) / epochs);
  return log;
}

}  // namespace jouleprof
