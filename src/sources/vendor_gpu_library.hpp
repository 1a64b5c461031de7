// A GPU vendor's library (NVML, ROCm SMI, Level Zero), opened with dlopen at run time so that the
// backends build without the vendor's SDK and, where the library is missing or is not the one
// they expect, say why and what to do instead of failing to start:
//
//   VendorGpuLibrary library(kNvmlLibrary);  // $JOULEPROF_NVML_LIBRARY, else libnvidia-ml.so.1
//   const Availability bound = library.bind([&](FunctionBinder& bind) {
//     bind.required(symbols.init, "nvmlInit_v2");
//     bind.optional(symbols.get_energy, "nvmlDeviceGetTotalEnergyConsumption");
//   });
//   // !bound.available: "cannot load …" or "… has no symbol nvmlInit_v2 …", with the fix
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "core/shared_library.hpp"
#include "jouleprof/source.hpp"

namespace jouleprof {

// Where a vendor's library is found, and what a user does when it cannot be used.
struct VendorLibrary {
  const char* path_variable;  // "JOULEPROF_NVML_LIBRARY": a path that replaces the default
  const char* default_name;   // "libnvidia-ml.so.1"
  std::string_view install;   // the fix when it does not load: "install the NVIDIA driver (…)"
  std::string_view too_old;   // why it may lack a function: "the NVIDIA driver is too old or …"
  std::string_view update;    // the fix then: "update the NVIDIA driver"
};

class VendorGpuLibrary {
 public:
  // Opens the path in `library.path_variable` when that is set, else `library.default_name`.
  explicit VendorGpuLibrary(const VendorLibrary& library);

  const std::string& path() const { return library_.path(); }

  // Lets `bind_functions` bind what the backend calls. Unavailable, with the reason and the fix,
  // when the library did not load or lacks a required function (the reason names each one).
  Availability bind(const std::function<void(FunctionBinder&)>& bind_functions) const;

 private:
  VendorLibrary description_;
  SharedLibrary library_;
};

}  // namespace jouleprof
