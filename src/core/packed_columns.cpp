#include "core/packed_columns.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <array>
#include <bit>
#include <cstring>
#include <limits>

namespace jouleprof {
namespace {

// Deflate's fastest level: a million-span profile packs to 6.4 MB in 0.24 s, where level 6 gives
// 6.0 MB in 0.47 s and level 9 5.9 MB in 2.1 s (bench/profile_output_bench.cpp, 2 vCPUs).
constexpr int kDeflateLevel = 1;
constexpr std::size_t kMaxVarintBytes = 10;

// What is wrong with a block's text, as a predicate of the field that holds it (the caller names
// the field).
Error problem(std::string what) { return Error(ErrorCode::kInvalidInput, std::move(what)); }

void append_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// Reads one varint from bytes[at, end); false when it runs past `end` or past 64 bits.
bool read_varint(const std::string& bytes, std::size_t& at, std::size_t end, std::uint64_t& value) {
  value = 0;
  for (unsigned shift = 0; shift < 64 && at < end; shift += 7) {
    const auto byte = static_cast<unsigned char>(bytes[at++]);
    if (shift == 63 && byte > 1) return false;
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

constexpr std::string_view kBase64Alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(bytes[k]); };
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t triple = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
    out += kBase64Alphabet[(triple >> 18) & 63];
    out += kBase64Alphabet[(triple >> 12) & 63];
    out += kBase64Alphabet[(triple >> 6) & 63];
    out += kBase64Alphabet[triple & 63];
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    const std::uint32_t triple = (at(i) << 16) | (rest == 2 ? at(i + 1) << 8 : 0);
    out += kBase64Alphabet[(triple >> 18) & 63];
    out += kBase64Alphabet[(triple >> 12) & 63];
    out += rest == 2 ? kBase64Alphabet[(triple >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

Result<std::string> base64_decode(std::string_view text) {
  std::array<int, 256> value{};
  value.fill(-1);
  for (std::size_t i = 0; i < kBase64Alphabet.size(); ++i) {
    value[static_cast<unsigned char>(kBase64Alphabet[i])] = static_cast<int>(i);
  }
  std::size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') {
    ++padding;
  }
  if (text.size() % 4 != 0) {
    return problem(
        fmt::format("is not base64: its length, {}, is not a multiple of 4", text.size()));
  }
  std::string out;
  out.reserve(text.size() / 4 * 3);
  std::uint32_t bits = 0;
  const std::size_t digits = text.size() - padding;
  for (std::size_t i = 0; i < digits; ++i) {
    const int v = value[static_cast<unsigned char>(text[i])];
    if (v < 0) {
      return problem(fmt::format("is not base64: character {} is outside its alphabet", i));
    }
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
    if (i % 4 == 3) {
      out += static_cast<char>(bits >> 16);
      out += static_cast<char>(bits >> 8);
      out += static_cast<char>(bits);
      bits = 0;
    }
  }
  if (padding == 2) out += static_cast<char>(bits >> 4);
  if (padding == 1) {
    out += static_cast<char>(bits >> 10);
    out += static_cast<char>(bits >> 2);
  }
  return out;
}

// zlib counts in 32-bit units: input goes in and output comes out in pieces of at most this.
constexpr std::size_t kZlibPiece = std::size_t{1} << 30;
constexpr std::size_t kOutputPiece = std::size_t{1} << 16;

std::string deflate_bytes(const std::string& raw) {
  z_stream z{};
  deflateInit(&z, kDeflateLevel);
  std::string out;
  out.reserve(deflateBound(&z, raw.size()));
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  std::size_t left = raw.size();
  int flush = Z_NO_FLUSH;
  char piece[kOutputPiece];
  while (flush != Z_FINISH) {
    const std::size_t in = std::min(left, kZlibPiece);
    z.avail_in = static_cast<uInt>(in);
    left -= in;
    flush = left == 0 ? Z_FINISH : Z_NO_FLUSH;
    do {
      z.next_out = reinterpret_cast<Bytef*>(piece);
      z.avail_out = sizeof piece;
      deflate(&z, flush);
      out.append(piece, sizeof piece - z.avail_out);
    } while (z.avail_out == 0);
  }
  deflateEnd(&z);
  return out;
}

Result<std::string> inflate_bytes(const std::string& packed, std::size_t max_bytes) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return Error(ErrorCode::kInternal, "zlib cannot start inflating");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  std::size_t left = packed.size();
  std::string out;
  char piece[kOutputPiece];
  int status = Z_OK;
  while (status == Z_OK && out.size() <= max_bytes) {
    if (z.avail_in == 0) {
      const std::size_t in = std::min(left, kZlibPiece);
      z.avail_in = static_cast<uInt>(in);
      left -= in;
    }
    z.next_out = reinterpret_cast<Bytef*>(piece);
    z.avail_out = sizeof piece;
    status = inflate(&z, Z_NO_FLUSH);
    out.append(piece, sizeof piece - z.avail_out);
    // No progress is possible once the input is spent and the output has room.
    if (status == Z_BUF_ERROR && z.avail_out != 0 && z.avail_in == 0 && left == 0) break;
    if (status == Z_BUF_ERROR) status = Z_OK;
  }
  const bool whole = status == Z_STREAM_END;
  const bool trailing = whole && (z.avail_in != 0 || left != 0);
  inflateEnd(&z);
  if (out.size() > max_bytes) {
    return problem(fmt::format("inflates beyond the {} bytes its rows can hold", max_bytes));
  }
  if (!whole)
    return problem(fmt::format("is not a whole deflate stream ({} bytes)", packed.size()));
  if (trailing) return problem("holds bytes after the end of its deflate stream");
  return out;
}

}  // namespace

std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}

std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

void PackedColumnsWriter::put_unsigned(std::size_t column, std::uint64_t value) {
  append_varint(columns_[column], value);
}

void PackedColumnsWriter::put_signed(std::size_t column, std::int64_t value) {
  append_varint(columns_[column], zigzag(value));
}

void PackedColumnsWriter::put_double(std::size_t column, double value) {
  const auto bits = std::bit_cast<std::uint64_t>(value);
  const std::uint64_t delta = bits ^ last_double_[column];
  last_double_[column] = bits;
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(delta >> (8 * i));
  columns_[column].append(bytes, 8);
}

void PackedColumnsWriter::put_bytes(std::size_t column, std::string_view bytes) {
  columns_[column].append(bytes);
}

std::string PackedColumnsWriter::finish() const {
  std::string raw;
  std::size_t size = kMaxVarintBytes * (1 + columns_.size());
  for (const std::string& c : columns_) size += c.size();
  raw.reserve(size);
  append_varint(raw, columns_.size());
  for (const std::string& c : columns_) append_varint(raw, c.size());
  for (const std::string& c : columns_) raw += c;
  return base64_encode(deflate_bytes(raw));
}

std::size_t packed_columns_bound(std::size_t rows, std::size_t varints, std::size_t doubles) {
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  const std::size_t per_row = varints * kMaxVarintBytes + doubles * 8;
  if (per_row != 0 && rows > (kMax / 2) / per_row) return kMax / 2;
  return kMaxVarintBytes * (1 + varints + doubles) + rows * per_row;
}

std::size_t packed_text_bound(std::size_t text_size) {
  constexpr std::size_t kDeflateMaxRatio = 1032;
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max() / 2;
  const std::size_t packed = text_size / 4 * 3 + 3;
  return packed > kMax / kDeflateMaxRatio ? kMax : packed * kDeflateMaxRatio + 64;
}

Result<PackedColumnsReader> PackedColumnsReader::open(std::string_view text, std::size_t columns,
                                                      std::size_t max_bytes) {
  JP_TRY(std::string packed, base64_decode(text));
  PackedColumnsReader reader;
  JP_TRY(reader.bytes_, inflate_bytes(packed, max_bytes));
  const std::string& bytes = reader.bytes_;
  std::size_t at = 0;
  std::uint64_t count = 0;
  if (!read_varint(bytes, at, bytes.size(), count) || count != columns) {
    return problem(fmt::format("holds {} columns where {} belong", count, columns));
  }
  std::vector<std::uint64_t> lengths(columns);
  for (std::uint64_t& length : lengths) {
    if (!read_varint(bytes, at, bytes.size(), length)) {
      return problem("has its column lengths cut short");
    }
  }
  for (const std::uint64_t length : lengths) {
    if (length > bytes.size() - at) {
      return problem(fmt::format("has a column of {} bytes, past the end of the block", length));
    }
    reader.cursors_.push_back(Cursor{at, at + length, 0});
    at += length;
  }
  if (at != bytes.size()) {
    return problem(fmt::format("has {} bytes left over after its columns", bytes.size() - at));
  }
  return reader;
}

bool PackedColumnsReader::next_unsigned(std::size_t column, std::uint64_t& value) {
  Cursor& c = cursors_[column];
  return read_varint(bytes_, c.at, c.end, value);
}

bool PackedColumnsReader::next_signed(std::size_t column, std::int64_t& value) {
  std::uint64_t raw = 0;
  if (!next_unsigned(column, raw)) return false;
  value = unzigzag(raw);
  return true;
}

bool PackedColumnsReader::next_double(std::size_t column, double& value) {
  Cursor& c = cursors_[column];
  if (c.end - c.at < 8) return false;
  std::uint64_t delta = 0;
  for (int i = 0; i < 8; ++i) {
    delta |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes_[c.at + i])) << (8 * i);
  }
  c.at += 8;
  c.last_double ^= delta;
  value = std::bit_cast<double>(c.last_double);
  return true;
}

bool PackedColumnsReader::next_bytes(std::size_t column, std::size_t size,
                                     std::string_view& bytes) {
  Cursor& c = cursors_[column];
  if (c.end - c.at < size) return false;
  bytes = std::string_view(bytes_).substr(c.at, size);
  c.at += size;
  return true;
}

bool PackedColumnsReader::at_end() const {
  for (const Cursor& c : cursors_) {
    if (c.at != c.end) return false;
  }
  return true;
}

}  // namespace jouleprof
