#include "timeline/chrome_trace_reader.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <array>
#include <bitset>
#include <cstring>
#include <new>
#include <string>
#include <system_error>
#include <thread>

#include "core/json_file.hpp"
#include "core/parse.hpp"
#include "timeline/event_batches.hpp"

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

// The fields of an event and of its args are each taken at most once: of a key given twice,
// simdjson hands over both, and keeping the last would be the silent choice every JSON reader
// refuses (core/unique_keys_parser.hpp). Keys outside `keys` are skipped unchecked.
template <std::size_t N>
class KeysOnce {
 public:
  explicit KeysOnce(const std::array<std::string_view, N>& keys) : keys_(keys) {}
  static constexpr std::size_t kUnread = N;
  static constexpr std::size_t kGivenTwice = N + 1;

  // The index of `key` in `keys`; kUnread when it is none of them, kGivenTwice when it was given
  // before.
  std::size_t take(std::string_view key) {
    for (std::size_t i = 0; i < N; ++i) {
      if (keys_[i] != key) continue;
      if (seen_[i]) return kGivenTwice;
      seen_.set(i);
      return i;
    }
    return kUnread;
  }
  bool first_time(std::string_view key) { return take(key) != kGivenTwice; }

 private:
  const std::array<std::string_view, N>& keys_;
  std::bitset<N> seen_;
};

// An event's keys, in the order of EventKey: the key is looked up once, then dispatched on.
constexpr std::array<std::string_view, 10> kEventKeys{"ph", "cat", "name", "pid", "tid",
                                                      "ts", "dur", "id",   "s",   "args"};
enum EventKey : std::size_t { kPh, kCat, kName, kPid, kTid, kTs, kDur, kId, kScope, kArgs };
constexpr std::array<std::string_view, 10> kArgsKeys{
    "correlation", "name",   "op",     "labels",          "bytes",
    "Input Dims",  "device", "stream", "Sequence number", "Fwd thread id"};

constexpr std::array<std::string_view, 4> kHeaderKeys{"traceEvents", "baseTimeNanoseconds",
                                                      "deviceProperties", "format"};

// Optional fields: a value of an unexpected type leaves the field unset.
void keep_if_present(simdjson::error_code /*unset when absent or of another type*/) {}

// "traceEvents[12].dur". Used inside JP_JSON's error branch only: formatted when reporting.
std::string event_field(std::size_t index, std::string_view field) {
  return fmt::format("traceEvents[{}]{}", index, field);
}

// Optional args: a value of an unexpected type is ignored, not an error; a key given twice is.
Status read_args(ondemand::object args, ChromeEvent& event, std::string_view origin) {
  KeysOnce once(kArgsKeys);
  for (auto field_result : args) {
    ondemand::field field;
    if (std::move(field_result).get(field) != simdjson::SUCCESS) return Status::Ok();
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return Status::Ok();
    if (!once.first_time(key)) {
      return repeated_key_error(origin, event_field(event.index, ".args"), key);
    }
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
      event.arg_bytes = trim_ascii_space(value.raw_json_token());
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
  return Status::Ok();
}

Status read_event(ondemand::object object, ChromeEvent& event, std::string_view origin) {
  const std::size_t index = event.index;
  KeysOnce once(kEventKeys);
  for (auto field_result : object) {
    ondemand::field field;
    JP_JSON(std::move(field_result).get(field), event_field(index, ""));
    std::string_view key;
    JP_JSON(field.unescaped_key().get(key), event_field(index, ""));
    const std::size_t slot = once.take(key);
    if (slot == KeysOnce<kEventKeys.size()>::kGivenTwice) {
      return repeated_key_error(origin, event_field(index, ""), key);
    }
    ondemand::value v = field.value();
    switch (slot) {
      case kPh: {
        std::string_view phase;
        JP_JSON(v.get_string().get(phase), event_field(index, ".ph"));
        event.phase = phase.empty() ? '\0' : phase[0];
        break;
      }
      case kCat:
        JP_JSON(v.get_string().get(event.category), event_field(index, ".cat"));
        break;
      case kName:
        JP_JSON(v.get_string().get(event.name), event_field(index, ".name"));
        break;
      case kPid:
        event.pid = trim_ascii_space(v.raw_json_token());
        break;
      case kTid:
        event.tid = trim_ascii_space(v.raw_json_token());
        break;
      case kTs:
        event.ts_token = trim_ascii_space(v.raw_json_token());
        break;
      case kDur:
        event.dur_token = trim_ascii_space(v.raw_json_token());
        break;
      case kId:
        event.id_token = trim_ascii_space(v.raw_json_token());
        break;
      case kScope:
        keep_if_present(v.get_string().get(event.scope));
        break;
      case kArgs: {
        ondemand::object args;
        if (v.get_object().get(args) == simdjson::SUCCESS) {
          JP_RETURN_IF_ERROR(read_args(args, event, origin));
        }
        break;
      }
      default:  // a key jouleprof does not read
        break;
    }
  }
  return Status::Ok();
}

// Where in the text, for errors: a fixed name or an event of traceEvents, spelt only when an
// error needs it (formatting "traceEvents[i]" for every event would cost more than its scan).
class Place {
 public:
  Place(const char* name) : name_(name) {}         // NOLINT(google-explicit-constructor)
  Place(const std::string& name) : name_(name) {}  // NOLINT(google-explicit-constructor)
  static Place event(std::size_t index) {
    Place p("");
    p.event_ = index;
    return p;
  }
  std::string spelt() const {
    return event_ == kNoEvent ? std::string(name_) : event_field(event_, "");
  }

 private:
  static constexpr std::size_t kNoEvent = static_cast<std::size_t>(-1);
  std::string_view name_;
  std::size_t event_ = kNoEvent;
};

Error invalid(std::string_view origin, const Place& where, std::string_view why) {
  return Error(ErrorCode::kInvalidInput,
               fmt::format("{}: {}: not valid JSON ({})", origin, where.spelt(), why));
}

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

constexpr std::array<bool, 256> stop_table(std::string_view stops) {
  std::array<bool, 256> table{};
  for (const char c : stops) table[static_cast<unsigned char>(c)] = true;
  return table;
}
// The bytes that change the scanner's state inside a string, and inside an object or array.
constexpr std::array<bool, 256> kStringStops = stop_table("\"\\");
constexpr std::array<bool, 256> kNestedStops = stop_table("\"{}[]");

// The text as a window onto its source: values are found by scanning (strings and nesting
// only) and handed out whole, with simdjson's padding readable after them.
class Scanner {
 public:
  Scanner(TextSource& source, std::string_view origin) : source_(source), origin_(origin) {
    buffer_.resize(kChunk + TraceText::kPadding);
  }

  // The next byte that is not white space, not consumed; '\0' at the end of the text.
  Result<char> peek(const Place& where) {
    for (;;) {
      while (begin_ < end_ && is_space(buffer_[begin_])) ++begin_;
      if (begin_ < end_) return buffer_[begin_];
      JP_TRY(const bool more, refill(where));
      if (!more) return '\0';
    }
  }

  void consume_byte() { ++begin_; }

  // The JSON value at the current position (after white space), consumed. The view stays valid
  // until the next call, and TraceText::kPadding bytes after it are readable.
  Result<std::string_view> value(const Place& where) {
    JP_TRY(const char first, peek(where));
    if (first == '\0') return invalid(origin_, where, "the text ends where a value should begin");
    if (first == ',' || first == ':' || first == ']' || first == '}')
      return invalid(origin_, where, fmt::format("'{}' where a value should begin", first));
    std::size_t k = 0;  // offset from begin_, kept across refills (they move begin_ to 0)
    int depth = 0;
    bool in_string = false;
    for (;;) {
      const char* p = buffer_.data() + begin_;
      const std::size_t available = end_ - begin_;
      bool done = false;
      for (; k < available && !done; ++k) {
        if (in_string || depth > 0) {  // most bytes: skipped by one table look-up each
          const std::array<bool, 256>& stops = in_string ? kStringStops : kNestedStops;
          while (k < available && !stops[static_cast<unsigned char>(p[k])]) ++k;
          if (k == available) break;
        }
        const char c = p[k];
        if (in_string) {
          if (c == '\\') {
            if (k + 1 == available) break;  // the escaped byte is in the next chunk
            ++k;
          } else if (c == '"') {
            in_string = false;
            done = depth == 0;
          }
        } else if (c == '"') {
          in_string = true;
        } else if (c == '{' || c == '[') {
          ++depth;
        } else if (c == '}' || c == ']') {
          if (depth == 0) {  // a scalar ended by its container
            done = true;
            --k;
          } else {
            done = --depth == 0;
          }
        } else if (depth == 0 && (c == ',' || is_space(c))) {
          done = true;
          --k;
        }
      }
      if (done) {
        const std::string_view out(buffer_.data() + begin_, k);
        begin_ += k;
        return out;
      }
      JP_TRY(const bool more, refill(where));
      if (!more) {
        if (depth == 0 && !in_string && k > 0) {  // a scalar at the very end
          const std::string_view out(buffer_.data() + begin_, k);
          begin_ += k;
          return out;
        }
        return invalid(origin_, where, "the text ends inside this value");
      }
    }
  }

 private:
  static constexpr std::size_t kChunk = std::size_t{256} << 10;

  // Keeps the unconsumed bytes, moved to the front, and reads more after them (the buffer grows
  // when one value fills it). False at the end of the text.
  Result<bool> refill(const Place& where) {
    if (ended_) return false;
    const std::size_t kept = end_ - begin_;
    if (begin_ > 0) std::memmove(buffer_.data(), buffer_.data() + begin_, kept);
    begin_ = 0;
    end_ = kept;
    if (buffer_.size() - TraceText::kPadding - end_ < kChunk / 2) {
      try {
        buffer_.resize(2 * buffer_.size());
      } catch (const std::bad_alloc&) {
        return Error(ErrorCode::kIo, fmt::format("{}: {}: one value is too large to hold in memory",
                                                 origin_, where.spelt()));
      }
    }
    JP_TRY(const std::size_t got,
           source_.read(buffer_.data() + end_, buffer_.size() - TraceText::kPadding - end_));
    end_ += got;
    std::memset(buffer_.data() + end_, 0, TraceText::kPadding);
    if (got == 0) ended_ = true;
    return got > 0;
  }

  TextSource& source_;
  std::string_view origin_;
  std::string buffer_;
  std::size_t begin_ = 0;  // the unconsumed bytes are [begin_, end_)
  std::size_t end_ = 0;
  bool ended_ = false;
};

// Expects `c` next; `where` names the place in errors.
Status expect(Scanner& scanner, char c, std::string_view origin, const Place& where) {
  JP_TRY(const char next, scanner.peek(where));
  if (next != c) {
    return invalid(origin, where,
                   next == '\0' ? fmt::format("the text ends where '{}' should follow", c)
                                : fmt::format("'{}' where '{}' should follow", next, c));
  }
  scanner.consume_byte();
  return Status::Ok();
}

// Scanning side: the events' texts into `batch`, handed to `batches` each time it is full.
Status scan_events(Scanner& scanner, std::string_view origin, EventBatch& batch,
                   EventBatchSink& batches) {
  JP_RETURN_IF_ERROR(expect(scanner, '[', origin, "traceEvents"));
  for (std::size_t index = 0;; ++index) {
    JP_TRY(const char next, scanner.peek("traceEvents"));
    if (next == ']' && index == 0) {
      scanner.consume_byte();
      return Status::Ok();
    }
    const Place where = Place::event(index);
    JP_TRY(const std::string_view text, scanner.value(where));
    if (text.front() != '{') {
      return Error(ErrorCode::kInvalidInput,
                   fmt::format("{}: {}: is not a JSON object", origin, where.spelt()));
    }
    batch.append(text);
    if (batch.full()) {
      batch.seal(TraceText::kPadding);
      JP_RETURN_IF_ERROR(batches.take(batch));
      batch.first_index = index + 1;
    }
    JP_TRY(const char after, scanner.peek(where));
    scanner.consume_byte();
    if (after == ']') return Status::Ok();
    if (after != ',') {
      return invalid(origin, where,
                     after == '\0' ? std::string("the text ends inside traceEvents")
                                   : fmt::format("'{}' after the event", after));
    }
  }
}

Status read_events(Scanner& scanner, std::string_view origin, EventBatchSink& batches) {
  EventBatch batch;
  const Status scanned = scan_events(scanner, origin, batch, batches);
  // The events read before a scanning error are parsed first, so that their own errors come
  // first, as they would reading one event after another.
  if (batch.events() > 0) {
    batch.seal(TraceText::kPadding);
    JP_RETURN_IF_ERROR(batches.take(batch));
  }
  return scanned;
}

// Parsing side: each event of a batch through simdjson On-Demand, then to the sink.
class EventParser {
 public:
  EventParser(std::string_view origin, ChromeEventSink& sink) : origin_(origin), sink_(sink) {}

  Status parse(const EventBatch& batch) {
    const std::string_view origin = origin_;  // JP_JSON's errors name it
    for (std::size_t k = 0; k < batch.events(); ++k) {
      const std::string_view text = batch.event(k);
      const Place where = Place::event(batch.first_index + k);
      ondemand::document doc;
      JP_JSON(parser_.iterate(text.data(), text.size(), batch.readable_from(k)).get(doc),
              where.spelt());
      ondemand::object object;
      JP_JSON(doc.get_object().get(object), where.spelt());
      ChromeEvent event;
      event.index = batch.first_index + k;
      JP_RETURN_IF_ERROR(read_event(object, event, origin));
      JP_RETURN_IF_ERROR(sink_.on_event(event));
    }
    return Status::Ok();
  }

 private:
  std::string_view origin_;
  ChromeEventSink& sink_;
  ondemand::parser parser_;
};

// Without a second thread: each batch is parsed as soon as it is full.
class ParseInPlace final : public EventBatchSink {
 public:
  explicit ParseInPlace(EventParser& parser) : parser_(parser) {}
  Status take(EventBatch& batch) override {
    JP_RETURN_IF_ERROR(parser_.parse(batch));
    batch.clear();
    return Status::Ok();
  }

 private:
  EventParser& parser_;
};

// A top-level key: the raw text between its quotes (the keys read here need no unescaping).
Result<std::string_view> read_key(Scanner& scanner, std::string_view origin) {
  JP_TRY(const std::string_view token, scanner.value("(document)"));
  if (token.size() < 2 || token.front() != '"' || token.back() != '"')
    return invalid(origin, "(document)", fmt::format("a key expected, found {:.40}", token));
  return token.substr(1, token.size() - 2);
}

// The whole text: header fields kept in `header`, events handed to `batches`.
Status scan_trace(TextSource& text, std::string_view origin, ChromeTraceHeader& header,
                  EventBatchSink& batches) {
  Scanner scanner(text, origin);
  JP_TRY(const char first, scanner.peek("(document)"));
  if (first == '\0') return invalid(origin, "(document)", "the text is empty");
  if (first == '[') return read_events(scanner, origin, batches);
  if (first != '{') {
    return Error(
        ErrorCode::kInvalidInput,
        fmt::format("{}: not a trace: the document is neither an object nor an array", origin));
  }
  scanner.consume_byte();
  bool saw_events = false;
  KeysOnce once(kHeaderKeys);
  for (bool first_key = true;; first_key = false) {
    JP_TRY(const char next, scanner.peek("(document)"));
    if (next == '}' && first_key) break;
    JP_TRY(const std::string_view key_view, read_key(scanner, origin));
    const std::string key(key_view);  // the next read may move the buffer
    if (!once.first_time(key)) return repeated_key_error(origin, "(document)", key);
    JP_RETURN_IF_ERROR(expect(scanner, ':', origin, "(document)"));
    if (key == "traceEvents") {
      JP_TRY(const char open, scanner.peek("traceEvents"));
      if (open != '[') {
        return Error(ErrorCode::kInvalidInput,
                     fmt::format("{}: traceEvents is not an array", origin));
      }
      JP_RETURN_IF_ERROR(read_events(scanner, origin, batches));
      saw_events = true;
    } else {
      JP_TRY(const std::string_view value, scanner.value(key));
      if (key == "baseTimeNanoseconds") {
        const std::optional<std::int64_t> base = to_int64(value);
        if (!base) {
          return Error(
              ErrorCode::kInvalidInput,
              fmt::format("{}: baseTimeNanoseconds: {:.40} is not an integer", origin, value));
        }
        header.base_time_ns = *base;
      } else if (key == "deviceProperties") {
        header.has_device_properties = true;
      } else if (key == "format" && value == "\"jouleprof-spans\"") {
        header.is_span_dump = true;
        return Status::Ok();
      }
    }
    JP_TRY(const char after, scanner.peek("(document)"));
    scanner.consume_byte();
    if (after == '}') break;
    if (after != ',') {
      return invalid(origin, "(document)",
                     after == '\0' ? std::string("the text ends before the document does")
                                   : fmt::format("'{}' after the value of {}", after, key));
    }
  }
  if (!saw_events) {
    return Error(ErrorCode::kInvalidInput,
                 fmt::format("{}: not a Chrome trace: no traceEvents array", origin));
  }
  return Status::Ok();
}

}  // namespace

Status read_chrome_trace(TextSource& text, std::string_view origin, ChromeTraceHeader& header,
                         ChromeEventSink& sink) {
  EventParser parser(origin, sink);
  EventBatchQueue queue(2);
  std::thread scanning;
  try {
    scanning = std::thread([&] { queue.finish(scan_trace(text, origin, header, queue)); });
  } catch (const std::system_error&) {  // no thread to be had: scan and parse by turns
    ParseInPlace in_place(parser);
    return scan_trace(text, origin, header, in_place);
  }
  Status parsed = Status::Ok();
  EventBatch batch;
  while (queue.next(batch)) {
    parsed = parser.parse(batch);
    if (!parsed.ok()) {
      queue.cancel();
      break;
    }
  }
  scanning.join();
  return parsed.ok() ? queue.scan_status() : parsed;
}

}  // namespace jouleprof::timeline
