// The C API's result structs are versioned by size (jouleprof.h): the caller sets `size` to the
// sizeof of the struct its header declared, and the library writes only the fields that fit in
// it. New fields go at the end, so old programs keep working with a newer library.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

#include "jouleprof/result.hpp"

namespace jouleprof::capi {

// Fails when `out` is set but its size is below the struct's first version (`first_size` bytes):
// a caller that did not set it (a zero) or another struct.
template <typename Struct>
Status check_struct_size(const Struct* out, std::size_t first_size, const char* name) {
  if (out == nullptr || out->size >= first_size) return Status::Ok();
  return Error(ErrorCode::kInvalidInput,
               std::string(name) + ".size is " + std::to_string(out->size) + ": set it to sizeof(" +
                   name + ") before the call (" + name + "'s _INIT macro)");
}

// Copies the fields of `value` that fit in the caller's `out->size`, keeping that size.
template <typename Struct>
void fill_sized_struct(Struct* out, const Struct& value) {
  const auto size = out->size;
  std::memcpy(static_cast<void*>(out), &value, std::min<std::size_t>(size, sizeof(Struct)));
  out->size = size;
}

}  // namespace jouleprof::capi
