#include "jouleprof/result.hpp"

#include <gtest/gtest.h>

namespace jouleprof {
namespace {

Result<int> parse_positive(int v) {
  if (v <= 0) return invalid_input("config.json", "count", std::to_string(v), "must be positive");
  return v;
}

Result<int> doubled(int v) {
  JP_TRY(const int x, parse_positive(v));
  return 2 * x;
}

TEST(Result, CarriesValueOrError) {
  EXPECT_EQ(*doubled(4), 8);
  const Result<int> bad = doubled(-1);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(bad.error().message(), "config.json: field 'count' has value '-1': must be positive");
}

TEST(Result, ErrorContextIsPrefixed) {
  const Error e = Error(ErrorCode::kIo, "short read").with_context("/sys/x");
  EXPECT_EQ(e.message(), "/sys/x: short read");
  EXPECT_EQ(to_string(e.code()), "i/o error");
}

// An input error quotes at most 80 bytes of the value, escaped, with its size when cut: a whole
// bad file is never echoed.
TEST(Result, AnInputErrorQuotesABoundedEscapedExcerptOfTheValue) {
  EXPECT_EQ(invalid_input("f.csv", "header", "a\x1b[2Jb", "is odd").message(),
            "f.csv: field 'header' has value 'a\\x1b[2Jb': is odd");
  const std::string huge(5'000'000, '\0');
  const std::string message = invalid_input("f.csv:1", "header", huge, "is odd").message();
  EXPECT_LT(message.size(), 300u);
  EXPECT_NE(message.find("…' (5000000 bytes): is odd"), std::string::npos) << message;
  // A cut never splits a UTF-8 character: 79 ASCII bytes, then "µ" (2 bytes) across the limit.
  const std::string utf8 = std::string(79, 'x') + "µ" + std::string(10, 'y');
  EXPECT_NE(invalid_input("f", "v", utf8, "p").message().find(std::string(79, 'x') + "…'"),
            std::string::npos);
}

}  // namespace
}  // namespace jouleprof
