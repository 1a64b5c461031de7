// --depth, --top and --full: how much of a profile the commands that print one show (run --spans,
// profile, attribute, report), laid out to the width of where the text goes.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>

#include "jouleprof/report.hpp"

namespace jouleprof::cli {

struct TextViewFlags {
  int depth = TextViewOptions{}.max_depth;
  std::size_t top = TextViewOptions{}.top_operators;
  bool full = false;

  void add_to(CLI::App& app);
  // The layout for text written to `fd` (its width: terminal.hpp's output_columns).
  TextViewOptions options_for(int fd) const;
};

}  // namespace jouleprof::cli
