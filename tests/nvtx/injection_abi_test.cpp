// libjouleprof_nvtx.so driven the way an NVTX client drives an injection library: loaded with
// dlopen, initialised with the client's export table, then called through the slots it filled.
// What this checks is the library against our reading of the NVTX v3 ABI (fake_nvtx_client.hpp);
// tests/nvtx/nvtx_program.cpp checks it against NVIDIA's headers where they are installed.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "fake_nvtx_client.hpp"
#include "jouleprof/jouleprof.h"
#include "test_support.hpp"

namespace jouleprof::nvtx {
namespace {

using testing::FakeNvtxClient;

using PushA = int (*)(const char*);
using PushEx = int (*)(const EventAttributes*);
using Pop = int (*)();
using StartA = RangeId (*)(const char*);
using End = void (*)(RangeId);
using MarkA = void (*)(const char*);
using DomainPushEx = int (*)(DomainHandle, const EventAttributes*);
using DomainPop = int (*)(DomainHandle);
using RegisterString = StringHandle (*)(DomainHandle, const char*);

struct RecordedSpan {
  std::string name;
  std::string track;
  std::string parent;
};

// jp_recorder_write_spans, read back with nothing but a JSON parser (this test links only
// libjouleprof.so, whose C++ internals are not exported).
std::vector<RecordedSpan> recorded_spans(const jouleprof::testing::TempDir& dir,
                                         std::vector<std::string>* marks) {
  const std::string path = (dir.path() / "spans.json").string();
  EXPECT_EQ(jp_recorder_write_spans(path.c_str()), JP_OK) << jp_last_error();
  std::ifstream in(path);
  const nlohmann::json dump = nlohmann::json::parse(in);
  const auto& names = dump.at("names");
  std::vector<RecordedSpan> spans;
  for (const auto& s : dump.at("spans")) {
    const std::int64_t parent = s.at(4).get<std::int64_t>();
    spans.push_back({names.at(s.at(3).get<std::size_t>()).get<std::string>(),
                     dump.at("tracks").at(s.at(2).get<std::size_t>()).at("name").get<std::string>(),
                     parent < 0 ? "" : spans.at(static_cast<std::size_t>(parent)).name});
  }
  for (const auto& m : dump.at("marks"))
    marks->push_back(names.at(m.at(2).get<std::size_t>()).get<std::string>());
  return spans;
}

const RecordedSpan* find(const std::vector<RecordedSpan>& spans, const std::string& name) {
  for (const RecordedSpan& s : spans) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

EventAttributes ascii_attributes(const char* message) {
  EventAttributes a{};
  a.version = 3;
  a.size = sizeof(EventAttributes);
  a.message_type = kMessageAscii;
  a.message.ascii = message;
  return a;
}

class InjectionAbi : public ::testing::Test {
 protected:
  void SetUp() override { FakeNvtxClient::reset(); }
  FakeNvtxClient client;
};

TEST_F(InjectionAbi, InstallsHandlersForTheCoreAndDomainModules) {
  ASSERT_EQ(client.attach(JOULEPROF_NVTX_LIBRARY), 1) << client.error();
  for (unsigned id : {kMarkEx, kMarkA, kMarkW, kRangeStartEx, kRangeStartA, kRangeStartW, kRangeEnd,
                      kRangePushEx, kRangePushA, kRangePushW, kRangePop}) {
    EXPECT_NE(FakeNvtxClient::core<void (*)()>(id), nullptr) << "core callback " << id;
  }
  for (unsigned id : {kDomainMarkEx, kDomainRangeStartEx, kDomainRangeEnd, kDomainRangePushEx,
                      kDomainRangePop, kDomainRegisterStringA}) {
    EXPECT_NE(FakeNvtxClient::core2<void (*)()>(id), nullptr) << "core2 callback " << id;
  }
  // Names of categories and threads are not used: their slots stay the client's.
  EXPECT_EQ(FakeNvtxClient::core<void (*)()>(12), nullptr);
}

TEST_F(InjectionAbi, RefusesAnExportTableItDoesNotUnderstand) {
  FakeNvtxClient::callbacks().struct_size = sizeof(std::size_t);  // an older, smaller table
  EXPECT_EQ(client.attach(JOULEPROF_NVTX_LIBRARY), 0);
  EXPECT_EQ(FakeNvtxClient::core<void (*)()>(kRangePushA), nullptr);
}

TEST_F(InjectionAbi, PushPopRangesNestOnTheirThreadAndReturnNvtxLevels) {
  ASSERT_EQ(client.attach(JOULEPROF_NVTX_LIBRARY), 1) << client.error();
  const jouleprof::testing::TempDir dir;
  jp_recorder_start();
  const auto push_a = FakeNvtxClient::core<PushA>(kRangePushA);
  const auto push_ex = FakeNvtxClient::core<PushEx>(kRangePushEx);
  const auto pop = FakeNvtxClient::core<Pop>(kRangePop);
  const auto mark = FakeNvtxClient::core<MarkA>(kMarkA);
  EXPECT_EQ(push_a("train_step"), 0);  // NVTX: the 0-based level of the range begun
  const EventAttributes forward = ascii_attributes("forward");
  EXPECT_EQ(push_ex(&forward), 1);
  mark("checkpoint");
  EXPECT_EQ(pop(), 1);  // NVTX: the level of the range ended
  EXPECT_EQ(pop(), 0);
  EXPECT_EQ(pop(), -1);  // a pop without a push
  std::thread([&] {
    EXPECT_EQ(push_a("loader"), 0);  // levels are per thread
    EXPECT_EQ(pop(), 0);
  }).join();
  jp_recorder_stop();

  std::vector<std::string> marks;
  const std::vector<RecordedSpan> spans = recorded_spans(dir, &marks);
  ASSERT_EQ(spans.size(), 3U);
  ASSERT_NE(find(spans, "forward"), nullptr);
  EXPECT_EQ(find(spans, "forward")->parent, "train_step");
  ASSERT_NE(find(spans, "loader"), nullptr);
  EXPECT_NE(find(spans, "loader")->track, find(spans, "train_step")->track);
  EXPECT_EQ(marks, std::vector<std::string>{"checkpoint"});
}

TEST_F(InjectionAbi, StartEndRangesMayEndOnAnotherThread) {
  ASSERT_EQ(client.attach(JOULEPROF_NVTX_LIBRARY), 1) << client.error();
  const jouleprof::testing::TempDir dir;
  jp_recorder_start();
  const auto start = FakeNvtxClient::core<StartA>(kRangeStartA);
  const auto end = FakeNvtxClient::core<End>(kRangeEnd);
  const RangeId a = start("request 1");
  const RangeId b = start("request 2");
  EXPECT_NE(a, b);
  std::thread([&] { end(a); }).join();
  end(b);
  end(b);           // ended twice: recorded once
  end(RangeId{0});  // never started: ignored
  jp_recorder_stop();

  std::vector<std::string> marks;
  const std::vector<RecordedSpan> spans = recorded_spans(dir, &marks);
  ASSERT_EQ(spans.size(), 2U);
  EXPECT_EQ(find(spans, "request 1")->track, "nvtx ranges");
  EXPECT_EQ(find(spans, "request 2")->track, "nvtx ranges");
}

TEST_F(InjectionAbi, DomainRangesUseRegisteredAndWideMessages) {
  ASSERT_EQ(client.attach(JOULEPROF_NVTX_LIBRARY), 1) << client.error();
  const jouleprof::testing::TempDir dir;
  jp_recorder_start();
  const auto register_string = FakeNvtxClient::core2<RegisterString>(kDomainRegisterStringA);
  const auto push = FakeNvtxClient::core2<DomainPushEx>(kDomainRangePushEx);
  const auto pop = FakeNvtxClient::core2<DomainPop>(kDomainRangePop);
  EventAttributes registered{};
  registered.message_type = kMessageRegistered;
  registered.message.registered = register_string(nullptr, "allreduce");
  EventAttributes wide{};
  wide.message_type = kMessageUnicode;
  wide.message.unicode = L"decode\u00e9";
  EventAttributes unnamed{};  // message type unknown
  EXPECT_EQ(push(nullptr, &registered), 0);
  EXPECT_EQ(push(nullptr, &wide), 1);
  EXPECT_EQ(pop(nullptr), 1);
  EXPECT_EQ(push(nullptr, &unnamed), 1);
  EXPECT_EQ(pop(nullptr), 1);
  EXPECT_EQ(pop(nullptr), 0);
  jp_recorder_stop();

  std::vector<std::string> marks;
  const std::vector<RecordedSpan> spans = recorded_spans(dir, &marks);
  ASSERT_NE(find(spans, "allreduce"), nullptr);
  ASSERT_NE(find(spans, "decode?"), nullptr);
  EXPECT_EQ(find(spans, "decode?")->parent, "allreduce");
  ASSERT_NE(find(spans, "[nvtx: unnamed]"), nullptr);
}

}  // namespace
}  // namespace jouleprof::nvtx
