// The recording section of the C API: thin, noexcept wrappers over jouleprof::Recorder.
#include <unistd.h>

#include <exception>
#include <string>

#include "capi/last_error.hpp"
#include "jouleprof/jouleprof.h"
#include "jouleprof/recorder.hpp"
#include "jouleprof/span_dump.hpp"
#include "jouleprof/trace_import.hpp"
#include "timeline/spans_file_hook.hpp"

namespace {

using jouleprof::Pass;
using jouleprof::SpanCategory;

// Out-of-range values from C become the neutral ones instead of invalid enum values.
SpanCategory category_from_c(int category) noexcept {
  return category >= JP_CATEGORY_REGION && category <= JP_CATEGORY_MEMORY
             ? static_cast<SpanCategory>(category)
             : SpanCategory::kRegion;
}

Pass pass_from_c(int pass) noexcept {
  return pass >= JP_PASS_NONE && pass <= JP_PASS_COMMUNICATION ? static_cast<Pass>(pass)
                                                               : Pass::kNone;
}

// Imported spans keep their tracks, named apart from the recorder's own thread tracks.
constexpr std::string_view kImportedTrackPrefix = "trace: ";

jouleprof::Status add_trace_to_recorder(const char* trace_path) {
  JP_TRY(const jouleprof::TraceImport imported, jouleprof::import_trace(trace_path));
  if (!imported.clock_established) {
    return jouleprof::invalid_input(trace_path, "clock", imported.clock_mapping,
                                    "its spans cannot be placed on CLOCK_MONOTONIC");
  }
  jouleprof::Recorder& recorder = jouleprof::Recorder::global();
  const jouleprof::Timeline& t = imported.timeline;
  std::vector<jouleprof::NameId> names(t.names().size());
  for (std::uint32_t i = 0; i < names.size(); ++i) names[i] = jouleprof::intern_name(t.name(i));
  // Spans go in timeline order: a parent before its children, also when both have the same
  // times (a backward node's module span), which containment then keeps in that order.
  for (const jouleprof::Span& s : t.spans()) {
    const jouleprof::Track& track = t.tracks()[s.track];
    recorder.add_external_span(track.kind, std::string(kImportedTrackPrefix) + track.name,
                               track.device, names[s.name], s.begin_ns, s.end_ns, s.category,
                               s.pass);
  }
  return jouleprof::Status::Ok();
}

}  // namespace

extern "C" {

jp_name_id jp_intern(const char* name) {
  if (name == nullptr) return JP_INVALID_NAME;
  try {
    return jouleprof::intern_name(name);
  } catch (...) {
    jouleprof::capi::fail_from_exception(std::current_exception());
    return JP_INVALID_NAME;
  }
}

void jp_begin(jp_name_id name, int category) {
  jouleprof::begin(name, category_from_c(category), Pass::kNone);
}

void jp_begin_pass(jp_name_id name, int category, int pass) {
  jouleprof::begin(name, category_from_c(category), pass_from_c(pass));
}

void jp_end(void) { jouleprof::end(); }

void jp_mark(jp_name_id name) { jouleprof::mark(name); }

void jp_epoch_begin(void) { jouleprof::epoch_begin(); }

void jp_epoch_end(void) { jouleprof::epoch_end(); }

void jp_begin_named(const char* name) {
  if (!jouleprof::Recorder::global().enabled()) return;
  // An unusable name still begins a span, so that the caller's jp_end stays balanced; it shows
  // up as an unknown name.
  jouleprof::begin(jp_intern(name), SpanCategory::kRegion, Pass::kNone);
}

jp_status jp_annotate(const char* key, const char* value) {
  if (key == nullptr || value == nullptr) {
    return jouleprof::capi::fail(jouleprof::ErrorCode::kInvalidInput,
                                 "jp_annotate: key and value must not be NULL");
  }
  try {
    jouleprof::annotate(key, value);
    return JP_OK;
  } catch (...) {
    return jouleprof::capi::fail_from_exception(std::current_exception());
  }
}

void jp_recorder_start(void) {
  try {
    jouleprof::Recorder::global().start();
  } catch (...) {
    jouleprof::capi::fail_from_exception(std::current_exception());
  }
}

void jp_recorder_stop(void) {
  try {
    jouleprof::Recorder::global().stop();
  } catch (...) {
    jouleprof::capi::fail_from_exception(std::current_exception());
  }
}

int jp_recorder_enabled(void) { return jouleprof::Recorder::global().enabled() ? 1 : 0; }

uint64_t jp_recorder_dropped(void) {
  try {
    return jouleprof::Recorder::global().dropped();
  } catch (...) {
    jouleprof::capi::fail_from_exception(std::current_exception());
    return 0;
  }
}

jp_status jp_recorder_write_spans(const char* path) {
  if (path == nullptr) {
    return jouleprof::capi::fail(jouleprof::ErrorCode::kInvalidInput,
                                 "jp_recorder_write_spans: path must not be NULL");
  }
  try {
    jouleprof::Recorder& recorder = jouleprof::Recorder::global();
    jouleprof::SpanDump dump;
    dump.timeline = recorder.collect();
    dump.dropped = recorder.dropped();
    dump.recorder_clock = std::string(recorder.clock_source());
    dump.pid = static_cast<std::int64_t>(getpid());
    const jouleprof::Status written = jouleprof::write_span_dump(dump, path);
    return written ? JP_OK : jouleprof::capi::fail(written.error());
  } catch (...) {
    return jouleprof::capi::fail_from_exception(std::current_exception());
  }
}

jp_status jp_recorder_add_trace(const char* trace_path) {
  if (trace_path == nullptr) {
    return jouleprof::capi::fail(jouleprof::ErrorCode::kInvalidInput,
                                 "jp_recorder_add_trace: trace_path must not be NULL");
  }
  try {
    const jouleprof::Status added = add_trace_to_recorder(trace_path);
    return added ? JP_OK : jouleprof::capi::fail(added.error());
  } catch (...) {
    return jouleprof::capi::fail_from_exception(std::current_exception());
  }
}

jp_status jp_recorder_flush_spans_file(void) {
  try {
    const jouleprof::Status written = jouleprof::timeline::write_spans_file_now();
    return written ? JP_OK : jouleprof::capi::fail(written.error());
  } catch (...) {
    return jouleprof::capi::fail_from_exception(std::current_exception());
  }
}

}  // extern "C"
