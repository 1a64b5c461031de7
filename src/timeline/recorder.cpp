// The recorder's hot path and session control. collect() lives in recorder_collect.cpp.
#include "jouleprof/recorder.hpp"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "jouleprof/epoch_file.hpp"
#include "timeline/name_table.hpp"
#include "timeline/recorder_state.hpp"
#include "timeline/spans_file_hook.hpp"

namespace jouleprof {

namespace detail {
std::atomic<std::uint64_t> recorder_state{0};
}  // namespace detail

namespace timeline {

Registry& Registry::instance() {
  static Registry* registry = new Registry;  // leaked on purpose, see the header
  return *registry;
}

}  // namespace timeline

namespace {

using timeline::Record;
using timeline::RecordKind;
using timeline::Registry;
using timeline::ThreadBuffer;

// initial-exec: one instruction to reach the pointer, also inside a shared library; a single
// pointer fits the static TLS surplus that glibc keeps for dlopen()ed libraries.
thread_local ThreadBuffer* tls_buffer __attribute__((tls_model("initial-exec"))) = nullptr;

// Set once this thread's exit has begun: later records (from other thread_local destructors) are
// not kept, because the next start() may free the buffer at any moment from then on.
thread_local bool tls_exiting = false;

// Marks the thread's buffer as orphaned when the thread ends, so that the next start() can free
// it. Kept apart from tls_buffer so that the hot path never touches a TLS object with a destructor.
struct ThreadExitFlag {
  ThreadBuffer* buffer = nullptr;
  ~ThreadExitFlag() {
    if (buffer == nullptr) return;
    tls_exiting = true;
    tls_buffer = nullptr;
    buffer->thread_exited.store(true, std::memory_order_release);
  }
};
thread_local ThreadExitFlag tls_exit_flag;

std::int64_t current_tid() { return static_cast<std::int64_t>(syscall(SYS_gettid)); }

// The package of the CPU this thread runs on now, as the device its track consumes.
std::string current_cpu_device() {
  const int cpu = sched_getcpu();
  if (cpu < 0) return "cpu0";
  std::ifstream package("/sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                        "/topology/physical_package_id");
  int id = 0;
  if (!(package >> id) || id < 0) id = 0;
  return "cpu" + std::to_string(id);
}

// Slow path, once per thread and session: registers the thread or resets its buffer for the
// session `state`. nullptr when the record cannot be kept (recording switched meanwhile, or no
// memory for a buffer).
ThreadBuffer* prepare_buffer(std::uint64_t state) noexcept {
  Registry& registry = Registry::instance();
  if (tls_exiting) {
    registry.unbuffered_drops.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  try {
    const std::lock_guard lock(registry.mutex);
    // The caller's state may be stale: stop() or start() may have run since it was loaded.
    if (detail::recorder_state.load(std::memory_order_relaxed) != state) return nullptr;
    ThreadBuffer* buffer = tls_buffer;
    if (buffer == nullptr) {
      auto fresh =
          std::make_unique<ThreadBuffer>(current_tid(), current_cpu_device(), registry.clock);
      buffer = fresh.get();
      registry.buffers.push_back(std::move(fresh));
      tls_buffer = buffer;
      tls_exit_flag.buffer = buffer;
    }
    if (buffer->capacity != registry.buffer_records || !buffer->records) {
      // new Record[] leaves the memory untouched: the OS commits pages only as records fill them.
      buffer->records.reset(new Record[registry.buffer_records]);
      buffer->capacity = static_cast<std::uint32_t>(registry.buffer_records);
    }
    buffer->size.store(0, std::memory_order_relaxed);
    buffer->dropped.store(0, std::memory_order_relaxed);
    {
      const std::lock_guard attributes_lock(buffer->attributes_mutex);
      buffer->attributes.clear();
    }
    buffer->consumed = 0;
    buffer->carried.clear();
    buffer->session.store(state, std::memory_order_relaxed);
    return buffer;
  } catch (...) {
    registry.unbuffered_drops.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
}

// The last free slot takes an overflow record, so that collect() knows when the thread stopped
// being recorded; everything after it only counts.
void record_overflow(ThreadBuffer& buffer, std::uint32_t size, std::int64_t raw_time) noexcept {
  if (size + 1 == buffer.capacity) {
    Record& r = buffer.records[size];
    r.raw_time = raw_time;
    r.payload = 0;
    r.kind = RecordKind::kOverflow;
    r.category = SpanCategory::kRegion;
    r.pass = Pass::kNone;
    r.unused = 0;
    buffer.size.store(size + 1, std::memory_order_release);
  }
  // Only this thread writes the counter: a plain load and store avoid a locked instruction.
  buffer.dropped.store(buffer.dropped.load(std::memory_order_relaxed) + 1,
                       std::memory_order_relaxed);
}

inline void push(std::uint64_t state, RecordKind kind, std::uint32_t payload, SpanCategory category,
                 Pass pass) noexcept {
  ThreadBuffer* buffer = tls_buffer;
  if (buffer == nullptr || buffer->session.load(std::memory_order_relaxed) != state) [[unlikely]] {
    buffer = prepare_buffer(state);
    if (buffer == nullptr) return;
  }
  const std::uint32_t size = buffer->size.load(std::memory_order_relaxed);
  const std::int64_t now = timeline::raw_now(buffer->clock);
  if (size + 1 >= buffer->capacity) [[unlikely]] {
    record_overflow(*buffer, size, now);
    return;
  }
  Record& r = buffer->records[size];
  r.raw_time = now;
  r.payload = payload;
  r.kind = kind;
  r.category = category;
  r.pass = pass;
  r.unused = 0;
  buffer->size.store(size + 1, std::memory_order_release);
}

// Starts recording when the process was launched with JOULEPROF_SPANS_FILE set.
const bool spans_file_hook_installed = timeline::install_spans_file_hook_from_environment();

}  // namespace

namespace detail {

void record_begin(std::uint64_t state, NameId name, SpanCategory category, Pass pass) noexcept {
  push(state, RecordKind::kBegin, name, category, pass);
}

void record_end(std::uint64_t state) noexcept {
  push(state, RecordKind::kEnd, 0, SpanCategory::kRegion, Pass::kNone);
}

void record_mark(std::uint64_t state, NameId name) noexcept {
  push(state, RecordKind::kMark, name, SpanCategory::kRegion, Pass::kNone);
}

}  // namespace detail

namespace {

// The boundary goes to `jouleprof run --epochs`'s file and, while recording, into the timeline.
void epoch_boundary(EpochBoundary::Kind kind) noexcept {
  notify_epoch_file(kind, monotonic_now_ns());
  const std::uint64_t state = detail::recorder_state.load(std::memory_order_relaxed);
  if ((state & 1U) == 0) return;
  static const NameId begin_name = [] {
    try {
      return intern_name("epoch_begin");
    } catch (...) {
      return NameId{0xFFFFFFFFU};  // collected as "[unknown name id …]"
    }
  }();
  static const NameId end_name = [] {
    try {
      return intern_name("epoch_end");
    } catch (...) {
      return NameId{0xFFFFFFFFU};
    }
  }();
  detail::record_mark(state, kind == EpochBoundary::Kind::kBegin ? begin_name : end_name);
}

}  // namespace

void epoch_begin() noexcept { epoch_boundary(EpochBoundary::Kind::kBegin); }

void epoch_end() noexcept { epoch_boundary(EpochBoundary::Kind::kEnd); }

void annotate(const Attributes& attributes) {
  const std::uint64_t state = detail::recorder_state.load(std::memory_order_relaxed);
  if ((state & 1U) == 0 || attributes.empty()) return;
  ThreadBuffer* buffer = tls_buffer;
  if (buffer == nullptr || buffer->session.load(std::memory_order_relaxed) != state) {
    buffer = prepare_buffer(state);
    if (buffer == nullptr) return;
  }
  std::uint32_t index = 0;
  {
    const std::lock_guard lock(buffer->attributes_mutex);
    index = static_cast<std::uint32_t>(buffer->attributes.size());
    buffer->attributes.push_back(attributes);
  }
  push(state, RecordKind::kAttributes, index, SpanCategory::kRegion, Pass::kNone);
}

void annotate(std::string_view key, std::string_view value) {
  annotate(Attributes{{std::string(key), std::string(value)}});
}

void annotate(std::string_view key, std::int64_t value) {
  annotate(Attributes{{std::string(key), std::to_string(value)}});
}

Recorder& Recorder::global() {
  static Recorder recorder;
  (void)spans_file_hook_installed;
  return recorder;
}

void Recorder::start() {
  Registry& registry = Registry::instance();
  const std::lock_guard lock(registry.mutex);
  if (!registry.clock_chosen) {
    registry.clock = timeline::choose_raw_clock();
    registry.clock_chosen = true;
  }
  // Buffers of threads that have ended are freed here: nobody can write to them any more.
  std::erase_if(registry.buffers, [](const std::unique_ptr<ThreadBuffer>& b) {
    return b->thread_exited.load(std::memory_order_acquire);
  });
  registry.external.clear();
  registry.unbuffered_drops.store(0, std::memory_order_relaxed);
  registry.stopped = false;
  registry.start_anchor = timeline::RawAnchor::capture(registry.clock);
  const std::uint64_t session = (detail::recorder_state.load(std::memory_order_relaxed) >> 1) + 1;
  detail::recorder_state.store((session << 1) | 1U, std::memory_order_release);
}

void Recorder::stop() {
  Registry& registry = Registry::instance();
  const std::lock_guard lock(registry.mutex);
  const std::uint64_t state = detail::recorder_state.load(std::memory_order_relaxed);
  if ((state & 1U) == 0) return;
  registry.stop_raw = timeline::raw_now(registry.clock);
  registry.stopped = true;
  detail::recorder_state.store(state & ~std::uint64_t{1}, std::memory_order_release);
}

bool Recorder::enabled() const {
  return (detail::recorder_state.load(std::memory_order_relaxed) & 1U) != 0;
}

std::uint64_t Recorder::dropped() const {
  Registry& registry = Registry::instance();
  const std::lock_guard lock(registry.mutex);
  const std::uint64_t session =
      timeline::recording_state_of(detail::recorder_state.load(std::memory_order_relaxed));
  std::uint64_t total = registry.unbuffered_drops.load(std::memory_order_relaxed);
  for (const auto& buffer : registry.buffers) {
    if (buffer->session.load(std::memory_order_relaxed) == session) {
      total += buffer->dropped.load(std::memory_order_relaxed);
    }
  }
  return total;
}

void Recorder::add_external_span(TrackKind kind, std::string_view track_name,
                                 std::string_view device, NameId name, TimeNs begin_ns,
                                 TimeNs end_ns, SpanCategory category, Pass pass) {
  Registry& registry = Registry::instance();
  const std::lock_guard lock(registry.mutex);
  registry.external.push_back(timeline::ExternalSpan{kind, std::string(track_name),
                                                     std::string(device), name, begin_ns,
                                                     std::max(begin_ns, end_ns), category, pass});
}

void Recorder::set_buffer_records(std::size_t records) {
  Registry& registry = Registry::instance();
  const std::lock_guard lock(registry.mutex);
  // Two records at least: one for data and the last slot for the overflow marker. Sizes index
  // with 32 bits.
  registry.buffer_records = std::clamp<std::size_t>(records, 2, std::size_t{1} << 31);
}

std::size_t Recorder::buffer_records() const {
  Registry& registry = Registry::instance();
  const std::lock_guard lock(registry.mutex);
  return registry.buffer_records;
}

std::string_view Recorder::clock_source() const {
  Registry& registry = Registry::instance();
  const std::lock_guard lock(registry.mutex);
  if (!registry.clock_chosen) {
    registry.clock = timeline::choose_raw_clock();
    registry.clock_chosen = true;
  }
  return timeline::to_string(registry.clock);
}

}  // namespace jouleprof
