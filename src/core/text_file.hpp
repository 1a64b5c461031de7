// Reading a whole input file, with the one set of errors every reader gives: the file is missing,
// not readable, a directory, unreadable half way, or too large to hold in memory.
#pragma once

#include <string>
#include <string_view>

#include "jouleprof/result.hpp"

namespace jouleprof {

// `what` names the kind of file in errors: "/tmp/x: is a directory, not a profile".
Result<std::string> read_text_file(const std::string& path, std::string_view what);

}  // namespace jouleprof
