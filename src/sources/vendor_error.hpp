// What a status code of a GPU vendor's library means: nvml::, rocm_smi:: and level_zero::
// describe_error know every code their library documents.
#pragma once

#include <string_view>

namespace jouleprof {

struct VendorErrorDescription {
  std::string_view name;     // "NVML_ERROR_NOT_SUPPORTED"
  std::string_view meaning;  // in words
  std::string_view fix;      // what the user can do; empty when nothing can be done
};

}  // namespace jouleprof
