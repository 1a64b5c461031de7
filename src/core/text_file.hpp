// Reading a whole input file, with the one set of errors every reader gives: the file is missing,
// not readable, a directory, unreadable half way, or too large to hold in memory; and writing a
// whole output file, with the system's reason when it cannot be.
#pragma once

#include <string>
#include <string_view>

#include "jouleprof/result.hpp"

namespace jouleprof {

// `what` names the kind of file in errors: "/tmp/x: is a directory, not a profile".
Result<std::string> read_text_file(const std::string& path, std::string_view what);

// Creates or truncates `path` and writes `text` to it. Errors name the path and the system's
// reason ("No such file or directory" for a missing directory: ErrorCode::kNotFound; permission:
// kPermissionDenied; a full disk: kIo).
Status write_text_file(const std::string& path, std::string_view text);

// The error of a `path` that could not be opened for writing with errno `err` (as above), for
// writers that stream.
Error cannot_open_for_writing(const std::string& path, int err);

}  // namespace jouleprof
