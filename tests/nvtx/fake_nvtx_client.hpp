// The client side of the NVTX v3 injection ABI, as our reading of the published headers has it
// (src/nvtx/nvtx_abi.hpp): function-pointer slots per module, a get-module-function-table entry
// and a get-export-table function, and the loading step (dlopen the library named by
// NVTX_INJECTION64_PATH, call InitializeInjectionNvtx2). It checks our injection library against
// that reading, not against NVIDIA's headers: tests/nvtx/nvtx_program.cpp does that where the
// headers are installed.
#pragma once

#include <dlfcn.h>

#include <array>
#include <cstdint>
#include <string>

#include "nvtx/nvtx_abi.hpp"

namespace jouleprof::nvtx::testing {

class FakeNvtxClient {
 public:
  static constexpr unsigned kSlots = 16;  // the core and core2 modules both have ids 0 … 15

  // Loads `library` and lets it install its handlers; returns InitializeInjectionNvtx2's result
  // (1 = attached), or -1 when the library or its entry point cannot be found (error() says why).
  int attach(const std::string& library) {
    handle_ = dlopen(library.c_str(), RTLD_LAZY);
    if (handle_ == nullptr) {
      error_ = dlerror();
      return -1;
    }
    using Init = int (*)(GetExportTable);
    void* entry = dlsym(handle_, "InitializeInjectionNvtx2");
    if (entry == nullptr) {
      error_ = "no InitializeInjectionNvtx2";
      return -1;
    }
    return reinterpret_cast<Init>(entry)(&get_export_table);
  }

  const std::string& error() const { return error_; }

  // The handler the library put into a slot (nullptr: left alone).
  template <typename Fn>
  static Fn core(unsigned callback_id) {
    return reinterpret_cast<Fn>(core_slots()[callback_id]);
  }
  template <typename Fn>
  static Fn core2(unsigned callback_id) {
    return reinterpret_cast<Fn>(core2_slots()[callback_id]);
  }

  // What the export table offers; tests shrink struct_size to play an incompatible client.
  static ExportTableCallbacks& callbacks() {
    static ExportTableCallbacks table{sizeof(ExportTableCallbacks), &get_module_function_table};
    return table;
  }

  static void reset() {
    core_slots().fill(nullptr);
    core2_slots().fill(nullptr);
    callbacks() = ExportTableCallbacks{sizeof(ExportTableCallbacks), &get_module_function_table};
  }

 private:
  using Slots = std::array<FunctionPointer, kSlots>;
  static Slots& core_slots() {
    static Slots slots{};
    return slots;
  }
  static Slots& core2_slots() {
    static Slots slots{};
    return slots;
  }

  // The per-module array of pointers to slots; entry 0 (invalid id) is null, as in the client.
  static std::array<FunctionPointer*, kSlots + 1>& table_of(Slots& slots) {
    static std::array<FunctionPointer*, kSlots + 1> core_table{};
    static std::array<FunctionPointer*, kSlots + 1> core2_table{};
    auto& table = &slots == &core_slots() ? core_table : core2_table;
    for (unsigned i = 1; i < kSlots; ++i) table[i] = &slots[i];
    return table;
  }

  static int get_module_function_table(int module, FunctionTable* out_table, unsigned* out_size) {
    Slots* slots = module == kModuleCore    ? &core_slots()
                   : module == kModuleCore2 ? &core2_slots()
                                            : nullptr;
    if (slots == nullptr) return 0;
    *out_table = table_of(*slots).data();
    *out_size = kSlots;
    return 1;
  }

  static const void* get_export_table(std::uint32_t id) {
    return id == kExportTableCallbacks ? &callbacks() : nullptr;
  }

  void* handle_ = nullptr;
  std::string error_;
};

}  // namespace jouleprof::nvtx::testing
