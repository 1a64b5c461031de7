#include "core/parse.hpp"

#include <gtest/gtest.h>

#include <clocale>
#include <limits>

namespace jouleprof {
namespace {

TEST(Parse, NumbersByOneRule) {
  EXPECT_EQ(to_number("12.5"), 12.5);
  EXPECT_EQ(to_number(" \t12.5\r\n"), 12.5);  // whitespace around is ignored
  EXPECT_EQ(to_number("+3"), 3.0);            // one leading '+'
  EXPECT_EQ(to_number("-3e2"), -300.0);
  for (const char* bad :
       {"", " ", "+", "++3", "+-3", "12abc", "1,5", "inf", "-inf", "nan", "1e999", "0x10", "1 2"}) {
    EXPECT_FALSE(to_number(bad).has_value()) << bad;
  }
}

TEST(Parse, IntegersByOneRule) {
  EXPECT_EQ(to_int64(" -42 "), -42);
  EXPECT_EQ(to_int64("+42"), 42);
  EXPECT_EQ(to_int64("ff", 16), 255);
  EXPECT_EQ(to_uint64("18446744073709551615"), std::numeric_limits<std::uint64_t>::max());
  for (const char* bad : {"", "1.5", "9223372036854775808", "12x", "+-1"}) {
    EXPECT_FALSE(to_int64(bad).has_value()) << bad;
  }
  EXPECT_FALSE(to_uint64("-1").has_value());
  EXPECT_FALSE(to_uint64("18446744073709551616").has_value());
}

TEST(Parse, IntegersOfAnyWidth) {
  EXPECT_EQ(to_integer<int>(" 7 "), 7);
  EXPECT_EQ(to_integer<unsigned char>("ff", 16), 255);
  EXPECT_FALSE(to_integer<unsigned char>("100", 16).has_value());  // 256
  EXPECT_FALSE(to_integer<int>("2147483648").has_value());
  EXPECT_EQ(to_integer<int>("-2147483648"), std::numeric_limits<int>::min());
  EXPECT_FALSE(to_integer<unsigned>("-1").has_value());
  EXPECT_FALSE(to_integer<int>("3.0").has_value());
}

TEST(Parse, AnIntegerTooLargeIsToldFromNoNumber) {
  EXPECT_TRUE(looks_like_integer("99999999999999999999999"));
  EXPECT_TRUE(looks_like_integer(" -12 "));
  EXPECT_TRUE(looks_like_integer("fF0", 16));
  for (const char* bad : {"", "-", "12x", "1.5", "fF0", "+-1"}) {
    EXPECT_FALSE(looks_like_integer(bad)) << bad;
  }
}

TEST(Parse, LeadingDigits) {
  EXPECT_EQ(leading_digits("123, counter"), "123");
  EXPECT_EQ(leading_digits("7/stream:2"), "7");
  EXPECT_EQ(leading_digits("-1"), "");
  EXPECT_EQ(leading_digits(""), "");
}

TEST(Parse, TrimsAsciiSpaceOnly) {
  EXPECT_EQ(trim_ascii_space(" \t a b \r\n"), "a b");
  EXPECT_EQ(trim_ascii_space("\v"), "\v");
  EXPECT_EQ(trim_ascii_space("   "), "");
}

// A locale whose decimal point is ',' changes nothing (strtod would read "1.5" as 1).
TEST(Parse, TheLocaleDoesNotMatter) {
  const char* set = std::setlocale(LC_NUMERIC, "de_DE.UTF-8");
  EXPECT_EQ(to_number("1.5"), 1.5);
  EXPECT_FALSE(to_number("1,5").has_value());
  if (set != nullptr) std::setlocale(LC_NUMERIC, "C");
}

TEST(Parse, ErrorsNameWhereFieldAndValue) {
  const Result<double> bad = parse_number("meter.csv:3", "current_ma", "12mA");
  ASSERT_FALSE(bad.ok());
  const std::string& m = bad.error().message();
  EXPECT_NE(m.find("meter.csv:3"), std::string::npos) << m;
  EXPECT_NE(m.find("current_ma"), std::string::npos) << m;
  EXPECT_NE(m.find("12mA"), std::string::npos) << m;
  EXPECT_NE(m.find("not a finite number"), std::string::npos) << m;
  EXPECT_EQ(parse_int64("f", "t_ns", "17").value(), 17);
  EXPECT_FALSE(parse_uint64("f", "count", "-1").ok());
}

}  // namespace
}  // namespace jouleprof
