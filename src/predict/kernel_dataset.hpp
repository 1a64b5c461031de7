// Measured kernel data sets: configurations with their energy, the training input of the kernel
// predictors. Two formats (../shared/data/deepen2023/README):
//   - nn-Meter JSON pairs: a config file {"<type>": {ID: {"config": {"HW", "CIN", …}}}} and an
//     energy file {"<type>": {ID: {"energy": "<mJ>"}}}; they are joined on (type, ID);
//   - CSV `id,OP,energy_mJ,HW,KERNEL_SIZE,STRIDES,CIN,COUT` (PlatformX, jouleprof kernel-bench),
//     with an optional last column `energy_provenance` (kernel-bench writes it:
//     "measured:<source>", "estimated:cpu-estimate", "simulated:simulated") and `#` comment lines.
//     For add kernels CIN is the channel count of both inputs.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "predict/kernel_features.hpp"

namespace jouleprof::predict {

struct KernelSample {
  KernelConfig config;
  double energy_mj = 0.0;
  std::string source;  // the file the energy came from
  // How the energy was obtained, "<provenance>:<energy source>" (e.g. "estimated:cpu-estimate");
  // empty when the file does not say (the published data sets: measured on the authors' devices).
  std::string provenance;
};

// "<file>" or "<file> [<provenance>]": how a training file is listed in a predictor bundle.
std::string sample_origin(const KernelSample& sample);

// Reads every file and returns the joined samples in file order (JSON entries in ID order).
// A config without an energy (or the reverse), a missing config key, an energy that is not a
// positive number or unparsable JSON each fail with the file, ID and field named.
Result<std::vector<KernelSample>> read_kernel_files(std::span<const std::filesystem::path> files);

// The CSV format above with the energy_provenance column, so measurements can be written back in
// the format read here.
std::string kernel_csv_header();
std::string kernel_csv_row(const KernelSample& sample);

}  // namespace jouleprof::predict
