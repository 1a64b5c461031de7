#include "sources/vendor_gpu_library.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <span>
#include <vector>

namespace jouleprof {

VendorGpuLibrary::VendorGpuLibrary(const VendorLibrary& library)
    : description_(library), library_(library_path(library.path_variable, library.default_name)) {}

Availability VendorGpuLibrary::bind(
    const std::function<void(FunctionBinder&)>& bind_functions) const {
  if (!library_.is_open()) {
    return {
        false, fmt::format("cannot load {}: {}", library_.path(), library_.error()),
        fmt::format("{}; if the library lives elsewhere, set {}=/path/to/{}", description_.install,
                    description_.path_variable, description_.default_name)};
  }
  FunctionBinder binder(library_);
  bind_functions(binder);
  const std::vector<std::string>& missing = binder.missing();
  if (missing.empty()) return {true, "", ""};
  const std::span<const std::string> others(missing.begin() + 1, missing.end());
  return {false,
          fmt::format("{} has no symbol {}{}: {}", library_.path(), missing.front(),
                      others.empty() ? "" : fmt::format(" (nor {})", fmt::join(others, ", ")),
                      description_.too_old),
          fmt::format("{}, or point {} at its {}", description_.update, description_.path_variable,
                      description_.default_name)};
}

}  // namespace jouleprof
