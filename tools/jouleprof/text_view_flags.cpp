#include "text_view_flags.hpp"

#include "terminal.hpp"

namespace jouleprof::cli {

void TextViewFlags::add_to(CLI::App& app) {
  app.add_option("--depth", depth, "Tree levels to print below the root (-1: all)")
      ->capture_default_str()
      ->check(CLI::Range(-1, 1000000));
  app.add_option("--top", top, "Rows of the top-operators table (0: none)")->capture_default_str();
  app.add_flag("--full", full,
               "Print the whole tree (every level and child) with names unshortened, however wide");
}

TextViewOptions TextViewFlags::options_for(int fd) const {
  TextViewOptions o;
  o.width = output_columns(fd);
  o.max_depth = depth;
  o.top_operators = top;
  o.full = full;
  return o;
}

}  // namespace jouleprof::cli
