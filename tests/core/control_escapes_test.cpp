#include "core/control_escapes.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <sstream>

namespace jouleprof {
namespace {

TEST(ControlEscapes, ControlCharactersBecomeVisibleAndTextStays) {
  EXPECT_EQ(escape_control_characters("plain text, µs ± 5 %\tand\nlines"),
            "plain text, µs ± 5 %\tand\nlines");
  EXPECT_EQ(escape_control_characters("a\x1b]0;title\x07"), "a\\x1b]0;title\\x07");
  EXPECT_EQ(escape_control_characters(std::string_view("x\0y\r\x7f", 5)), "x\\0y\\r\\x7f");
  // C1 controls, as UTF-8 (CSI is U+009B); other two-byte characters starting with 0xC2 stay.
  EXPECT_EQ(escape_control_characters("\xc2\x9b"
                                      "2J \xc2\xb1"),
            "\\u009b2J \xc2\xb1");
  EXPECT_EQ(escape_control_characters("end\xc2"), "end\xc2") << "a lone lead byte is not a C1";
}

TEST(ControlEscapes, TheStreamBufferEscapesWhatPassesThroughIt) {
  std::ostringstream target;
  {
    ControlEscapingBuffer escaping(target.rdbuf());
    std::ostream out(&escaping);
    out << "name \x1b[2J" << '\a' << " ± ok\n";
    out << "split \xc2" << std::flush << "\x9b"
        << "1m and \xc2"
        << "\xb1";
  }
  EXPECT_EQ(target.str(), "name \\x1b[2J\\x07 ± ok\nsplit \\u009b1m and \xc2\xb1");
}

TEST(ControlEscapes, ALeadByteAtTheEndIsWrittenWhenTheBufferGoes) {
  std::ostringstream target;
  {
    ControlEscapingBuffer escaping(target.rdbuf());
    std::ostream out(&escaping);
    out << "tail\xc2";
  }
  EXPECT_EQ(target.str(), "tail\xc2");
}

}  // namespace
}  // namespace jouleprof
