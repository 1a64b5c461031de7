#include "jouleprof/span_dump.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::TempDir;

Timeline every_feature() {
  Timeline t;
  const auto cpu = t.add_track(Track{TrackKind::kCpuThread, "thread 17", "cpu0"});
  const auto gpu = t.add_track(Track{TrackKind::kGpuStream, "stream 7", "gpu0"});
  const auto attrs =
      t.add_attributes({{"shape", "[32,128]"}, {"note", "quote \" back\\slash\ttab"}});
  const auto step = t.add_span(Span{1'000, 9'000, cpu, t.intern("step"), kNoIndex, kNoIndex,
                                    SpanCategory::kStep, Pass::kNone});
  t.add_span(Span{2'000, 3'000, cpu, t.intern("encoder/layer_3 µ"), step, attrs,
                  SpanCategory::kLayer, Pass::kBackward});
  t.add_span(Span{2'500, 2'600, gpu, t.intern("gemm"), kNoIndex, kNoIndex, SpanCategory::kKernel,
                  Pass::kForward});
  t.add_mark(Mark{9'500, cpu, t.intern("epoch_end")});
  return t;
}

void expect_same(const Timeline& a, const Timeline& b) {
  EXPECT_EQ(a.names(), b.names());
  ASSERT_EQ(a.tracks().size(), b.tracks().size());
  for (std::size_t i = 0; i < a.tracks().size(); ++i) {
    EXPECT_EQ(a.tracks()[i].kind, b.tracks()[i].kind);
    EXPECT_EQ(a.tracks()[i].name, b.tracks()[i].name);
    EXPECT_EQ(a.tracks()[i].device, b.tracks()[i].device);
  }
  ASSERT_EQ(a.spans().size(), b.spans().size());
  for (std::size_t i = 0; i < a.spans().size(); ++i) {
    const Span& x = a.spans()[i];
    const Span& y = b.spans()[i];
    EXPECT_EQ(x.begin_ns, y.begin_ns);
    EXPECT_EQ(x.end_ns, y.end_ns);
    EXPECT_EQ(x.track, y.track);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.parent, y.parent);
    EXPECT_EQ(x.attributes, y.attributes);
    EXPECT_EQ(x.category, y.category);
    EXPECT_EQ(x.pass, y.pass);
  }
  ASSERT_EQ(a.marks().size(), b.marks().size());
  for (std::size_t i = 0; i < a.marks().size(); ++i) {
    EXPECT_EQ(a.marks()[i].t_ns, b.marks()[i].t_ns);
    EXPECT_EQ(a.marks()[i].track, b.marks()[i].track);
    EXPECT_EQ(a.marks()[i].name, b.marks()[i].name);
  }
  EXPECT_EQ(a.attributes(), b.attributes());
}

TEST(SpanDump, RoundTripThroughAFile) {
  const TempDir dir;
  const SpanDump dump{every_feature(), 4242, 7, "tsc", {{"RANK", "3"}, {"WORLD_SIZE", "4"}}};
  const std::string path = (dir.path() / "spans.json").string();
  ASSERT_TRUE(write_span_dump(dump, path).ok());
  auto back = read_span_dump(path);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->pid, 4242);
  EXPECT_EQ(back->dropped, 7U);
  EXPECT_EQ(back->recorder_clock, "tsc");
  EXPECT_EQ(back->launcher_environment, dump.launcher_environment);
  expect_same(dump.timeline, back->timeline);
  EXPECT_EQ(back->timeline.path_of(1), "step/encoder/layer_3 µ");
}

TEST(SpanDump, InvalidUtf8BecomesReplacementCharacters) {
  Timeline t;
  const auto track = t.add_track(Track{TrackKind::kCpuThread, "thread 1", "cpu0"});
  t.add_span(Span{0, 1, track, t.intern(std::string("bad\xff\xc3(") + "\x01")});
  auto back = span_dump_from_json(span_dump_to_json(SpanDump{t, 0, 0, ""}), "mem");
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->timeline.name(0), "bad\xEF\xBF\xBD\xEF\xBF\xBD(\x01");
}

std::string error_of(const std::string& text) {
  auto r = span_dump_from_json(text, "dump.json");
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.error().message();
}

std::string with_spans(const std::string& spans) {
  return R"({"format":"jouleprof-spans","version":1,"clock":"CLOCK_MONOTONIC","names":["a"],)"
         R"("tracks":[{"kind":"cpu-thread","name":"t","device":"cpu0"}],"attributes":[],"spans":[)" +
         spans + R"(],"marks":[]})";
}

TEST(SpanDump, RejectsBadDumpsWithTheField) {
  EXPECT_TRUE(span_dump_from_json(with_spans("[0,1,0,0,-1,-1,0,0]"), "ok").ok());
  EXPECT_NE(error_of(with_spans("[0,1,0,0,-1,-1,0,0],[0,1,0,0,5,-1,0,0]")).find("spans[1][4]"),
            std::string::npos);
  EXPECT_NE(error_of(with_spans("[0,1,0,0,1,-1,0,0]")).find("earlier span"), std::string::npos)
      << "a parent after its child could form a cycle";
  EXPECT_NE(error_of(with_spans("[5,1,0,0,-1,-1,0,0]")).find("before begin_ns"), std::string::npos);
  EXPECT_NE(error_of(with_spans("[0,1,3,0,-1,-1,0,0]")).find("no such track"), std::string::npos);
  EXPECT_NE(error_of(with_spans("[0,1,0,0,-1,-1,42,0]")).find("category"), std::string::npos);
  EXPECT_NE(error_of(with_spans("[0,1,0]")).find("spans[0]"), std::string::npos);
  EXPECT_NE(error_of(with_spans("[0,1,0,0,-1,-1,0,0]").substr(0, 90)).find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"format":"other"})").find("not a jouleprof span dump"), std::string::npos);
  EXPECT_NE(error_of(R"({"format":"jouleprof-spans","version":1,"clock":"CLOCK_MONOTONIC",)"
                     R"("launcher_environment":{"RANK":3}})")
                .find("launcher_environment.RANK"),
            std::string::npos);
  // simdjson's lookup would take the first of two values without a word.
  std::string spans_twice = with_spans("[0,1,0,0,-1,-1,0,0]");
  spans_twice.insert(spans_twice.size() - 1, R"(,"spans":[])");
  EXPECT_NE(error_of(spans_twice).find("(document): key 'spans' appears twice in one object"),
            std::string::npos)
      << error_of(spans_twice);
  std::string name_twice = with_spans("[0,1,0,0,-1,-1,0,0]");
  name_twice.replace(name_twice.find(R"("name":"t")"), 10, R"("name":"t","name":"u")");
  EXPECT_NE(error_of(name_twice).find("tracks[0]: key 'name' appears twice"), std::string::npos)
      << error_of(name_twice);
  auto future = span_dump_from_json(R"({"format":"jouleprof-spans","version":2})", "v2.json");
  ASSERT_FALSE(future.ok());
  EXPECT_EQ(future.error().code(), ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace jouleprof
