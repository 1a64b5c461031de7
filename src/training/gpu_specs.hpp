// Specifications of common NVIDIA GPUs, for PRE's features (CUDA cores, memory, TDP) and the
// baselines (TDP; peak FP32 throughput for the FLOPs-linear model). Figures are the vendors'
// published board specifications. A CSV file `name,cuda_cores,memory_gb,tdp_w,fp32_tflops`
// adds entries or replaces those with the same name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof {

struct GpuSpec {
  std::string name;  // e.g. "GeForce RTX 3090"
  double cuda_cores = 0.0;
  double memory_gb = 0.0;
  double tdp_w = 0.0;
  double fp32_tflops = 0.0;  // peak, without sparsity
};

class GpuSpecTable {
 public:
  static GpuSpecTable built_in();
  // The built-in table with the entries of `overrides_path` added or replaced; empty: built-in.
  static Result<GpuSpecTable> built_in_with(const std::string& overrides_path);

  // Adds or replaces entries from a CSV file; errors name the file, line and field.
  Status load_overrides(const std::string& path);

  // Finds "NVIDIA GeForce RTX 3090", "rtx3090", "RTX 3090" alike: case, spaces, dashes and the
  // words NVIDIA/GeForce/Tesla are ignored. Otherwise the name must be the first whole words of
  // exactly one entry ("V100"); an ambiguous name ("A100") is an error listing the candidates, and
  // a longer or different one ("RTX 3080 Ti", "A100 PCIe") is not found.
  Result<GpuSpec> find(std::string_view name) const;

  const std::vector<GpuSpec>& entries() const { return entries_; }
  const std::string& origin() const { return origin_; }

 private:
  std::vector<GpuSpec> entries_;
  std::string origin_ = "built-in table";
};

}  // namespace jouleprof
