// jouleprof's span dump: the spans of one process, as JSON, on the CLOCK_MONOTONIC axis.
//
//   jouleprof::SpanDump dump{jouleprof::Recorder::global().collect()};
//   JP_RETURN_IF_ERROR(jouleprof::write_span_dump(dump, "spans.json"));
//   JP_TRY(auto back, jouleprof::read_span_dump("spans.json"));
//
// A process run with JOULEPROF_SPANS_FILE set writes one at exit (see recorder.hpp). The format,
// versioned, is described in docs/timeline.md; the timeline part has the same layout as a
// profile's "timeline" (docs/schema.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "jouleprof/result.hpp"
#include "jouleprof/timeline.hpp"

namespace jouleprof {

inline constexpr std::string_view kSpanDumpFormat = "jouleprof-spans";
inline constexpr int kSpanDumpVersion = 1;

struct SpanDump {
  Timeline timeline;           // times in CLOCK_MONOTONIC nanoseconds
  std::int64_t pid = 0;        // the process that recorded them; 0 = unknown
  std::uint64_t dropped = 0;   // records lost to full buffers (the dump is incomplete when > 0)
  std::string recorder_clock;  // raw clock the recorder read ("tsc", "clock_gettime"); may be empty
  // The launcher's variables (RANK, SLURM_PROCID, …) as the process saw them, so that its rank
  // can be told after it has ended; nothing else of its environment.
  std::map<std::string, std::string> launcher_environment = {};
};

std::string span_dump_to_json(const SpanDump& dump);
// Writes beside `path` first and renames, so that a reader never sees half a file.
Status write_span_dump(const SpanDump& dump, const std::string& path);

// `origin` names the text in error messages (a path).
Result<SpanDump> span_dump_from_json(std::string_view text, std::string_view origin);
Result<SpanDump> read_span_dump(const std::string& path);

}  // namespace jouleprof
