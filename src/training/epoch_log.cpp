#include "training/epoch_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <optional>

#include "core/csv.hpp"
#include "core/line_reader.hpp"
#include "core/parse.hpp"
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

Result<EpochLog> epochs_from_boundaries(std::vector<EpochBoundary> boundaries,
                                        std::optional<TimeNs> training_start_ns,
                                        TimeNs run_begin_ns, EpochStart training_start) {
  // An end and a begin at the same instant: the end closes the epoch first.
  std::stable_sort(
      boundaries.begin(), boundaries.end(), [](const EpochBoundary& a, const EpochBoundary& b) {
        if (a.t_ns != b.t_ns) return a.t_ns < b.t_ns;
        return a.kind == EpochBoundary::Kind::kEnd && b.kind == EpochBoundary::Kind::kBegin;
      });
  EpochLog log;
  log.origin = EpochOrigin::kMarks;
  std::optional<TimeNs> pending_begin;
  bool any_begin = false;
  for (const EpochBoundary& b : boundaries) {
    if (b.t_ns < run_begin_ns) continue;
    if (b.kind == EpochBoundary::Kind::kBegin) {
      if (!pending_begin) pending_begin = b.t_ns;
      continue;
    }
    const TimeNs previous_end = log.end_ns.empty() ? run_begin_ns : log.end_ns.back();
    if (b.t_ns <= previous_end && !log.end_ns.empty()) continue;  // the same end twice
    TimeNs begin = previous_end;
    if (pending_begin && *pending_begin < b.t_ns) {
      begin = *pending_begin;
      any_begin = true;
      if (log.end_ns.empty()) log.first_start = EpochStart::kBeginMark;
    } else if (log.end_ns.empty()) {
      const bool started =
          training_start_ns && *training_start_ns >= run_begin_ns && *training_start_ns < b.t_ns;
      begin = started ? *training_start_ns : run_begin_ns;
      log.first_start = started ? training_start : EpochStart::kRunStart;
    }
    if (log.end_ns.empty()) log.begin_ns = begin;
    log.epoch_begins_ns.push_back(begin);
    log.end_ns.push_back(b.t_ns);
    pending_begin.reset();
  }
  if (log.end_ns.empty()) {
    return invalid_input("timeline", "marks", std::string(kEpochEndMarkName),
                         "no epoch_end mark after the training began");
  }
  log.note =
      fmt::format("{} epochs from {} marks; epoch 1 from {}", log.size(),
                  any_begin ? "epoch_begin/epoch_end" : "epoch_end", to_string(log.first_start));
  return log;
}

Result<EpochLog> epochs_from_marks(const Timeline& timeline, TimeNs run_begin_ns) {
  std::vector<EpochBoundary> boundaries;
  for (const Mark& mark : timeline.marks()) {
    const std::string_view name = timeline.name(mark.name);
    if (name == kEpochBeginMarkName) boundaries.push_back({EpochBoundary::Kind::kBegin, mark.t_ns});
    if (name == kEpochEndMarkName) boundaries.push_back({EpochBoundary::Kind::kEnd, mark.t_ns});
  }
  std::optional<TimeNs> train_begin;
  for (const Mark& mark : timeline.marks()) {
    if (timeline.name(mark.name) == kTrainBeginMarkName && mark.t_ns >= run_begin_ns &&
        (!train_begin || mark.t_ns < *train_begin))
      train_begin = mark.t_ns;
  }
  if (train_begin) {
    return epochs_from_boundaries(std::move(boundaries), train_begin, run_begin_ns,
                                  EpochStart::kTrainBegin);
  }
  std::optional<TimeNs> first_step;
  for (const Span& s : timeline.spans()) {
    if (s.category == SpanCategory::kStep && (!first_step || s.begin_ns < *first_step))
      first_step = s.begin_ns;
  }
  return epochs_from_boundaries(std::move(boundaries), first_step, run_begin_ns);
}

Result<EpochLog> read_epochs_csv(const std::string& path, TimeNs training_begin_ns) {
  JP_TRY(LineReader lines, LineReader::open(path, "file"));
  EpochLog log;
  log.begin_ns = training_begin_ns;
  log.origin = EpochOrigin::kCsv;
  bool header = true;
  // Rows are numbered from 1, as jouleprof prints epochs, or from 0: the first row says which.
  std::int64_t first_number = 1;
  JP_RETURN_IF_ERROR(for_each_line(lines, [&](const TextLine& line) -> Status {
    if (trim_ascii_space(line.text).empty()) return Status::Ok();
    const auto fields = split_fields(line.text, ',');
    if (header) {
      header = false;
      if (fields.size() < 2 || fields[0] != "epoch" || fields[1] != "end_s") {
        return invalid_input(trace_text::where(path, line.number), "header", line.text,
                             "expected 'epoch,end_s'");
      }
      return Status::Ok();
    }
    const std::string where = trace_text::where(path, line.number);
    if (fields.size() < 2) return invalid_input(where, "fields", line.text, "expected epoch,end_s");
    const auto epoch = to_int64(fields[0]);
    if (log.end_ns.empty() && epoch == 0) first_number = 0;
    const std::int64_t expected = first_number + static_cast<std::int64_t>(log.size());
    if (epoch != expected) {
      return invalid_input(
          where, "epoch", fields[0],
          fmt::format("expected epoch {} (rows in order, numbered from 1 or from 0)", expected));
    }
    const auto end_s = to_number(fields[1]);
    const std::optional<TimeNs> offset_ns = end_s ? checked_s_to_ns(*end_s) : std::nullopt;
    const TimeNs end_ns = offset_ns ? training_begin_ns + *offset_ns : 0;
    if (!offset_ns || end_ns <= (log.end_ns.empty() ? training_begin_ns : log.end_ns.back())) {
      return invalid_input(where, "end_s", fields[1],
                           "must be a number of seconds after the previous epoch's end");
    }
    log.end_ns.push_back(end_ns);
    return Status::Ok();
  }));
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
