#include "jouleprof/trace_attach.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace jouleprof {
namespace {

namespace fs = std::filesystem;

Series counter(TimeNs begin_ns, TimeNs end_ns) {
  Series s(Channel{"meter", "test", "", "", ChannelKind::kEnergyCounter, Provenance::kMeasured, "",
                   "", kNsPerMs, 0});
  for (TimeNs t = begin_ns; t <= end_ns; t += 10 * kNsPerMs)
    EXPECT_TRUE(s.append(t, 10.0 * ns_to_s(t - begin_ns)).ok());
  return s;
}

// One 0.5 s span at 0.1 s of the trace's own clock.
constexpr const char* kOneStep =
    R"({"traceEvents":[{"name":"step","ph":"X","ts":100000,"dur":500000,"pid":1,"tid":1}]})";

// Each test writes its trace into a directory of its own.
class TraceAttach : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("jouleprof-trace-attach-" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  fs::path dir_;
};

TEST_F(TraceAttach, AnOffsetPlacesTheTraceAndIsRecorded) {
  Profile p;
  p.series.push_back(counter(kNsPerS, 3 * kNsPerS));
  const std::string trace = write("trace.json", kOneStep);
  AttachTraceOptions options;
  options.offset_ns = kNsPerS;  // trace time 0.1 s -> monotonic 1.1 s
  Result<AttachedTrace> attached = attach_trace(p, trace, options);
  ASSERT_TRUE(attached.ok()) << attached.error().message();
  ASSERT_EQ(p.timeline.spans().size(), 1U);
  EXPECT_EQ(p.timeline.spans()[0].begin_ns, kNsPerS + 100 * kNsPerMs);
  EXPECT_EQ(p.meta.options.trace.path, trace);
  EXPECT_EQ(p.meta.options.trace.offset_ns, kNsPerS);
  EXPECT_EQ(p.meta.options.trace.clock_mapping, attached->clock_mapping);
}

TEST_F(TraceAttach, ATraceOutsideTheSamplesIsRefusedWithTheFix) {
  Profile p;
  p.series.push_back(counter(kNsPerS, 3 * kNsPerS));
  const std::string trace = write("trace.json", kOneStep);
  AttachTraceOptions options;
  options.offset_ns = 100 * kNsPerS;
  Result<AttachedTrace> attached = attach_trace(p, trace, options);
  ASSERT_FALSE(attached.ok());
  EXPECT_NE(attached.error().message().find("to fix it,"), std::string::npos)
      << attached.error().message();
  EXPECT_NE(attached.error().message().find("the profile's samples"), std::string::npos);
  EXPECT_FALSE(attach_trace(p, (dir_ / "missing.json").string()).ok());
}

}  // namespace
}  // namespace jouleprof
