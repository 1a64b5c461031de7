#include "core/packed_columns.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace jouleprof {
namespace {

TEST(PackedColumns, EveryValueComesBackExactly) {
  const std::vector<std::uint64_t> unsigned_values{
      0, 1, 127, 128, 300, 1ULL << 35, std::numeric_limits<std::uint64_t>::max()};
  const std::vector<std::int64_t> signed_values{0,
                                                -1,
                                                1,
                                                -64,
                                                64,
                                                -1'000'000'007,
                                                std::numeric_limits<std::int64_t>::min(),
                                                std::numeric_limits<std::int64_t>::max()};
  const std::vector<double> doubles{0.0,
                                    -0.0,
                                    1.5,
                                    1e-300,
                                    -7.25e12,
                                    std::numeric_limits<double>::infinity(),
                                    std::numeric_limits<double>::denorm_min()};
  PackedColumnsWriter writer(3);
  for (std::uint64_t v : unsigned_values) writer.put_unsigned(0, v);
  for (std::int64_t v : signed_values) writer.put_signed(1, v);
  for (double v : doubles) writer.put_double(2, v);
  const std::string text = writer.finish();

  Result<PackedColumnsReader> reader = PackedColumnsReader::open(text, 3, 1 << 20);
  ASSERT_TRUE(reader.ok()) << reader.error().message();
  for (std::uint64_t expected : unsigned_values) {
    std::uint64_t v = 0;
    ASSERT_TRUE(reader->next_unsigned(0, v));
    EXPECT_EQ(v, expected);
  }
  for (std::int64_t expected : signed_values) {
    std::int64_t v = 0;
    ASSERT_TRUE(reader->next_signed(1, v));
    EXPECT_EQ(v, expected);
  }
  for (double expected : doubles) {
    double v = 0.0;
    ASSERT_TRUE(reader->next_double(2, v));
    EXPECT_EQ(std::signbit(v), std::signbit(expected));
    EXPECT_EQ(v, expected);
  }
  EXPECT_TRUE(reader->at_end());
  std::uint64_t past_the_end = 0;
  EXPECT_FALSE(reader->next_unsigned(0, past_the_end));
}

TEST(PackedColumns, NaNKeepsItsBits) {
  PackedColumnsWriter writer(1);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  writer.put_double(0, nan);
  Result<PackedColumnsReader> reader = PackedColumnsReader::open(writer.finish(), 1, 64);
  ASSERT_TRUE(reader.ok());
  double v = 0.0;
  ASSERT_TRUE(reader->next_double(0, v));
  EXPECT_TRUE(std::isnan(v));
}

// 100 000 counter readings 1 ms apart with ±20 µs of random jitter stay under 10 characters a
// reading once packed (8.6 here; an expanded profile spells each out in ~35).
TEST(PackedColumns, SmallDeltasPackSmall) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> jitter(-20'000, 20'000);
  PackedColumnsWriter writer(2);
  double energy = 0.0;
  for (int i = 0; i < 100'000; ++i) {
    writer.put_signed(0, 1'000'000 + jitter(rng));
    energy += 0.061035;  // a RAPL-like step
    writer.put_double(1, energy);
  }
  const std::size_t size = writer.finish().size();
  EXPECT_LT(size, 100'000u * 10) << "the deltas and values did not pack";
}

TEST(PackedColumns, DamagedTextIsRefusedWithWhatIsWrong) {
  PackedColumnsWriter writer(2);
  for (int i = 0; i < 1000; ++i) {
    writer.put_unsigned(0, static_cast<std::uint64_t>(i));
    writer.put_unsigned(1, static_cast<std::uint64_t>(i * i));
  }
  const std::string text = writer.finish();
  const auto error_of = [](std::string_view t, std::size_t columns, std::size_t max_bytes) {
    Result<PackedColumnsReader> r = PackedColumnsReader::open(t, columns, max_bytes);
    return r.ok() ? std::string("(opened)") : r.error().message();
  };
  EXPECT_NE(error_of(text.substr(0, text.size() - 1), 2, 1 << 20).find("not a multiple of 4"),
            std::string::npos);
  std::string bad_character = text;
  bad_character[5] = '*';
  EXPECT_NE(error_of(bad_character, 2, 1 << 20).find("character 5 is outside its alphabet"),
            std::string::npos);
  EXPECT_NE(error_of(text.substr(0, text.size() / 2 / 4 * 4), 2, 1 << 20)
                .find("not a whole deflate stream"),
            std::string::npos);
  EXPECT_NE(error_of(text, 3, 1 << 20).find("holds 2 columns where 3 belong"), std::string::npos);
  EXPECT_NE(error_of(text, 2, 100).find("inflates beyond the 100 bytes"), std::string::npos);
  EXPECT_NE(error_of("", 2, 100).find("not a whole deflate stream"), std::string::npos);
}

TEST(PackedColumns, TheBoundCoversTheWorstCaseWithoutOverflow) {
  PackedColumnsWriter writer(2);
  for (int i = 0; i < 10; ++i) {
    writer.put_unsigned(0, std::numeric_limits<std::uint64_t>::max());
    writer.put_double(1, -1.0 / (i + 1));
  }
  EXPECT_TRUE(PackedColumnsReader::open(writer.finish(), 2, packed_columns_bound(10, 1, 1)).ok());
  EXPECT_LE(packed_columns_bound(std::numeric_limits<std::uint64_t>::max(), 7, 0),
            std::numeric_limits<std::size_t>::max() / 2);
}

}  // namespace
}  // namespace jouleprof
