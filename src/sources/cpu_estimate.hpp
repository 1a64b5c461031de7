// Pieces of the CPU estimate exposed for tests: the TDP table (/proc/stat parsing is in
// sources/proc_stat.hpp).
#pragma once

#include <optional>
#include <string_view>

namespace jouleprof {

// TDP of a known CPU model from a small built-in table (docs/sources.md lists it); matches a
// table key as a whole word inside /proc/cpuinfo's `model name`.
std::optional<double> tdp_from_model_w(std::string_view model_name);

}  // namespace jouleprof
