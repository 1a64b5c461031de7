// Text from input (span names, commands, paths, warnings) may hold control characters: an ESC
// sequence in a span name would clear the user's screen or retitle the window when a report
// reaches a terminal (issue 30, class 5). Everything jouleprof prints or renders as text goes
// through this: C0 controls other than newline and tab, DEL and the C1 controls (U+0080–U+009F,
// as UTF-8) become visible escapes: "\x1b", "\r", "\u009b". Printable text, UTF-8 included, is
// kept as it is.
#pragma once

#include <streambuf>
#include <string>
#include <string_view>

namespace jouleprof {

// `text` with its control characters escaped; newline and tab are kept.
std::string escape_control_characters(std::string_view text);

// A value from input as an error quotes it: in quotes, escaped, and a longer one cut to 80 bytes,
// before a UTF-8 sequence it would split, with its size: 'abc…' (5000000 bytes). (Issue 30,
// class 3: a 256 MB line of NULs was echoed whole to stderr.)
std::string quoted_excerpt(std::string_view value);

// A stream buffer that escapes control characters on their way to `target`: the CLI puts one in
// front of std::cout and std::cerr, so that no input reaches the terminal raw. Its own control
// sequences (the progress line's "\r\x1b[K") go to `target` directly. A C1 control split across
// two writes is still recognised.
class ControlEscapingBuffer final : public std::streambuf {
 public:
  explicit ControlEscapingBuffer(std::streambuf* target) : target_(target) {}
  ~ControlEscapingBuffer() override;
  ControlEscapingBuffer(const ControlEscapingBuffer&) = delete;
  ControlEscapingBuffer& operator=(const ControlEscapingBuffer&) = delete;
  std::streambuf* target() const { return target_; }

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool put_escaped(unsigned char c);

  std::streambuf* target_;
  bool after_c2_ = false;  // the last byte was 0xC2: a C1 control may follow
};

}  // namespace jouleprof
