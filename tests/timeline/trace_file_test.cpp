#include "timeline/trace_file.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <functional>
#include <string>

#include "test_support.hpp"

namespace jouleprof::timeline {
namespace {

using ::jouleprof::testing::TempDir;

std::string gzip(const std::string& text) {
  z_stream stream{};
  deflateInit2(&stream, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, static_cast<uLong>(text.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

// Runs `body` in a child process whose address space may grow by at most `headroom_mb` MB: an
// allocation the input talked the reader into fails there instead of succeeding quietly.
// Returns the child's exit status (0: body returned true).
int with_memory_limit(std::size_t headroom_mb, const std::function<bool()>& body) {
  const pid_t pid = fork();
  if (pid == 0) {
    rlimit limit{};
    getrlimit(RLIMIT_AS, &limit);
    std::FILE* statm = std::fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (statm == nullptr || std::fscanf(statm, "%lu", &pages) != 1) _exit(3);
    std::fclose(statm);
    limit.rlim_cur =
        pages * static_cast<unsigned long>(sysconf(_SC_PAGESIZE)) + headroom_mb * 1024 * 1024;
    setrlimit(RLIMIT_AS, &limit);
    _exit(body() ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;  // their shadow memory cannot live under an address-space limit
#else
constexpr bool kSanitized = false;
#endif

TEST(TraceFile, PlainAndGzippedTextIsPadded) {
  TempDir dir;
  const auto plain = dir.write("t.json", "{\"traceEvents\": []}");
  const auto gz = dir.write("t.json.gz", gzip("{\"traceEvents\": []}"));
  for (const auto& path : {plain, gz}) {
    const Result<TraceText> text = read_trace_file(path.string());
    ASSERT_TRUE(text.ok()) << text.error().message();
    EXPECT_EQ(text->view(), "{\"traceEvents\": []}");
    EXPECT_EQ(text->capacity(), text->size() + TraceText::kPadding);
  }
}

TEST(TraceFile, AGzipTrailerIsNotTrustedForAllocation) {
  if (kSanitized) GTEST_SKIP() << "needs an address-space limit";
  TempDir dir;
  std::string bomb = gzip("{\"traceEvents\": []}");
  for (int k = 1; k <= 4; ++k) bomb[bomb.size() - static_cast<std::size_t>(k)] = '\xff';  // 4 GiB
  const auto path = dir.write("bomb.json.gz", bomb);
  const int status = with_memory_limit(256, [&] {
    const Result<TraceText> text = read_trace_file(path.string());
    return !text.ok() && text.error().message().find("not valid gzip data") != std::string::npos;
  });
  EXPECT_EQ(status, 0) << "the reader allocated what the trailer claimed, or crashed";
}

TEST(TraceFile, TextBeyondMemoryIsAnErrorNotAnAbort) {
  if (kSanitized) GTEST_SKIP() << "needs an address-space limit";
  TempDir dir;
  // 512 MB of text in a 0.5 MB file, read with 128 MB to spare.
  const auto path = dir.write("huge.json.gz", gzip(std::string(512u << 20, ' ')));
  const int status = with_memory_limit(128, [&] {
    const Result<TraceText> text = read_trace_file(path.string());
    return !text.ok() &&
           text.error().message().find("too large to hold in memory") != std::string::npos;
  });
  EXPECT_EQ(status, 0);
}

TEST(TraceFile, ADirectoryIsNamedAsSuch) {
  TempDir dir;
  const Result<TraceText> text = read_trace_file(dir.path().string());
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().message(), dir.path().string() + ": is a directory, not a trace");
}

}  // namespace
}  // namespace jouleprof::timeline
