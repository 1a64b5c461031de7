// RAPL through /dev/cpu/N/msr: the factory with the register layout exposed for tests.
#pragma once

#include <cstdint>
#include <memory>

#include "jouleprof/source.hpp"

namespace jouleprof {

// The msr driver maps register r to byte offset r of /dev/cpu/N/msr and returns its 8 bytes.
inline constexpr std::uint64_t kMsrDeviceOffsetStride = 1;

// make_rapl_msr_source reading register r at byte offset r × offset_stride. Only tests pass a
// stride other than 1: a fake msr file is a regular file, where AMD's adjacent registers
// (0xC001029A, 0xC001029B) would overlap at stride 1; at stride 8 each gets its own 8 bytes.
std::unique_ptr<Source> make_rapl_msr_source(const SourceOptions& options,
                                             std::uint64_t offset_stride);

}  // namespace jouleprof
