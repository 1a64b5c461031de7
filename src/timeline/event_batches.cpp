#include "timeline/event_batches.hpp"

#include <utility>

namespace jouleprof::timeline {

void EventBatch::append(std::string_view event_text) {
  text_.append(event_text);
  ends_.push_back(text_.size());
}

void EventBatch::seal(std::size_t padding) { text_.append(padding, '\0'); }

void EventBatch::clear() {
  text_.clear();
  ends_.clear();
  first_index = 0;
}

Status EventBatchQueue::take(EventBatch& batch) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return cancelled_ || filled_.size() < capacity_; });
  if (cancelled_) return Error(ErrorCode::kInterrupted, "the trace's parsing stopped");
  filled_.push_back(std::move(batch));
  if (spare_.empty()) {
    batch = EventBatch();
  } else {
    batch = std::move(spare_.back());
    spare_.pop_back();
  }
  changed_.notify_all();
  return Status::Ok();
}

void EventBatchQueue::finish(Status status) {
  const std::lock_guard lock(mutex_);
  finished_ = true;
  scan_status_ = std::move(status);
  changed_.notify_all();
}

bool EventBatchQueue::next(EventBatch& batch) {
  std::unique_lock lock(mutex_);
  batch.clear();
  spare_.push_back(std::move(batch));
  changed_.wait(lock, [&] { return finished_ || !filled_.empty(); });
  if (filled_.empty()) return false;
  batch = std::move(filled_.front());
  filled_.pop_front();
  changed_.notify_all();
  return true;
}

void EventBatchQueue::cancel() {
  const std::lock_guard lock(mutex_);
  cancelled_ = true;
  changed_.notify_all();
}

}  // namespace jouleprof::timeline
