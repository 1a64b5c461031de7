// Just enough PNG decoding (8-bit RGB/RGBA, non-interlaced: what Chromium writes) to tell a
// rendered page from a blank one in tests.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace jouleprof::testing {

struct PixelStats {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  double non_white_fraction = 0.0;
  std::size_t distinct_colours = 0;  // counted up to 4096
};

inline std::optional<PixelStats> png_pixel_stats(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)),
                                         std::istreambuf_iterator<char>());
  if (bytes.size() < 8 || bytes[1] != 'P' || bytes[2] != 'N' || bytes[3] != 'G')
    return std::nullopt;
  auto be32 = [&](std::size_t at) {
    return (std::uint32_t{bytes[at]} << 24) | (std::uint32_t{bytes[at + 1]} << 16) |
           (std::uint32_t{bytes[at + 2]} << 8) | std::uint32_t{bytes[at + 3]};
  };
  PixelStats stats;
  int channels = 0;
  std::vector<unsigned char> compressed;
  for (std::size_t at = 8; at + 8 <= bytes.size();) {
    const std::uint32_t length = be32(at);
    const std::string type(bytes.begin() + static_cast<long>(at) + 4,
                           bytes.begin() + static_cast<long>(at) + 8);
    if (at + 12 + length > bytes.size()) return std::nullopt;
    const std::size_t data = at + 8;
    if (type == "IHDR") {
      stats.width = be32(data);
      stats.height = be32(data + 4);
      if (bytes[data + 8] != 8 || bytes[data + 12] != 0)
        return std::nullopt;  // 8-bit, not interlaced
      channels = bytes[data + 9] == 6 ? 4 : bytes[data + 9] == 2 ? 3 : 0;
      if (channels == 0) return std::nullopt;
    } else if (type == "IDAT") {
      compressed.insert(compressed.end(), bytes.begin() + static_cast<long>(data),
                        bytes.begin() + static_cast<long>(data + length));
    }
    at += 12 + length;
  }
  const std::size_t stride = std::size_t{stats.width} * static_cast<std::size_t>(channels);
  std::vector<unsigned char> raw((stride + 1) * stats.height);
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, compressed.data(), compressed.size()) != Z_OK ||
      raw_size != raw.size()) {
    return std::nullopt;
  }
  std::vector<unsigned char> image(stride * stats.height);
  const auto bpp = static_cast<std::size_t>(channels);
  for (std::size_t y = 0; y < stats.height; ++y) {
    const unsigned char filter = raw[y * (stride + 1)];
    const unsigned char* line = &raw[y * (stride + 1) + 1];
    unsigned char* out = &image[y * stride];
    const unsigned char* up = y > 0 ? &image[(y - 1) * stride] : nullptr;
    for (std::size_t x = 0; x < stride; ++x) {
      const int a = x >= bpp ? out[x - bpp] : 0;
      const int b = up ? up[x] : 0;
      const int c = (up && x >= bpp) ? up[x - bpp] : 0;
      int predicted = 0;
      switch (filter) {
        case 0:
          predicted = 0;
          break;
        case 1:
          predicted = a;
          break;
        case 2:
          predicted = b;
          break;
        case 3:
          predicted = (a + b) / 2;
          break;
        case 4: {
          const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          predicted = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
          break;
        }
        default:
          return std::nullopt;
      }
      out[x] = static_cast<unsigned char>(line[x] + predicted);
    }
  }
  std::size_t non_white = 0;
  std::unordered_set<std::uint32_t> seen;
  for (std::size_t i = 0; i + bpp <= image.size(); i += bpp) {
    const std::uint32_t rgb =
        (std::uint32_t{image[i]} << 16) | (std::uint32_t{image[i + 1]} << 8) | image[i + 2];
    if (rgb != 0xffffff) ++non_white;
    if (seen.size() < 4096) seen.insert(rgb);
  }
  const std::size_t pixels = std::size_t{stats.width} * stats.height;
  stats.non_white_fraction =
      pixels ? static_cast<double>(non_white) / static_cast<double>(pixels) : 0.0;
  stats.distinct_colours = seen.size();
  return stats;
}

}  // namespace jouleprof::testing
