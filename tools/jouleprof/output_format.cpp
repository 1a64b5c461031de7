#include "output_format.hpp"

#include <array>

#include "enum_option.hpp"

namespace jouleprof::cli {
namespace {

constexpr std::array<std::string_view, 4> kFormatNames{"table", "text", "json", "csv"};

}  // namespace

std::string_view to_string(OutputFormat format) {
  return kFormatNames.at(static_cast<std::size_t>(format));
}

CLI::Option* add_format_option(CLI::App& command, OutputFormat& format,
                               std::initializer_list<OutputFormat> offered, const std::string& help,
                               bool short_flag) {
  EnumNames<OutputFormat> names;
  for (OutputFormat f : offered) names.emplace_back(std::string(to_string(f)), f);
  return add_enum_option(command, short_flag ? "--format,-f" : "--format", format, std::move(names),
                         help);
}

}  // namespace jouleprof::cli
