// What the level-zero backend offers beyond the Source interface: the processes Level Zero Sysman
// lists on each GPU. Sysman says which processes hold a device (with their memory and the engine
// types they use) but not how much of its time each took, so this is a holders' list: the data
// of the sole-user rule, not of a utilisation share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jouleprof/result.hpp"
#include "jouleprof/source.hpp"

namespace jouleprof {

// One process using Intel GPUs (zesDeviceProcessesGetState), as Sysman saw it at the call.
struct LevelZeroProcess {
  std::uint32_t pid = 0;
  std::vector<std::string> devices;  // "gpuN", in the numbering of the source's channels
  std::uint64_t memory_bytes = 0;    // device memory it allocated, over its GPUs
  std::uint64_t shared_bytes = 0;    // shared device memory mapped into it, over its GPUs
  std::uint32_t engine_types = 0;    // zes_engine_type_flags_t, over its GPUs
};

// The processes now using the GPUs of `source`, which must be an available level-zero source; an
// error names the call that failed, or says the source is not one.
Result<std::vector<LevelZeroProcess>> level_zero_processes(Source& source);

}  // namespace jouleprof
