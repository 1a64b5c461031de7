// What the harnesses share: most parsers read a path, so each input is written to a file first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace jouleprof::fuzz {

// Writes the input to one file per process and harness name (in /dev/shm when it exists, so no
// disk is touched per execution) and returns its path; `name` carries the extension a reader
// may look at ("kernels.csv").
std::string input_file(const std::uint8_t* data, std::size_t size, std::string_view name);

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace jouleprof::fuzz
