// Packed columns: the large arrays of a profile (a timeline's spans and attribute sets, a series'
// samples) stored as columns in one JSON string instead of one JSON array per row. Integers are
// LEB128 varints (signed ones zigzag-encoded, so small deltas of either sign take one or two
// bytes); doubles are their IEEE bits XORed with the previous value of their column, so repeated
// leading bytes become zeros; byte columns hold text as it is (its lengths go in a varint column).
// The columns are laid one after another behind their byte lengths, deflated and base64-encoded.
// docs/schema.md describes the layout byte by byte.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/result.hpp"

namespace jouleprof {

// Signed values as the signed columns hold them: 0, -1, 1, -2 … as 0, 1, 2, 3 …
std::uint64_t zigzag(std::int64_t v);
std::int64_t unzigzag(std::uint64_t v);

// The name a packed block gives in its "encoding" field.
inline constexpr std::string_view kPackedColumnsEncoding = "packed-columns-1";

class PackedColumnsWriter {
 public:
  explicit PackedColumnsWriter(std::size_t columns) : columns_(columns), last_double_(columns) {}

  void put_unsigned(std::size_t column, std::uint64_t value);
  void put_signed(std::size_t column, std::int64_t value);
  void put_double(std::size_t column, double value);
  void put_bytes(std::size_t column, std::string_view bytes);

  // The base64 text of the deflated columns.
  std::string finish() const;

 private:
  std::vector<std::string> columns_;
  std::vector<std::uint64_t> last_double_;
};

class PackedColumnsReader {
 public:
  // Decodes `text` holding exactly `columns` columns. `max_bytes` bounds the inflated size (the
  // most its row count can take), so a small text cannot inflate without end. An error says what
  // is wrong with the text; the caller names the field that held it.
  static Result<PackedColumnsReader> open(std::string_view text, std::size_t columns,
                                          std::size_t max_bytes);

  // Each returns false when its column has no whole value left.
  bool next_unsigned(std::size_t column, std::uint64_t& value);
  bool next_signed(std::size_t column, std::int64_t& value);
  bool next_double(std::size_t column, double& value);
  // The next `size` bytes of a byte column; valid while the reader lives.
  bool next_bytes(std::size_t column, std::size_t size, std::string_view& bytes);

  // Whether every column was read to its end.
  bool at_end() const;

 private:
  struct Cursor {
    std::size_t at = 0;
    std::size_t end = 0;
    std::uint64_t last_double = 0;
  };
  std::string bytes_;
  std::vector<Cursor> cursors_;
};

// The upper bound of a packed block's inflated size: `rows` rows of `varints` integer and
// `doubles` double columns, and the column lengths in front.
std::size_t packed_columns_bound(std::size_t rows, std::size_t varints, std::size_t doubles);
// The bound for a block with byte columns, whose size its rows do not bound: what deflate can
// give at most for base64 text of `text_size` characters (1032:1).
std::size_t packed_text_bound(std::size_t text_size);

}  // namespace jouleprof
