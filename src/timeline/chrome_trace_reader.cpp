#include "timeline/chrome_trace_reader.hpp"

#include <fmt/format.h>
#include <simdjson.h>

namespace jouleprof::timeline {
namespace {

namespace ondemand = simdjson::ondemand;

Error json_error(std::string_view origin, std::string_view where, simdjson::error_code code) {
  return Error(ErrorCode::kInvalidInput, fmt::format("{}: {}: not valid JSON ({})", origin, where,
                                                     simdjson::error_message(code)));
}

// Evaluates a simdjson call; on failure returns a JSON error naming `where`.
#define JP_JSON(expr, where)                                                           \
  do {                                                                                 \
    if (const simdjson::error_code jp_code_ = (expr); jp_code_ != simdjson::SUCCESS) { \
      return json_error(origin, where, jp_code_);                                      \
    }                                                                                  \
  } while (false)

// Optional fields: a value of an unexpected type leaves the field unset.
void keep_if_present(simdjson::error_code /*unset when absent or of another type*/) {}

std::string_view trimmed(std::string_view token) {
  while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                            token.back() == '\t')) {
    token.remove_suffix(1);
  }
  return token;
}

// Optional args: a value of an unexpected type is ignored, not an error.
void read_args(ondemand::object args, ChromeEvent& event) {
  for (auto field_result : args) {
    ondemand::field field;
    if (std::move(field_result).get(field) != simdjson::SUCCESS) return;
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return;
    ondemand::value value = field.value();
    if (key == "correlation") {
      std::int64_t v = 0;
      if (value.get_int64().get(v) == simdjson::SUCCESS) event.correlation = v;
    } else if (key == "name") {
      keep_if_present(value.get_string().get(event.arg_name));
    } else if (key == "op") {
      keep_if_present(value.get_string().get(event.arg_op));
    } else if (key == "labels") {
      keep_if_present(value.get_string().get(event.arg_labels));
    } else if (key == "bytes") {
      event.arg_bytes = trimmed(value.raw_json_token());
    } else if (key == "Input Dims") {
      ondemand::array dims;
      if (value.get_array().get(dims) == simdjson::SUCCESS)
        keep_if_present(dims.raw_json().get(event.arg_input_dims));
    } else if (key == "device") {
      keep_if_present(value.get_int64().get(event.arg_device));
    } else if (key == "stream") {
      keep_if_present(value.get_int64().get(event.arg_stream));
    } else if (key == "Sequence number") {
      event.has_sequence_number = true;
      keep_if_present(value.get_int64().get(event.sequence_number));
    } else if (key == "Fwd thread id") {
      keep_if_present(value.get_int64().get(event.fwd_thread_id));
    }
  }
}

// "traceEvents[12].dur". Used inside JP_JSON's error branch only: formatted when reporting.
std::string event_field(std::size_t index, std::string_view field) {
  return fmt::format("traceEvents[{}]{}", index, field);
}

Status read_event(ondemand::value value, ChromeEvent& event, std::string_view origin) {
  const std::size_t index = event.index;
  ondemand::object object;
  if (value.get_object().get(object) != simdjson::SUCCESS) {
    return Error(ErrorCode::kInvalidInput,
                 fmt::format("{}: {}: is not a JSON object", origin, event_field(index, "")));
  }
  for (auto field_result : object) {
    ondemand::field field;
    JP_JSON(std::move(field_result).get(field), event_field(index, ""));
    std::string_view key;
    JP_JSON(field.unescaped_key().get(key), event_field(index, ""));
    ondemand::value v = field.value();
    if (key == "ph") {
      std::string_view phase;
      JP_JSON(v.get_string().get(phase), event_field(index, ".ph"));
      event.phase = phase.empty() ? '\0' : phase[0];
    } else if (key == "cat") {
      JP_JSON(v.get_string().get(event.category), event_field(index, ".cat"));
    } else if (key == "name") {
      JP_JSON(v.get_string().get(event.name), event_field(index, ".name"));
    } else if (key == "pid") {
      event.pid = trimmed(v.raw_json_token());
    } else if (key == "tid") {
      event.tid = trimmed(v.raw_json_token());
    } else if (key == "ts") {
      event.ts_token = trimmed(v.raw_json_token());
    } else if (key == "dur") {
      event.dur_token = trimmed(v.raw_json_token());
    } else if (key == "id") {
      event.id_token = trimmed(v.raw_json_token());
    } else if (key == "s") {
      keep_if_present(v.get_string().get(event.scope));
    } else if (key == "args") {
      ondemand::object args;
      if (v.get_object().get(args) == simdjson::SUCCESS) read_args(args, event);
    }
  }
  return Status::Ok();
}

Status read_events(ondemand::array events, std::string_view origin, ChromeEventSink& sink) {
  std::size_t index = 0;
  for (auto element : events) {
    ondemand::value value;
    JP_JSON(std::move(element).get(value), event_field(index, ""));
    ChromeEvent event;
    event.index = index;
    JP_RETURN_IF_ERROR(read_event(value, event, origin));
    JP_RETURN_IF_ERROR(sink.on_event(event));
    ++index;
  }
  return Status::Ok();
}

}  // namespace

Status read_chrome_trace(const TraceText& text, std::string_view origin, ChromeTraceHeader& header,
                         ChromeEventSink& sink) {
  ondemand::parser parser;
  ondemand::document doc;
  JP_JSON(parser.iterate(text.data(), text.size(), text.capacity()).get(doc), "(document)");
  ondemand::json_type type;
  JP_JSON(doc.type().get(type), "(document)");
  if (type == ondemand::json_type::array) {
    ondemand::array events;
    JP_JSON(doc.get_array().get(events), "(document)");
    return read_events(events, origin, sink);
  }
  if (type != ondemand::json_type::object) {
    return Error(
        ErrorCode::kInvalidInput,
        fmt::format("{}: not a trace: the document is neither an object nor an array", origin));
  }
  ondemand::object root;
  JP_JSON(doc.get_object().get(root), "(document)");
  bool saw_events = false;
  for (auto field_result : root) {
    ondemand::field field;
    JP_JSON(std::move(field_result).get(field), "(document)");
    std::string_view key;
    JP_JSON(field.unescaped_key().get(key), "(document)");
    ondemand::value value = field.value();
    if (key == "traceEvents") {
      ondemand::array events;
      if (value.get_array().get(events) != simdjson::SUCCESS) {
        return Error(ErrorCode::kInvalidInput,
                     fmt::format("{}: traceEvents is not an array", origin));
      }
      JP_RETURN_IF_ERROR(read_events(events, origin, sink));
      saw_events = true;
    } else if (key == "baseTimeNanoseconds") {
      std::int64_t base = 0;
      JP_JSON(value.get_int64().get(base), "baseTimeNanoseconds");
      header.base_time_ns = base;
    } else if (key == "deviceProperties") {
      header.has_device_properties = true;
    } else if (key == "format") {
      std::string_view format;
      if (value.get_string().get(format) == simdjson::SUCCESS && format == "jouleprof-spans") {
        header.is_span_dump = true;
        return Status::Ok();
      }
    }
  }
  if (!saw_events) {
    return Error(ErrorCode::kInvalidInput,
                 fmt::format("{}: not a Chrome trace: no traceEvents array", origin));
  }
  return Status::Ok();
}

}  // namespace jouleprof::timeline
