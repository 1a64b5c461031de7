// Which of a vendor's GPUs a job may use, from the variable its runtime reads
// (CUDA_VISIBLE_DEVICES for NVIDIA): a GPU the job cannot see is not its energy, and the runtime
// numbers the visible ones from 0 in the list's order, which is how the job's trace names them
// (cuda:0 is the first listed). Read as CUDA reads it: comma-separated entries, each a GPU index
// or a prefix of its UUID ("GPU-…"); an entry that matches no GPU (or one already listed) ends
// the list, and so do the entries after it; an empty value hides every GPU.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jouleprof {

struct GpuIdentity {
  std::size_t index = 0;  // the vendor library's index
  std::string uuid;       // "GPU-…"; empty when the library gave none
};

struct GpuVisibility {
  // Per GPU of the input, its number for the job (its position in the list); nullopt: hidden.
  std::vector<std::optional<std::size_t>> number;
  // What the variable did, for the source's reason ("CUDA_VISIBLE_DEVICES=1: the job sees 1 of
  // its 2 GPUs …"); empty when it is not set.
  std::string note;
  std::size_t visible() const;
};

// `value` null: the variable is unset, every GPU is visible under its own index.
GpuVisibility resolve_visible_gpus(std::string_view variable, const char* value,
                                   const std::vector<GpuIdentity>& gpus);

}  // namespace jouleprof
