// An option whose value is one of an enum's names: CLI11 checks the name against the names
// offered (its usual "not in {…}" error and help) and the option stores the enum, so a command
// compares enums, never the text it was given.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

namespace jouleprof::cli {

template <typename Enum>
using EnumNames = std::vector<std::pair<std::string, Enum>>;

// The help shows `value`'s name as the default; `value` must outlive the parse.
template <typename Enum>
CLI::Option* add_enum_option(CLI::App& command, const std::string& flags, Enum& value,
                             EnumNames<Enum> names, const std::string& help) {
  std::vector<std::string> offered;
  std::string current;
  for (const auto& [name, e] : names) {
    offered.push_back(name);
    if (e == value) current = name;
  }
  return command
      .add_option_function<std::string>(
          flags,
          [&value, names = std::move(names)](const std::string& given) {
            for (const auto& [name, e] : names) {
              if (name == given) value = e;
            }
          },
          help)
      ->check(CLI::IsMember(offered))
      ->default_str(current);
}

}  // namespace jouleprof::cli
