// Result<T>: a value or an Error, jouleprof's one error model for expected failures.
//
//   Result<Series> r = read_samples_csv(path);
//   if (!r) { std::cerr << r.error().message() << "\n"; return 1; }
//   Series s = std::move(r).value();
//
// Inside functions that themselves return a Result, JP_TRY propagates errors:
//   JP_TRY(auto series, read_samples_csv(path));
// Exceptions are reserved for programming errors (violated preconditions).
#pragma once

#include <cassert>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace jouleprof {

// Fixed values: they appear in the C API and in files.
enum class ErrorCode : int {
  kInvalidInput = 1,      // a file, field or argument holds a value we cannot use
  kNotFound = 2,          // a file, device or key does not exist
  kPermissionDenied = 3,  // it exists but we may not read it
  kUnavailable = 4,       // a backend cannot work here (no driver, not supported)
  kIo = 5,                // reading or writing failed
  kUnsupported = 6,       // valid, but not something jouleprof can do
  kInternal = 7,          // a bug in jouleprof
  kInterrupted = 8,       // stopped by a signal or a timeout
};

std::string_view to_string(ErrorCode code);

// Which input an error is about, where a front-end adds the names of its own flags for it: a
// caller classifies an error by this, never by searching its message.
enum class ErrorSubject : std::uint8_t {
  kUnspecified,
  kTraceClock,      // a trace's clock has no mapping, or its spans miss the samples' window
  kNoSpans,         // there is nothing to attribute to
  kChannelDevices,  // no span received energy: the channels are on other devices than the tracks
  kCommandStart,    // the command to measure could not be started
  kNotAProfile,     // a JSON document that is not a jouleprof profile (another schema, none)
};

class [[nodiscard]] Error {
 public:
  Error(ErrorCode code, std::string message, ErrorSubject subject = ErrorSubject::kUnspecified)
      : code_(code), subject_(subject), message_(std::move(message)) {}

  ErrorCode code() const { return code_; }
  ErrorSubject subject() const { return subject_; }
  const std::string& message() const { return message_; }

  // Prefixes context, e.g. Error("field x: bad").with_context("file.csv") -> "file.csv: field x:
  // bad".
  Error with_context(std::string_view context) const;

 private:
  ErrorCode code_;
  ErrorSubject subject_;
  std::string message_;
};

// The message every input error should carry: where, which field, which value, and what is wrong.
Error invalid_input(std::string_view file, std::string_view field, std::string_view value,
                    std::string_view problem);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<T>(state_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<T>(state_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(state_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const {
    assert(!ok());
    return std::get<Error>(state_);
  }

 private:
  std::variant<T, Error> state_;
};

// Result<void>: success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error)
      : error_(std::move(error)), failed_(true) {}  // NOLINT(google-explicit-constructor)
  static Status Ok() { return Status(); }

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const {
    assert(failed_);
    return error_;
  }

 private:
  Error error_{ErrorCode::kInternal, ""};
  bool failed_ = false;
};

}  // namespace jouleprof

#define JP_CONCAT_INNER_(a, b) a##b
#define JP_CONCAT_(a, b) JP_CONCAT_INNER_(a, b)

// JP_TRY(decl, expr): evaluates a Result; returns its error from the enclosing function, or
// binds the value to decl.
#define JP_TRY(decl, expr) JP_TRY_IMPL_(JP_CONCAT_(jp_result_, __LINE__), decl, expr)
#define JP_TRY_IMPL_(tmp, decl, expr) \
  auto tmp = (expr);                  \
  if (!tmp.ok()) return tmp.error();  \
  decl = std::move(tmp).value()

// JP_RETURN_IF_ERROR(expr): for Status (or a Result whose value is not needed). The name is
// unique per line, so that a lambda inside `expr` may use the macro too.
#define JP_RETURN_IF_ERROR(expr) JP_RETURN_IF_ERROR_IMPL_(JP_CONCAT_(jp_status_, __LINE__), expr)
#define JP_RETURN_IF_ERROR_IMPL_(status, expr) \
  do {                                         \
    auto status = (expr);                      \
    if (!status.ok()) return status.error();   \
  } while (false)
