// Our own declarations of the part of the NVTX v3 injection ABI that jouleprof uses. There are no
// NVTX headers on the build machines, so these are written from the published headers' layout
// (nvtxDetail/nvtxTypes.h, nvToolsExt.h); docs/nvtx.md lists what each value means and how the
// ABI test checks our reading of it. Values here are fixed by the ABI and never change.
#pragma once

#include <cstddef>
#include <cstdint>

namespace jouleprof::nvtx {

// Export table ids passed to the client's get-export-table function.
inline constexpr std::uint32_t kExportTableCallbacks = 1;

// Callback modules: the core API (nvtxRangePushA, …) and the domain API (nvtxDomainRangePushEx,
// …, which the C++ nvtx3 wrappers and PyTorch use).
inline constexpr int kModuleCore = 1;
inline constexpr int kModuleCore2 = 5;

// Callback ids of the core module.
enum CoreCallback : unsigned {
  kMarkEx = 1,
  kMarkA = 2,
  kMarkW = 3,
  kRangeStartEx = 4,
  kRangeStartA = 5,
  kRangeStartW = 6,
  kRangeEnd = 7,
  kRangePushEx = 8,
  kRangePushA = 9,
  kRangePushW = 10,
  kRangePop = 11,
};

// Callback ids of the domain (core2) module.
enum Core2Callback : unsigned {
  kDomainMarkEx = 1,
  kDomainRangeStartEx = 2,
  kDomainRangeEnd = 3,
  kDomainRangePushEx = 4,
  kDomainRangePop = 5,
  kDomainRegisterStringA = 10,
};

// nvtxEventAttributes_t.messageType.
inline constexpr std::int32_t kMessageAscii = 1;
inline constexpr std::int32_t kMessageUnicode = 2;
inline constexpr std::int32_t kMessageRegistered = 3;

using RangeId = std::uint64_t;     // nvtxRangeId_t
using DomainHandle = void*;        // nvtxDomainHandle_t (opaque)
using StringHandle = const void*;  // nvtxStringHandle_t (opaque; ours point at the text)

// nvtxEventAttributes_v2: 48 bytes on LP64.
struct EventAttributes {
  std::uint16_t version;
  std::uint16_t size;
  std::uint32_t category;
  std::int32_t color_type;
  std::uint32_t color;
  std::int32_t payload_type;
  std::int32_t reserved0;
  std::uint64_t payload;  // a union of 8-byte and smaller numbers
  std::int32_t message_type;
  union {
    const char* ascii;
    const wchar_t* unicode;
    StringHandle registered;
  } message;
};
static_assert(sizeof(EventAttributes) == 48, "nvtxEventAttributes_v2 is 48 bytes");
static_assert(offsetof(EventAttributes, message_type) == 32, "messageType at byte 32");
static_assert(offsetof(EventAttributes, message) == 40, "message at byte 40");

// The client hands out, per module, an array of pointers to its function-pointer slots;
// index = callback id, entry 0 unused. Writing a slot routes that NVTX call to us.
using FunctionPointer = void (*)();
using FunctionTable = FunctionPointer**;

// NvtxExportTableCallbacks.
struct ExportTableCallbacks {
  std::size_t struct_size;
  // Returns nonzero on success; *out_size is the number of entries (ids 0 … out_size-1).
  int (*get_module_function_table)(int module, FunctionTable* out_table, unsigned* out_size);
};

using GetExportTable = const void* (*)(std::uint32_t export_table_id);

}  // namespace jouleprof::nvtx
