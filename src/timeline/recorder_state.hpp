// The recorder's shared state: per-thread record buffers and the registry that owns them.
//
// Ownership and ordering. Each ThreadBuffer has one writer, its thread. The thread fills
// records[size] and then publishes it with a release store of `size`; collect() loads `size` with
// acquire and reads only records below it, so it never sees a half-written record. A buffer is
// reset (size back to 0) only by its own thread, under the registry lock, when it first records in
// a new session; collect() holds the same lock and reads only buffers whose `session` is the
// current one, so a reset never races a read. Attribute sets are the one thing a thread allocates
// while recording; they sit behind a per-buffer mutex that only collect() contends.
//
// Lock order: Registry::mutex, then ThreadBuffer::attributes_mutex, then NameTable's mutex.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "jouleprof/recorder.hpp"
#include "timeline/raw_clock.hpp"

namespace jouleprof::timeline {

enum class RecordKind : std::uint8_t {
  kBegin = 0,
  kEnd = 1,
  kMark = 2,
  kAttributes = 3,  // payload: index into ThreadBuffer::attributes, for the innermost open span
  kOverflow = 4,    // the buffer is full: open spans end here, later records were dropped
};

// One hot-path record. Plain and fixed-size so that writing one is four stores.
struct Record {
  std::int64_t raw_time;  // raw_now(): TSC ticks or CLOCK_MONOTONIC ns, mapped when collected
  std::uint32_t payload;  // NameId for kBegin/kMark; attribute-set index for kAttributes
  RecordKind kind;
  SpanCategory category;
  Pass pass;
  std::uint8_t unused;
};
static_assert(sizeof(Record) == 16, "a record must stay 16 bytes: four fit one cache line");
static_assert(std::is_trivial_v<Record>, "records are written without construction");

// A span still open at the previous collect(): it continues in the next one.
struct CarriedSpan {
  NameId name;
  SpanCategory category;
  Pass pass;
};

struct ThreadBuffer {
  ThreadBuffer(std::int64_t thread_id, std::string cpu_device, RawClock raw_clock)
      : tid(thread_id), device(std::move(cpu_device)), clock(raw_clock) {}

  // Written by the owning thread only (resets under the registry lock).
  std::unique_ptr<Record[]> records;
  std::uint32_t capacity = 0;
  std::atomic<std::uint32_t> size{0};     // records published
  std::atomic<std::uint64_t> dropped{0};  // records not stored because the buffer was full
  std::atomic<std::uint64_t> session{0};  // the recorder_state this buffer was reset for

  const std::int64_t tid;
  const std::string device;  // "cpu<package>" of the CPU the thread first recorded on
  const RawClock clock;
  std::atomic<bool> thread_exited{false};

  std::mutex attributes_mutex;
  std::vector<Attributes> attributes;

  // collect()'s own bookkeeping, under the registry lock.
  std::uint32_t consumed = 0;
  std::vector<CarriedSpan> carried;  // outermost first
  TimeNs carried_from_ns = 0;
};

struct ExternalSpan {
  TrackKind kind;
  std::string track_name;
  std::string device;
  NameId name;
  TimeNs begin_ns;
  TimeNs end_ns;
  SpanCategory category;
  Pass pass;
};

struct Registry {
  // Never destroyed: the exit hook collects after static destructors may have run.
  static Registry& instance();

  std::mutex mutex;
  std::vector<std::unique_ptr<ThreadBuffer>> buffers;  // registration order
  std::vector<ExternalSpan> external;
  std::size_t buffer_records = kDefaultBufferRecords;
  bool clock_chosen = false;
  RawClock clock = RawClock::kMonotonic;
  RawAnchor start_anchor;
  bool stopped = false;
  std::int64_t stop_raw = 0;
  // Records lost because a thread could not get a buffer at all (out of memory, or recorded while
  // the thread was exiting).
  std::atomic<std::uint64_t> unbuffered_drops{0};
};

// The recorder_state value of the current session while it records (bit 0 set).
inline std::uint64_t recording_state_of(std::uint64_t state) { return state | 1U; }

}  // namespace jouleprof::timeline
