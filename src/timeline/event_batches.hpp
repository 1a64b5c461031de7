// How the Chrome-trace reader hands event texts from the thread that scans the text (reading,
// gunzipping, finding where each event ends) to the thread that parses them and builds spans: in
// batches of about a megabyte, through a queue of two, so that the two halves of the import run
// side by side and memory stays a few batches whatever the trace's size.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof::timeline {

// Events' texts back to back, followed by `padding` readable bytes (simdjson reads past the end).
class EventBatch {
 public:
  static constexpr std::size_t kFullBytes = std::size_t{1} << 20;

  void append(std::string_view event_text);
  // Pads the text; no event may be appended after.
  void seal(std::size_t padding);
  void clear();

  std::size_t events() const { return ends_.size(); }
  std::string_view event(std::size_t k) const {
    const std::size_t begin = k == 0 ? 0 : ends_[k - 1];
    return std::string_view(text_).substr(begin, ends_[k] - begin);
  }
  // Bytes readable from the event's first byte: the event, the ones after it and the padding.
  std::size_t readable_from(std::size_t k) const {
    return text_.size() - (k == 0 ? 0 : ends_[k - 1]);
  }
  bool full() const { return text_.size() >= kFullBytes; }

  std::size_t first_index = 0;  // the first event's position in traceEvents

 private:
  std::string text_;
  std::vector<std::size_t> ends_;
};

// Where the scanner puts each batch it fills.
class EventBatchSink {
 public:
  virtual ~EventBatchSink() = default;
  // Takes the batch's content (leaving `batch` empty, ready to fill again). An error stops the
  // scan: the parsing side failed, and its error is the one to report.
  virtual Status take(EventBatch& batch) = 0;
};

// The handoff between the two threads: at most `capacity` filled batches wait; emptied ones come
// back for reuse.
class EventBatchQueue final : public EventBatchSink {
 public:
  explicit EventBatchQueue(std::size_t capacity) : capacity_(capacity) {}

  // Scanning side. Blocks while the queue is full.
  Status take(EventBatch& batch) override;
  // Scanning side, once: how the scan ended (no batch follows).
  void finish(Status status);

  // Parsing side: the next batch into `batch` (whose previous content is recycled); false once
  // the scan has ended and every batch was handed out.
  bool next(EventBatch& batch);
  // Parsing side: stop the scan (take() then fails) — the parser met an error.
  void cancel();
  // After next() returned false: how the scan ended.
  const Status& scan_status() const { return scan_status_; }

 private:
  const std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<EventBatch> filled_;
  std::vector<EventBatch> spare_;
  bool finished_ = false;
  bool cancelled_ = false;
  Status scan_status_ = Status::Ok();
};

}  // namespace jouleprof::timeline
