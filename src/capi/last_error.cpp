#include "capi/last_error.hpp"

#include <new>
#include <string>

namespace jouleprof::capi {
namespace {

thread_local std::string last_error;

void store(const char* message) noexcept {
  try {
    last_error = message;
  } catch (const std::bad_alloc&) {
    last_error.clear();  // the status code still says what failed
  }
}

}  // namespace

jp_status fail(const Error& error) noexcept {
  store(error.message().c_str());
  return static_cast<jp_status>(error.code());
}

jp_status fail(ErrorCode code, const char* message) noexcept {
  store(message);
  return static_cast<jp_status>(code);
}

jp_status fail_from_exception(std::exception_ptr error) noexcept {
  try {
    std::rethrow_exception(error);
  } catch (const std::bad_alloc&) {
    return fail(ErrorCode::kInternal, "out of memory");
  } catch (const std::exception& e) {
    return fail(ErrorCode::kInternal, e.what());
  } catch (...) {
    return fail(ErrorCode::kInternal, "unknown C++ exception inside jouleprof");
  }
}

}  // namespace jouleprof::capi

extern "C" const char* jp_last_error(void) { return jouleprof::capi::last_error.c_str(); }
