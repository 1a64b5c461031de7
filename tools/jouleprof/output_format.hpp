// --format of the commands that print a result: each command offers the formats it can write,
//
//   add_format_option(*cmd, args->format, {OutputFormat::kTable, OutputFormat::kJson}, "…");
//
// and branches on the enum. (`report --format` takes the library's report writers instead.)
#pragma once

#include <CLI/CLI.hpp>
#include <initializer_list>
#include <string>
#include <string_view>

namespace jouleprof::cli {

enum class OutputFormat {
  kTable,  // aligned columns for a terminal
  kText,   // prose and tables (compare)
  kJson,
  kCsv,
};

std::string_view to_string(OutputFormat format);

// Adds --format (and -f when `short_flag`) taking the names of `offered`; the default is the
// value `format` holds.
CLI::Option* add_format_option(CLI::App& command, OutputFormat& format,
                               std::initializer_list<OutputFormat> offered, const std::string& help,
                               bool short_flag = false);

}  // namespace jouleprof::cli
