// The handoff between the Chrome-trace reader's scanning thread and its parsing thread, alone and
// in imports large enough to take many batches (this test also runs under ThreadSanitizer).
#include "timeline/event_batches.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

#include "jouleprof/trace_import.hpp"

namespace jouleprof::timeline {
namespace {

EventBatch batch_of(std::size_t first_index, std::size_t events) {
  EventBatch batch;
  batch.first_index = first_index;
  for (std::size_t k = 0; k < events; ++k)
    batch.append(fmt::format("{{\"n\":{}}}", first_index + k));
  batch.seal(8);
  return batch;
}

TEST(EventBatchQueue, HandsEveryBatchOverInOrderAndThenHowTheScanEnded) {
  EventBatchQueue queue(2);
  std::thread scanner([&] {
    for (std::size_t b = 0; b < 50; ++b) {
      EventBatch batch = batch_of(b * 10, 10);
      ASSERT_TRUE(queue.take(batch).ok());
      EXPECT_EQ(batch.events(), 0U);  // emptied (or a recycled, cleared one)
    }
    queue.finish(Error(ErrorCode::kInvalidInput, "trace.json: traceEvents[500]: not valid JSON"));
  });
  EventBatch batch;
  std::size_t next_event = 0;
  while (queue.next(batch)) {
    EXPECT_EQ(batch.first_index, next_event);
    for (std::size_t k = 0; k < batch.events(); ++k) {
      EXPECT_EQ(batch.event(k), fmt::format("{{\"n\":{}}}", next_event + k));
      EXPECT_GE(batch.readable_from(k), batch.event(k).size() + 8);
    }
    next_event += batch.events();
  }
  scanner.join();
  EXPECT_EQ(next_event, 500U);
  ASSERT_FALSE(queue.scan_status().ok());
  EXPECT_NE(queue.scan_status().error().message().find("traceEvents[500]"), std::string::npos);
}

TEST(EventBatchQueue, CancellingReleasesAScannerWaitingOnAFullQueue) {
  EventBatchQueue queue(1);
  std::atomic<bool> refused{false};
  std::thread scanner([&] {
    for (;;) {
      EventBatch batch = batch_of(0, 1);
      if (!queue.take(batch).ok()) break;
    }
    refused = true;
    queue.finish(Status::Ok());
  });
  EventBatch batch;
  ASSERT_TRUE(queue.next(batch));
  queue.cancel();
  scanner.join();
  EXPECT_TRUE(refused);
}

// A Kineto-like trace of `events` complete events on one thread, each ~100 bytes: 40 000 make
// about four batches.
std::string generated_trace(std::size_t events, std::size_t bad_duration_at,
                            std::size_t broken_at) {
  std::string text = "{\"traceEvents\": [\n";
  for (std::size_t i = 0; i < events; ++i) {
    if (i > 0) text += i == broken_at ? ";\n" : ",\n";
    const std::string duration = i == bad_duration_at ? "\"long\"" : "1.5";
    text += fmt::format(
        R"({{"ph": "X", "cat": "cpu_op", "name": "aten::op{}", "pid": 1, "tid": 1, "ts": {}.25, "dur": {}}})",
        i % 7, 10 * i, duration);
  }
  text += "\n]}\n";
  return text;
}

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

TEST(ChromeTraceReaderThreads, ATraceOfManyBatchesImportsEveryEvent) {
  const std::string text = generated_trace(40'000, kNone, kNone);
  ASSERT_GT(text.size(), 3 * EventBatch::kFullBytes);
  const Result<TraceImport> imported = import_trace_text(text, "many.json");
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  EXPECT_EQ(imported->timeline.spans().size(), 40'000U);
  EXPECT_EQ(imported->events, 40'000U);
  // In input order on their track: the last event is the last span.
  EXPECT_EQ(
      imported->timeline.spans().back().begin_ns - imported->timeline.spans().front().begin_ns,
      TimeNs{10'000} * 39'999);
}

TEST(ChromeTraceReaderThreads, AnEventsErrorInALaterBatchNamesThatEvent) {
  const Result<TraceImport> imported =
      import_trace_text(generated_trace(40'000, 31'234, kNone), "late.json");
  ASSERT_FALSE(imported.ok());
  EXPECT_NE(imported.error().message().find("traceEvents[31234].dur"), std::string::npos)
      << imported.error().message();
}

TEST(ChromeTraceReaderThreads, ErrorsComeInTheOrderOfTheEventsAcrossTheTwoThreads) {
  // The scanner meets the broken separator after event 25 000 while the parser is still behind
  // it; the bad duration of event 24 990 comes first in the text, so it is the error reported.
  const Result<TraceImport> both =
      import_trace_text(generated_trace(40'000, 24'990, 25'000), "both.json");
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.error().message().find("traceEvents[24990].dur"), std::string::npos)
      << both.error().message();
  const Result<TraceImport> broken =
      import_trace_text(generated_trace(40'000, kNone, 25'000), "broken.json");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(
      broken.error().message().find("traceEvents[24999]: not valid JSON (';' after the event)"),
      std::string::npos)
      << broken.error().message();
}

}  // namespace
}  // namespace jouleprof::timeline
