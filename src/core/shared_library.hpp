// A library opened with dlopen at run time: the GPU backends' vendor libraries (NVML, ROCm SMI,
// Level Zero), so that they build without their vendor's SDK and run where the library is missing,
// reporting why instead of failing to start; and XGBoost, which only the predicting commands need
// (predict/xgboost_library.hpp).
#pragma once

#include <string>

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

// The value of the environment variable `variable` when it is set and not empty, else `fallback`.
std::string library_path(const char* variable, const char* fallback);

}  // namespace jouleprof
