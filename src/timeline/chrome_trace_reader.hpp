// Reading Chrome trace JSON event by event, streamed: the text comes in chunks, a scanner finds
// where each event of traceEvents begins and ends, and simdjson On-Demand parses that one event in
// place. Neither the whole text nor a parsed document is ever held: memory is a chunk (or the
// largest event) plus what the sink keeps. The importer decides what each event means; this file
// only reads fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "jouleprof/clock.hpp"
#include "jouleprof/result.hpp"
#include "timeline/trace_file.hpp"

namespace jouleprof::timeline {

// The fields of one trace event that jouleprof uses. Views point into the trace text or the
// parser's string buffer and stay valid until the reader returns.
struct ChromeEvent {
  std::size_t index = 0;  // position in traceEvents, for error messages
  char phase = 0;         // "ph": X, B, E, i, I, M, s, t, f, C, ...
  std::string_view category;
  std::string_view name;
  std::string_view pid;  // raw JSON tokens: 544 or "Spans"
  std::string_view tid;
  std::string_view ts_token;   // raw JSON number (microseconds); empty when absent
  std::string_view dur_token;  // likewise
  std::string_view id_token;   // flow events: "id"
  std::string_view scope;      // instant events: "s" (g, p, t)
  // args
  std::int64_t correlation = -1;
  std::string_view arg_name;        // args.name: TensorFlow's node name; M events: the name given
  std::string_view arg_op;          // args.op (TensorFlow's op type)
  std::string_view arg_labels;      // args.labels (Kineto process_labels)
  std::string_view arg_bytes;       // args.bytes, raw
  std::string_view arg_input_dims;  // args["Input Dims"], raw JSON
  std::int64_t arg_device = -1;
  std::int64_t arg_stream = -1;
  // Kineto: "Sequence number", the autograd node's number (forward ops that feed autograd and
  // the backward nodes they created); -1 when absent.
  std::int64_t sequence_number = -1;
  bool has_sequence_number = false;
  std::int64_t fwd_thread_id = 0;  // Kineto: nonzero on backward ops (the forward thread's id)
};

// Top-level facts of the file, gathered while reading.
struct ChromeTraceHeader {
  std::optional<TimeNs> base_time_ns;  // Kineto's baseTimeNanoseconds
  bool has_device_properties = false;  // Kineto writes deviceProperties
  bool is_span_dump = false;           // "format": "jouleprof-spans": stop, read it as a dump
};

class ChromeEventSink {
 public:
  virtual ~ChromeEventSink() = default;
  virtual Status on_event(const ChromeEvent& event) = 0;
};

// Reads the text (an object with traceEvents, or a bare array of events) and hands every event to
// `sink` as it is read. Errors name `origin`, the event index and the field.
Status read_chrome_trace(TextSource& text, std::string_view origin, ChromeTraceHeader& header,
                         ChromeEventSink& sink);

}  // namespace jouleprof::timeline
