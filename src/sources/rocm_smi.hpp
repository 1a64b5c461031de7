// What the rocm-smi backend offers beyond the Source interface: ROCm SMI's list of the compute
// processes on the GPUs, the per-process data that a share of each GPU's energy needs on AMD.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jouleprof/result.hpp"
#include "jouleprof/source.hpp"

namespace jouleprof {

// One process running compute work on AMD GPUs (rsmi_compute_process_info_get and
// rsmi_compute_process_gpus_get), as ROCm SMI saw it at the call.
struct RocmComputeProcess {
  std::uint32_t pid = 0;
  std::vector<std::string> devices;  // "gpuN", in the numbering of the source's channels
  double cu_occupancy = 0.0;         // share of the compute units it occupies now, 0..1
  std::uint64_t vram_bytes = 0;
  std::uint64_t sdma_busy_us = 0;  // cumulative time of its SDMA (copy engine) work
};

// The compute processes now on the GPUs of `source`, which must be an available rocm-smi source;
// an error names the call that failed, or says the source is not one.
Result<std::vector<RocmComputeProcess>> rocm_compute_processes(Source& source);

}  // namespace jouleprof
