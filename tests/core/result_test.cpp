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

}  // namespace
}  // namespace jouleprof
