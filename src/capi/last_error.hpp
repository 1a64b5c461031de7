// The C API's error channel: each failing call stores its message for jp_last_error() on the
// calling thread and returns the matching jp_status.
#pragma once

#include <exception>

#include "jouleprof/jouleprof.h"
#include "jouleprof/result.hpp"

namespace jouleprof::capi {

jp_status fail(const Error& error) noexcept;
jp_status fail(ErrorCode code, const char* message) noexcept;
// For catch (...) blocks: the exception's message when it has one.
jp_status fail_from_exception(std::exception_ptr error) noexcept;

}  // namespace jouleprof::capi
