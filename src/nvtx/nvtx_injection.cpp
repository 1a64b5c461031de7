// libjouleprof_nvtx.so: an NVTX v3 injection library. A program using NVTX loads it when
// NVTX_INJECTION64_PATH names it; InitializeInjectionNvtx2 then routes the program's NVTX calls
// here and they become jouleprof spans, recorded through libjouleprof.so's C API:
//   push/pop ranges    → jp_begin/jp_end on the calling thread (nesting builds the path);
//   start/end ranges   → spans on the "nvtx ranges" track (they may end on another thread);
//   marks              → jp_mark.
// NVTX categories, colours and payloads are not used; domains share one set of spans.
#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "jouleprof/jouleprof.h"
#include "nvtx/nvtx_abi.hpp"

namespace jouleprof::nvtx {
namespace {

constexpr const char* kStartEndTrack = "nvtx ranges";
constexpr std::string_view kUnnamed = "[nvtx: unnamed]";

// Names are interned once per distinct text and thread, so repeated ranges skip jp_intern's lock.
jp_name_id intern_cached(std::string_view text) {
  thread_local std::unordered_map<std::string, jp_name_id> cache;
  const std::string key(text.empty() ? kUnnamed : text);
  const auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const jp_name_id id = jp_intern(key.c_str());
  cache.emplace(key, id);
  return id;
}

// Wide messages: ASCII kept, anything else as '?' (names only need to be recognisable).
std::string narrow(const wchar_t* text) {
  std::string out;
  if (text == nullptr) return out;
  for (; *text != L'\0'; ++text)
    out += (*text >= 0 && *text < 128) ? static_cast<char>(*text) : '?';
  return out;
}

// Registered strings: handles point at our own stable copies, so they stay valid for the process.
std::mutex registered_mutex;
std::deque<std::string>& registered_strings() {
  static auto* strings = new std::deque<std::string>();  // leaked: used until the process ends
  return *strings;
}

std::string message_of(const EventAttributes* attributes) {
  if (attributes == nullptr) return {};
  switch (attributes->message_type) {
    case kMessageAscii:
      return attributes->message.ascii != nullptr ? attributes->message.ascii : "";
    case kMessageUnicode:
      return narrow(attributes->message.unicode);
    case kMessageRegistered:
      return attributes->message.registered != nullptr
                 ? *static_cast<const std::string*>(attributes->message.registered)
                 : std::string();
    default:
      return {};
  }
}

// ---- push/pop: per-thread nesting -----------------------------------------------------------

thread_local int push_depth = 0;

int push(std::string_view name) {
  jp_begin(intern_cached(name), JP_CATEGORY_REGION);
  return push_depth++;  // NVTX: the 0-based level of the range begun
}

int pop() {
  if (push_depth == 0) return -1;  // NVTX: a pop without a push is an error
  jp_end();
  return --push_depth;  // NVTX: the level of the range ended
}

// ---- start/end: ranges by id, across threads ------------------------------------------------

struct OpenRange {
  jp_name_id name;
  std::int64_t begin_ns;
};

std::atomic<RangeId> next_range_id{1};
std::mutex open_ranges_mutex;
std::unordered_map<RangeId, OpenRange>& open_ranges() {
  static auto* ranges = new std::unordered_map<RangeId, OpenRange>();  // leaked: see above
  return *ranges;
}

RangeId start_range(std::string_view name) {
  const OpenRange range{intern_cached(name), jp_now_ns()};
  const RangeId id = next_range_id.fetch_add(1, std::memory_order_relaxed);
  const std::lock_guard lock(open_ranges_mutex);
  open_ranges().emplace(id, range);
  return id;
}

void end_range(RangeId id) {
  const std::int64_t end_ns = jp_now_ns();
  OpenRange range{};
  {
    const std::lock_guard lock(open_ranges_mutex);
    const auto it = open_ranges().find(id);
    if (it == open_ranges().end()) return;  // unknown or already ended: nothing to record
    range = it->second;
    open_ranges().erase(it);
  }
  jp_add_span(kStartEndTrack, nullptr, range.name, range.begin_ns, end_ns, JP_CATEGORY_REGION);
}

// ---- The handlers, with the signatures of the NVTX entry points they replace -----------------
// NVTX calls them from C; nothing may throw out of them.

template <typename F>
auto guarded(F f, decltype(f()) on_failure) noexcept -> decltype(f()) {
  try {
    return f();
  } catch (...) {
    return on_failure;
  }
}

void mark_a(const char* message) {
  guarded(
      [&] {
        jp_mark(intern_cached(message != nullptr ? message : ""));
        return 0;
      },
      0);
}
void mark_w(const wchar_t* message) {
  guarded(
      [&] {
        jp_mark(intern_cached(narrow(message)));
        return 0;
      },
      0);
}
void mark_ex(const EventAttributes* attributes) {
  guarded(
      [&] {
        jp_mark(intern_cached(message_of(attributes)));
        return 0;
      },
      0);
}
RangeId range_start_a(const char* message) {
  return guarded([&] { return start_range(message != nullptr ? message : ""); }, RangeId{0});
}
RangeId range_start_w(const wchar_t* message) {
  return guarded([&] { return start_range(narrow(message)); }, RangeId{0});
}
RangeId range_start_ex(const EventAttributes* attributes) {
  return guarded([&] { return start_range(message_of(attributes)); }, RangeId{0});
}
void range_end(RangeId id) {
  guarded(
      [&] {
        end_range(id);
        return 0;
      },
      0);
}
int range_push_a(const char* message) {
  return guarded([&] { return push(message != nullptr ? message : ""); }, -1);
}
int range_push_w(const wchar_t* message) {
  return guarded([&] { return push(narrow(message)); }, -1);
}
int range_push_ex(const EventAttributes* attributes) {
  return guarded([&] { return push(message_of(attributes)); }, -1);
}
int range_pop() { return pop(); }

void domain_mark_ex(DomainHandle, const EventAttributes* attributes) { mark_ex(attributes); }
RangeId domain_range_start_ex(DomainHandle, const EventAttributes* attributes) {
  return range_start_ex(attributes);
}
void domain_range_end(DomainHandle, RangeId id) { range_end(id); }
int domain_range_push_ex(DomainHandle, const EventAttributes* attributes) {
  return range_push_ex(attributes);
}
int domain_range_pop(DomainHandle) { return pop(); }
StringHandle domain_register_string_a(DomainHandle, const char* text) {
  return guarded(
      [&]() -> StringHandle {
        const std::lock_guard lock(registered_mutex);
        return &registered_strings().emplace_back(text != nullptr ? text : "");
      },
      nullptr);
}

struct Slot {
  unsigned callback_id;
  FunctionPointer handler;
};

template <typename Fn>
FunctionPointer as_slot(Fn* fn) {
  return reinterpret_cast<FunctionPointer>(fn);  // the ABI's generic slot type
}

// Writes our handlers into one module's slots; false when the client has no such module.
bool install(const ExportTableCallbacks& callbacks, int module, std::initializer_list<Slot> slots) {
  FunctionTable table = nullptr;
  unsigned size = 0;
  if (callbacks.get_module_function_table(module, &table, &size) == 0 || table == nullptr)
    return false;
  for (const Slot& slot : slots) {
    if (slot.callback_id < size && table[slot.callback_id] != nullptr)
      *table[slot.callback_id] = slot.handler;
  }
  return true;
}

}  // namespace
}  // namespace jouleprof::nvtx

// The one symbol the NVTX client looks up in an injection library. Returns 1 on success, 0 when
// the client's export table is not one we understand (the client then turns NVTX into no-ops).
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    jouleprof::nvtx::GetExportTable get_export_table) {
  using namespace jouleprof::nvtx;
  if (get_export_table == nullptr) return 0;
  const auto* callbacks =
      static_cast<const ExportTableCallbacks*>(get_export_table(kExportTableCallbacks));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(ExportTableCallbacks) ||
      callbacks->get_module_function_table == nullptr) {
    return 0;
  }
  const bool core = install(*callbacks, kModuleCore,
                            {{kMarkEx, as_slot(&mark_ex)},
                             {kMarkA, as_slot(&mark_a)},
                             {kMarkW, as_slot(&mark_w)},
                             {kRangeStartEx, as_slot(&range_start_ex)},
                             {kRangeStartA, as_slot(&range_start_a)},
                             {kRangeStartW, as_slot(&range_start_w)},
                             {kRangeEnd, as_slot(&range_end)},
                             {kRangePushEx, as_slot(&range_push_ex)},
                             {kRangePushA, as_slot(&range_push_a)},
                             {kRangePushW, as_slot(&range_push_w)},
                             {kRangePop, as_slot(&range_pop)}});
  if (!core) return 0;
  // The domain API is optional (an old client may not offer it).
  install(*callbacks, kModuleCore2,
          {{kDomainMarkEx, as_slot(&domain_mark_ex)},
           {kDomainRangeStartEx, as_slot(&domain_range_start_ex)},
           {kDomainRangeEnd, as_slot(&domain_range_end)},
           {kDomainRangePushEx, as_slot(&domain_range_push_ex)},
           {kDomainRangePop, as_slot(&domain_range_pop)},
           {kDomainRegisterStringA, as_slot(&domain_register_string_a)}});
  return 1;
}
