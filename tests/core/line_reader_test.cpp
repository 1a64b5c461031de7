#include "core/line_reader.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <fstream>

#include "test_support.hpp"

namespace jouleprof {
namespace {

struct Line {
  std::size_t number;
  std::uint64_t offset;
  std::string text;
  bool terminated;
  bool operator==(const Line&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Line& line) {
  return out << line.number << "@" << line.offset << " '" << line.text << "'"
             << (line.terminated ? "" : " (unterminated)");
}

Result<std::vector<Line>> all_lines(LineReader& reader) {
  std::vector<Line> lines;
  JP_RETURN_IF_ERROR(for_each_line(reader, [&](const TextLine& line) {
    lines.push_back({line.number, line.offset, std::string(line.text), line.terminated});
    return Status::Ok();
  }));
  return lines;
}

std::vector<Line> lines_of_file(const std::string& content) {
  testing::TempDir dir;
  Result<LineReader> reader = LineReader::open(dir.write("f.txt", content).string(), "log");
  EXPECT_TRUE(reader.ok()) << reader.error().message();
  Result<std::vector<Line>> lines = all_lines(*reader);
  EXPECT_TRUE(lines.ok()) << lines.error().message();
  return lines.ok() ? *lines : std::vector<Line>{};
}

TEST(LineReader, LinesKnowTheirNumberOffsetAndWhetherTheyEnded) {
  const std::vector<Line> expected = {
      {1, 0, "a", true}, {2, 3, "", true}, {3, 4, "last", false}};  // how a cut-off log shows
  LineReader in_memory = LineReader::over_text("a\r\n\nlast", "text");
  EXPECT_EQ(*all_lines(in_memory), expected);
  EXPECT_EQ(lines_of_file("a\r\n\nlast"), expected);
  EXPECT_EQ(lines_of_file(""), std::vector<Line>{});
  EXPECT_EQ(lines_of_file("only\n"), (std::vector<Line>{{1, 0, "only", true}}));
  EXPECT_EQ(lines_of_file("\r\n"), (std::vector<Line>{{1, 0, "", true}}));
}

TEST(LineReader, NulBytesAreTextLikeAnyOther) {
  const std::string content("a\0b\n\0\n", 6);
  EXPECT_EQ(lines_of_file(content), (std::vector<Line>{{1, 0, std::string("a\0b", 3), true},
                                                       {2, 4, std::string(1, '\0'), true}}));
}

TEST(LineReader, LinesAcrossChunkBoundariesAreWhole) {
  // Line lengths that put breaks, '\r's and line starts on each side of the 64 KiB chunks.
  std::string content;
  std::vector<Line> expected;
  std::size_t number = 0;
  for (std::size_t length : {65535u, 0u, 1u, 65534u, 3u, 131072u, 7u, 65536u, 200000u, 2u}) {
    const std::string text(length, static_cast<char>('a' + number % 26));
    expected.push_back({++number, content.size(), text, true});
    content += text + (number % 2 == 0 ? "\r\n" : "\n");
  }
  content += "end";
  expected.push_back({++number, content.size() - 3, "end", false});
  EXPECT_EQ(lines_of_file(content), expected);
  LineReader in_memory = LineReader::over_text(content, "text");
  EXPECT_EQ(*all_lines(in_memory), expected);
}

TEST(LineReader, ALineLongerThanTheLimitIsRefusedWhereItStarts) {
  testing::TempDir dir;
  const std::string content =
      "header\n" + std::string(kMaxLineBytes, 'x') + "\n" + std::string(3 * kMaxLineBytes, '\0');
  const std::string path = dir.write("big.csv", content).string();
  Result<LineReader> reader = LineReader::open(path, "samples file");
  ASSERT_TRUE(reader.ok());
  const Result<std::vector<Line>> lines = all_lines(*reader);
  ASSERT_FALSE(lines.ok());
  std::string quoted_nuls;
  for (int i = 0; i < 80; ++i) quoted_nuls += "\\0";
  EXPECT_EQ(lines.error().message(),
            path + ": field 'line 3' has value '" + quoted_nuls +
                "…' (1048576 bytes): goes on past 1048576 bytes (1 MiB), the longest line "
                "jouleprof reads (line 3 starts at byte " +
                std::to_string(7 + kMaxLineBytes + 1) + ")");
  EXPECT_FALSE(reader->next()->has_value());  // nothing after the error

  // A line of exactly the limit is taken, in memory as from a file.
  const std::string longest = std::string(kMaxLineBytes, 'y') + "\r\nz";
  LineReader in_memory = LineReader::over_text(longest, "text");
  ASSERT_TRUE(all_lines(in_memory).ok());
}

TEST(LineReader, AVisitorsErrorGainsWhereItsLineStarts) {
  LineReader reader = LineReader::over_text("ok\nok\nbad\nok\n", "f.csv");
  std::size_t visited = 0;
  const Status status = for_each_line(reader, [&](const TextLine& line) -> Status {
    ++visited;
    if (line.text == "bad") return invalid_input("f.csv:3", "value", line.text, "is bad");
    return Status::Ok();
  });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message(),
            "f.csv:3: field 'value' has value 'bad': is bad (line 3 starts at byte 6)");
  EXPECT_EQ(visited, 3u);  // the first bad line ends the reading
}

TEST(LineReader, OpeningFailsAsReadingAWholeFileDoes) {
  testing::TempDir dir;
  const Result<LineReader> missing = LineReader::open((dir.path() / "no").string(), "epoch file");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(
      missing.error().message(),
      (dir.path() / "no").string() + ": cannot open the epoch file: No such file or directory");
  const Result<LineReader> directory = LineReader::open(dir.path().string(), "epoch file");
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().message(),
            dir.path().string() + ": is a directory, not a epoch file");
}

long max_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

TEST(LineReader, MemoryIsBoundedByTheLongestLineNotTheFile) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "big.txt").string();
  {
    std::ofstream out(path, std::ios::binary);
    const std::string line(999, 'x');
    for (int i = 0; i < 64 * 1024; ++i) out << line << '\n';  // 64 MiB
  }
  const long before_kib = max_rss_kib();
  Result<LineReader> reader = LineReader::open(path, "log");
  ASSERT_TRUE(reader.ok());
  std::size_t count = 0;
  ASSERT_TRUE(for_each_line(*reader, [&](const TextLine&) {
                ++count;
                return Status::Ok();
              }).ok());
  EXPECT_EQ(count, 64u * 1024u);
  EXPECT_LT(max_rss_kib() - before_kib, 8 * 1024) << "KiB more than before reading";
}

}  // namespace
}  // namespace jouleprof
