// A library opened with dlopen at run time: the GPU backends' vendor libraries (NVML, ROCm SMI,
// Level Zero), so that they build without their vendor's SDK and run where the library is missing,
// reporting why instead of failing to start; and XGBoost, which only the predicting commands need
// (predict/xgboost_library.hpp).
#pragma once

#include <string>
#include <vector>

namespace jouleprof {

class SharedLibrary {
 public:
  // Opens `path` with RTLD_NOW | RTLD_LOCAL; when that fails the library is not open and error()
  // holds the dynamic loader's message.
  explicit SharedLibrary(std::string path);
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  bool is_open() const { return handle_ != nullptr; }
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

  // The exported function `name` as a pointer of type Fn, or nullptr when the library lacks it.
  template <typename Fn>
  Fn function(const char* name) const {
    return reinterpret_cast<Fn>(raw_symbol(name));
  }

 private:
  void* raw_symbol(const char* name) const;

  std::string path_;
  std::string error_;
  void* handle_ = nullptr;
};

// Binds a caller's typed function pointers to the exports of an open library and keeps the names
// of the required ones it lacks, so that a loader can name every missing function at once:
//
//   FunctionBinder bind(library);
//   bind.required(api.create, "XGBoosterCreate");
//   bind.optional(api.energy, "nvmlDeviceGetTotalEnergyConsumption");  // may stay nullptr
//   if (!bind.missing().empty()) ...                                    // "XGBoosterCreate", …
class FunctionBinder {
 public:
  explicit FunctionBinder(const SharedLibrary& library) : library_(library) {}

  template <typename Fn>
  void required(Fn& slot, const char* name) {
    slot = library_.function<Fn>(name);
    if (slot == nullptr) missing_.emplace_back(name);
  }
  template <typename Fn>
  void optional(Fn& slot, const char* name) {
    slot = library_.function<Fn>(name);
  }

  // The required functions the library lacks, in the order they were asked for.
  const std::vector<std::string>& missing() const { return missing_; }

 private:
  const SharedLibrary& library_;
  std::vector<std::string> missing_;
};

// The value of the environment variable `variable` when it is set and not empty, else `fallback`.
std::string library_path(const char* variable, const char* fallback);

}  // namespace jouleprof
