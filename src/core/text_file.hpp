// Reading a whole input file, with the one set of errors every reader gives: the file is missing,
// not readable, a directory, unreadable half way, or larger than its kind may be; and writing a
// whole output file, with the system's reason when it cannot be. Line-oriented input is not read
// whole: core/line_reader.hpp streams it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "jouleprof/result.hpp"

namespace jouleprof {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

struct InputFile {
  std::unique_ptr<std::FILE, FileCloser> file;
  std::optional<std::uint64_t> size;  // known for a regular file, not for a pipe or a device
};

// `path` opened for reading, or the error naming why not. `what` names the kind of file in errors:
// "/tmp/x: is a directory, not a profile".
Result<InputFile> open_input_file(const std::string& path, std::string_view what);

// The whole file, which must hold at most `max_bytes`: a larger regular file is refused before
// anything is read or allocated, naming its size and the limit; a pipe when it passes the limit.
// Each kind of document read whole states its limit beside its reader.
Result<std::string> read_text_file(const std::string& path, std::string_view what,
                                   std::uint64_t max_bytes);

// Creates or truncates `path` and writes `text` to it. Errors name the path and the system's
// reason ("No such file or directory" for a missing directory: ErrorCode::kNotFound; permission:
// kPermissionDenied; a full disk: kIo).
Status write_text_file(const std::string& path, std::string_view text);

// The error of a `path` that could not be opened for writing with errno `err` (as above), for
// writers that stream.
Error cannot_open_for_writing(const std::string& path, int err);

}  // namespace jouleprof
