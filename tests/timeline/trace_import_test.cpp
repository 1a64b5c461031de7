// Chrome trace import on small fixtures: Kineto's format, TensorFlow's timeline, generic traces,
// clock mapping and bad input.
#include "jouleprof/trace_import.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <string>

#include "jouleprof/span_dump.hpp"
#include "test_support.hpp"

namespace jouleprof {
namespace {

using testing::fixtures;
using testing::TempDir;

// Kineto fixture: base 1790857026 s; the first event (ProfilerStep#3, imported as the step "step")
// at ts 5132481000000 µs.
constexpr TimeNs kKinetoFirstEventRealtimeNs = 1'790'857'026'000'000'000 + 5'132'481'000'000'000;
constexpr TimeNs kMonotonicAtFirstEventNs = 5'000'000'000;

std::uint32_t only_span(const Timeline& t, std::string_view name) {
  std::uint32_t found = kNoIndex;
  int count = 0;
  for (std::uint32_t i = 0; i < t.spans().size(); ++i) {
    if (t.name(t.spans()[i].name) == name) {
      found = i;
      ++count;
    }
  }
  EXPECT_EQ(count, 1) << name;
  return found;
}

std::string attribute(const Timeline& t, std::uint32_t span, std::string_view key) {
  const std::uint32_t set = t.spans()[span].attributes;
  if (set == kNoIndex) return "";
  return std::string(t.attributes()[set].find(key).value_or(""));
}

TraceImport import_kineto_fixture() {
  TraceImportOptions options;
  options.anchor = ClockAnchor{kMonotonicAtFirstEventNs, kKinetoFirstEventRealtimeNs};
  auto imported = import_trace((fixtures() / "timeline/kineto_small.json").string(), options);
  EXPECT_TRUE(imported.ok()) << imported.error().message();
  return std::move(imported).value();
}

TEST(KinetoImport, TracksFromProcessesThreadsAndStreams) {
  const TraceImport imported = import_kineto_fixture();
  const Timeline& t = imported.timeline;
  EXPECT_EQ(imported.format, TraceFormat::kKineto);
  ASSERT_EQ(t.tracks().size(), 4U) << "two threads, two streams; profiler overhead left out";
  int gpu_tracks = 0;
  for (const Track& tr : t.tracks()) {
    if (tr.kind == TrackKind::kGpuStream) {
      ++gpu_tracks;
      EXPECT_EQ(tr.device, "gpu0");
      EXPECT_TRUE(tr.name == "stream 7" || tr.name == "stream 13") << tr.name;
    } else {
      EXPECT_EQ(tr.device, "cpu0");
      EXPECT_TRUE(tr.name == "thread 100 (python3)" || tr.name == "thread 101 (pt_autograd_0)")
          << tr.name;
    }
  }
  EXPECT_EQ(gpu_tracks, 2);
}

TEST(KinetoImport, CategoriesParentsAndPasses) {
  const TraceImport imported = import_kineto_fixture();
  const Timeline& t = imported.timeline;
  const std::uint32_t addmm = only_span(t, "aten::addmm");
  EXPECT_EQ(t.path_of(addmm), "step/BertLayer_0/aten::linear/aten::addmm");
  EXPECT_EQ(t.spans()[only_span(t, "step")].category, SpanCategory::kStep);
  EXPECT_EQ(attribute(t, only_span(t, "step"), "step"), "3");
  EXPECT_EQ(t.spans()[addmm].category, SpanCategory::kOp);
  EXPECT_EQ(t.spans()[only_span(t, "cudaMemsetAsync")].category, SpanCategory::kCall);
  EXPECT_EQ(t.spans()[only_span(t, "Memset (Device)")].category, SpanCategory::kMemory);
  EXPECT_EQ(attribute(t, only_span(t, "Memset (Device)"), "bytes"), "8");
  EXPECT_EQ(attribute(t, only_span(t, "aten::linear"), "input_dims"),
            "[[32, 128, 768], [3072, 768], [3072]]");

  // Passes: autograd's sequence numbers mark forward ops, module scopes are forward; backward and
  // optimizer by name.
  EXPECT_EQ(t.spans()[only_span(t, "step")].pass, Pass::kNone);
  EXPECT_EQ(t.spans()[only_span(t, "aten::linear")].pass, Pass::kForward);
  EXPECT_EQ(t.spans()[addmm].pass, Pass::kForward) << "inherited from aten::linear";
  EXPECT_EQ(t.spans()[only_span(t, "aten::mm")].pass, Pass::kBackward);
  EXPECT_EQ(t.spans()[only_span(t, "aten::_foreach_add_")].pass, Pass::kOptimizer);

  // Exact clock mapping of fractional microseconds.
  EXPECT_EQ(t.spans()[only_span(t, "step")].begin_ns, kMonotonicAtFirstEventNs);
  EXPECT_EQ(t.spans()[addmm].begin_ns, kMonotonicAtFirstEventNs + 30'500);
  EXPECT_EQ(t.spans()[addmm].end_ns, kMonotonicAtFirstEventNs + 30'500 + 60'250);
  EXPECT_EQ(imported.offset_ns, kMonotonicAtFirstEventNs - kKinetoFirstEventRealtimeNs);
  EXPECT_NE(imported.clock_mapping.find("given"), std::string::npos) << imported.clock_mapping;
}

TEST(KinetoImport, BackwardNodesGoUnderTheModuleOfTheirForwardOp) {
  const TraceImport imported = import_kineto_fixture();
  const Timeline& t = imported.timeline;
  // aten::linear (Sequence number 7) ran in BertLayer_0; the autograd thread's node 7 names it.
  const std::uint32_t node = only_span(t, "autograd::engine::evaluate_function: AddmmBackward0");
  const std::uint32_t module = t.spans()[node].parent;
  ASSERT_NE(module, kNoIndex);
  EXPECT_EQ(t.name(t.spans()[module].name), "BertLayer_0");
  EXPECT_EQ(t.spans()[module].category, SpanCategory::kLayer);
  EXPECT_EQ(t.spans()[module].pass, Pass::kBackward);
  EXPECT_EQ(t.spans()[module].track, t.spans()[node].track);
  EXPECT_EQ(t.spans()[module].begin_ns, t.spans()[node].begin_ns);
  EXPECT_EQ(t.spans()[module].end_ns, t.spans()[node].end_ns);
  EXPECT_EQ(t.path_of(only_span(t, "aten::mm")),
            "BertLayer_0/autograd::engine::evaluate_function: AddmmBackward0/aten::mm");
  EXPECT_LT(module, node) << "a parent precedes its child";
  EXPECT_EQ(imported.backward.nodes, 1U);
  EXPECT_EQ(imported.backward.module_nodes, 1U);
  EXPECT_EQ(imported.backward.backward_ns, 100'000);
  EXPECT_DOUBLE_EQ(imported.backward.unlinked_share(), 0.0);
}

TEST(LegacyTorchImport, OpsByNameAndAClockSyncScopeMapsTheClock) {
  // torch 1.13's own export without Kineto: a bare array, times in µs since the profiler started.
  const std::string legacy = R"([
    {"name": "jouleprof::clock_sync 7000000000", "ph": "X", "ts": 10, "dur": 0, "tid": 1,
     "pid": "CPU functions", "args": {}},
    {"name": "ProfilerStep#0", "ph": "X", "ts": 20, "dur": 500, "tid": 1, "pid": "CPU functions",
     "args": {}},
    {"name": "nn.Module: Net", "ph": "X", "ts": 30, "dur": 100, "tid": 1, "pid": "CPU functions",
     "args": {}},
    {"name": "aten::addmm", "ph": "X", "ts": 40, "dur": 50, "tid": 1, "pid": "CPU functions",
     "args": {}},
    {"name": "AddmmBackward0", "ph": "X", "ts": 200, "dur": 60, "tid": 1, "pid": "CPU functions",
     "args": {}},
    {"name": "data loading", "ph": "X", "ts": 300, "dur": 10, "tid": 1, "pid": "CPU functions",
     "args": {}},
    {"name": "jouleprof::epoch_end", "ph": "X", "ts": 600, "dur": 0, "tid": 1,
     "pid": "CPU functions", "args": {}}])";
  auto imported = import_trace_text(legacy, "legacy.json");
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const Timeline& t = imported->timeline;
  EXPECT_EQ(imported->format, TraceFormat::kTorchLegacy);
  EXPECT_TRUE(imported->clock_established);
  EXPECT_EQ(imported->offset_ns, 7'000'000'000 - 10'000);
  EXPECT_NE(imported->clock_mapping.find("clock_sync"), std::string::npos);
  EXPECT_EQ(t.spans().size(), 5U) << "jouleprof's own scopes are not spans";
  EXPECT_EQ(t.spans()[only_span(t, "aten::addmm")].category, SpanCategory::kOp);
  EXPECT_EQ(t.spans()[only_span(t, "AddmmBackward0")].category, SpanCategory::kOp);
  EXPECT_EQ(t.spans()[only_span(t, "AddmmBackward0")].pass, Pass::kBackward);
  EXPECT_EQ(t.spans()[only_span(t, "data loading")].category, SpanCategory::kRegion);
  EXPECT_EQ(t.spans()[only_span(t, "Net")].category, SpanCategory::kLayer);
  EXPECT_EQ(t.spans()[only_span(t, "step")].begin_ns, 7'000'000'000 + 10'000);
  ASSERT_EQ(t.marks().size(), 1U);
  EXPECT_EQ(t.name(t.marks()[0].name), "epoch_end");
  // No sequence numbers in this export: the backward node is counted, linked to nothing.
  EXPECT_EQ(imported->backward.nodes, 1U);
  EXPECT_EQ(imported->backward.linked_nodes, 0U);
  EXPECT_DOUBLE_EQ(imported->backward.unlinked_share(), 1.0);
}

TEST(LegacyTorchImport, AScopedModelWithoutAForwardIsNamed) {
  // jouleprof's hooks were put on Net, but the code ran another module object: the trace has
  // Net's scope marker and no forward of it (the other object's ops ran outside every scope).
  const auto trace = [](std::string_view forward) {
    return fmt::format(R"([
      {{"name": "jouleprof::module_scopes Net", "ph": "X", "ts": 10, "dur": 0, "tid": 1,
        "pid": "CPU functions", "args": {{}}}},{}
      {{"name": "aten::addmm", "ph": "X", "ts": 40, "dur": 50, "tid": 1, "pid": "CPU functions",
        "args": {{}}}}])",
                       forward);
  };
  auto other_object = import_trace_text(trace(""), "legacy.json");
  ASSERT_TRUE(other_object.ok()) << other_object.error().message();
  EXPECT_EQ(other_object->scoped_models_not_run, std::vector<std::string>{"Net"});
  EXPECT_EQ(other_object->timeline.spans().size(), 1U) << "the marker is not a span";

  auto scoped = import_trace_text(
      trace(R"({"name": "nn.Module: Net", "ph": "X", "ts": 30, "dur": 100, "tid": 1,
               "pid": "CPU functions", "args": {}},)"),
      "legacy.json");
  ASSERT_TRUE(scoped.ok()) << scoped.error().message();
  EXPECT_TRUE(scoped->scoped_models_not_run.empty());
}

TEST(LegacyTorchImport, WithoutAClockReferenceTheClockIsNotEstablished) {
  auto imported = import_trace_text(
      R"([{"name": "aten::addmm", "ph": "X", "ts": 40, "dur": 50, "tid": 1,
           "pid": "CPU functions", "args": {}}])",
      "legacy.json");
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  EXPECT_EQ(imported->clock, TraceClock::kRelative);
  EXPECT_FALSE(imported->clock_established);
  EXPECT_NE(imported->clock_mapping.find("no jouleprof::clock_sync scope"), std::string::npos);
  // An explicit offset establishes it.
  TraceImportOptions options;
  options.offset_ns = 1'000;
  auto given = import_trace_text(
      R"([{"name": "aten::addmm", "ph": "X", "ts": 40, "dur": 50, "tid": 1,
           "pid": "CPU functions", "args": {}}])",
      "legacy.json", options);
  ASSERT_TRUE(given.ok());
  EXPECT_TRUE(given->clock_established);
}

TEST(KinetoImport, KernelsLinkToTheirLaunchByCorrelationOrFlow) {
  const TraceImport imported = import_kineto_fixture();
  const Timeline& t = imported.timeline;
  EXPECT_EQ(imported.gpu_spans, 5U);
  EXPECT_EQ(imported.gpu_spans_linked, 4U) << "the gpu_user_annotation has no launch";

  const std::uint32_t gemm =
      only_span(t, "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32");
  EXPECT_EQ(t.spans()[gemm].category, SpanCategory::kKernel);
  EXPECT_EQ(attribute(t, gemm, "correlation"), "41");
  const std::uint32_t launch =
      static_cast<std::uint32_t>(std::stoul(attribute(t, gemm, "launch_span")));
  EXPECT_EQ(t.path_of(launch), "step/BertLayer_0/aten::linear/aten::addmm/cudaLaunchKernel");
  EXPECT_EQ(t.spans()[gemm].pass, Pass::kForward) << "a kernel takes its launching call's pass";

  // No correlation arg: the ac2g flow links it; and the GPU annotation contains it.
  const std::uint32_t apply = only_span(t, "void at::native::multi_tensor_apply_kernel");
  EXPECT_EQ(attribute(t, apply, "correlation"), "43");
  EXPECT_EQ(t.spans()[apply].pass, Pass::kOptimizer);
  EXPECT_EQ(t.name(t.spans()[t.spans()[apply].parent].name), "Optimizer.step#AdamW.step");
  EXPECT_EQ(t.tracks()[t.spans()[t.spans()[apply].parent].track].kind, TrackKind::kGpuStream);

  const std::uint32_t backward_gemm =
      only_span(t, "sm90_xmma_gemm_f32f32_tf32f32_f32_nt_n_tilesize64x128x32");
  EXPECT_EQ(t.spans()[backward_gemm].pass, Pass::kBackward);
}

// PyTorch on ROCm writes the same Kineto format with HIP runtime calls: its GPU streams land on
// gpuN, the device the rocm-smi backend names GPU N, and its kernels link to their HIP launches.
TEST(KinetoImport, RocmTracesPutHipStreamsOnTheirGpu) {
  TraceImportOptions options;
  options.anchor = ClockAnchor{kMonotonicAtFirstEventNs, kKinetoFirstEventRealtimeNs};
  auto imported = import_trace((fixtures() / "timeline/kineto_rocm_small.json").string(), options);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const Timeline& t = imported->timeline;
  int gpu_tracks = 0;
  for (const Track& tr : t.tracks()) {
    if (tr.kind != TrackKind::kGpuStream) continue;
    ++gpu_tracks;
    EXPECT_EQ(tr.device, "gpu1");
  }
  EXPECT_EQ(gpu_tracks, 1);
  EXPECT_EQ(imported->gpu_spans, 2U);
  EXPECT_EQ(imported->gpu_spans_linked, 2U);
  const std::uint32_t gemm = only_span(t, "Cijk_Ailk_Bljk_SB_MT128x128x16_MI32x32x2x1_SN_1LDSB0");
  EXPECT_EQ(t.spans()[gemm].category, SpanCategory::kKernel);
  const std::uint32_t launch =
      static_cast<std::uint32_t>(std::stoul(attribute(t, gemm, "launch_span")));
  EXPECT_EQ(t.path_of(launch),
            "step/aten::mm/hipExtModuleLaunchKernel");  // ProfilerStep#N is a step
}

TEST(KinetoImport, OffsetOverrideWins) {
  TraceImportOptions options;
  options.anchor = ClockAnchor{1, 2};
  options.offset_ns = -kKinetoFirstEventRealtimeNs + 7;
  auto imported = import_trace((fixtures() / "timeline/kineto_small.json").string(), options);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  EXPECT_EQ(imported->offset_ns, options.offset_ns);
  EXPECT_EQ(imported->timeline.spans()[only_span(imported->timeline, "step")].begin_ns, 7);
  EXPECT_NE(imported->clock_mapping.find("given explicitly"), std::string::npos);
}

TEST(KinetoImport, ReadsGzippedTraces) {
  const TempDir dir;
  const std::string text = testing::read_file(fixtures() / "timeline/kineto_small.json");
  const auto gz = dir.path() / "trace.json.gz";
  gzFile out = gzopen(gz.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  gzwrite(out, text.data(), static_cast<unsigned>(text.size()));
  gzclose(out);
  auto imported = import_trace(gz.string());
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  EXPECT_EQ(imported->timeline.spans().size(), import_kineto_fixture().timeline.spans().size());

  // Cut short: a clear error, not a crash.
  const std::string compressed = testing::read_file(gz);
  const auto cut = dir.write("cut.json.gz", compressed.substr(0, compressed.size() / 2));
  auto truncated = import_trace(cut.string());
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().message().find("truncated"), std::string::npos)
      << truncated.error().message();
}

// gzip of `text` as one member (gzip -c), for concatenating members.
std::string gzip_member(const std::string& text) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// The importer reads in chunks of 256 KiB: events, strings and escapes cut by a chunk's end, an
// event larger than a chunk, and gzip members that end inside an event all read as one text.
TEST(TraceImportStreaming, ChunkBoundariesAndMembersChangeNothing) {
  std::string text = R"({"traceEvents": [)";
  const int events = 40'000;  // ~2.6 MB: ten chunks
  for (int i = 0; i < events; ++i) {
    // args.note: an even run of backslashes (escaped backslashes) before its closing quote.
    text += fmt::format(R"({{"ph": "X", "name": "op_{}\t\"q\"", "pid": 1, "tid": 1, "ts": {}, )"
                        R"("dur": 1, "args": {{"note": "{}"}}}})",
                        i % 7, i * 2, std::string(2 * static_cast<std::size_t>(i % 7), '\\'));
    if (i + 1 < events) text += ",\n";
  }
  // 600 KB of escaped quotes in one name: the event is larger than a chunk, and somewhere a chunk
  // ends between a backslash and the quote it escapes.
  std::string long_name;
  for (int i = 0; i < 300'000; ++i) long_name += "\\\"";
  text += fmt::format(R"(, {{"ph": "X", "name": "{}", "pid": 1, "tid": 1, "ts": 0, "dur": 1}})",
                      long_name);
  text += "]}";
  const TempDir dir;
  const auto plain = dir.write("trace.json", text);
  const std::size_t cut = text.size() / 3 + 1;
  const auto members =
      dir.write("trace.json.gz", gzip_member(text.substr(0, cut)) + gzip_member(text.substr(cut)));
  for (const auto& path : {plain, members}) {
    auto imported = import_trace(path.string());
    ASSERT_TRUE(imported.ok()) << imported.error().message();
    const Timeline& t = imported->timeline;
    ASSERT_EQ(t.spans().size(), static_cast<std::size_t>(events + 1)) << path;
    const auto longest = std::max_element(
        t.names().begin(), t.names().end(),
        [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
    EXPECT_EQ(*longest, std::string(300'000, '"')) << path;
    EXPECT_NE(std::find(t.names().begin(), t.names().end(), "op_3\t\"q\""), t.names().end());
  }
  // The same text cut inside the long name: an error naming the file, not a crash.
  const auto cut_short = dir.write("cut.json", text.substr(0, text.size() - 300'000));
  auto truncated = import_trace(cut_short.string());
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().message().find("cut.json: traceEvents[40000]: not valid JSON"),
            std::string::npos)
      << truncated.error().message();
}

TEST(TensorFlowImport, DevicesFromProcessNamesAndHierarchicalOpNames) {
  TraceImportOptions options;
  options.anchor = ClockAnchor{0, 1'552'000'000'000'000'000};
  auto imported =
      import_trace((fixtures() / "timeline/tensorflow_timeline.json").string(), options);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const Timeline& t = imported->timeline;
  EXPECT_EQ(imported->format, TraceFormat::kTensorFlow);
  ASSERT_EQ(t.tracks().size(), 5U) << "host GPU:0 lanes 0 and 1, CPU:0, stream:14, memcpy; "
                                      "tensors, allocators and stream:all left out";
  std::vector<std::string> names;
  for (const Track& tr : t.tracks()) names.push_back(tr.name);
  EXPECT_NE(std::find(names.begin(), names.end(), "/device:GPU:0/stream:14 Compute"), names.end());
  ASSERT_FALSE(imported->warnings.empty());
  EXPECT_NE(imported->warnings[0].find("stream:all"), std::string::npos);

  std::size_t kernels = 0;
  for (std::uint32_t i = 0; i < t.spans().size(); ++i) {
    const Span& s = t.spans()[i];
    const Track& track = t.tracks()[s.track];
    if (track.kind == TrackKind::kGpuStream && track.name.find("stream:14") != std::string::npos) {
      ++kernels;
      EXPECT_EQ(s.category, SpanCategory::kKernel);
      EXPECT_EQ(track.device, "gpu0");
    }
  }
  EXPECT_EQ(kernels, 3U) << "each kernel once, not again from stream:all";
  // The node name is the span name: its '/' levels give the path.
  bool found_matmul = false;
  for (std::uint32_t i = 0; i < t.spans().size(); ++i) {
    const Span& s = t.spans()[i];
    if (t.name(s.name) == "sequential/dense/MatMul" &&
        t.tracks()[s.track].kind == TrackKind::kCpuThread) {
      found_matmul = true;
      EXPECT_EQ(attribute(t, i, "op"), "MatMul");
      EXPECT_EQ(s.begin_ns, 100'050'000) << "realtime epoch µs mapped through the anchor";
      EXPECT_EQ(s.duration_ns(), 40'000);
    }
  }
  EXPECT_TRUE(found_matmul);
  const std::uint32_t memcpy = only_span(t, "edge_8_IteratorGetNext/_1");
  EXPECT_EQ(t.tracks()[t.spans()[memcpy].track].kind, TrackKind::kGpuStream);
}

TEST(ChromeImport, BeginEndPairsInstantsAndMonotonicTimes) {
  const std::string trace = R"([
    {"ph": "B", "name": "train", "pid": 1, "tid": 1, "ts": 1000},
    {"ph": "B", "name": "step", "pid": 1, "tid": 1, "ts": 1100},
    {"ph": "i", "name": "checkpoint", "pid": 1, "tid": 1, "ts": 1150, "s": "t"},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 1200},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 2000},
    {"ph": "X", "name": "io", "pid": 1, "tid": 2, "ts": 1500.5, "dur": 0.25},
    {"ph": "C", "name": "memory", "pid": 1, "ts": 1500, "args": {"bytes": 10}}
  ])";
  auto imported = import_trace_text(trace, "inline.json");
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const Timeline& t = imported->timeline;
  EXPECT_EQ(imported->format, TraceFormat::kChrome);
  EXPECT_EQ(imported->clock, TraceClock::kMonotonic) << "times since boot, not epoch times";
  EXPECT_EQ(imported->offset_ns, 0);
  const std::uint32_t step = only_span(t, "step");
  EXPECT_EQ(t.path_of(step), "train/step");
  EXPECT_EQ(t.spans()[step].begin_ns, 1'100'000);
  EXPECT_EQ(t.spans()[step].end_ns, 1'200'000);
  EXPECT_EQ(t.spans()[only_span(t, "io")].begin_ns, 1'500'500);
  EXPECT_EQ(t.spans()[only_span(t, "io")].end_ns, 1'500'750);
  ASSERT_EQ(t.marks().size(), 1U);
  EXPECT_EQ(t.name(t.marks()[0].name), "checkpoint");
  EXPECT_EQ(imported->skipped_events, 1U);
}

// Of a key given twice, the parser hands over both values; which one the trace meant is not
// known, so the trace is refused, naming the event and the key, in the events, their args and
// the document's own keys alike. Keys jouleprof does not read may repeat.
TEST(ChromeImport, AKeyGivenTwiceIsRefused) {
  const std::string twice = "appears twice in one object, and JSON does not say which value holds";
  const std::string ts = R"([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 2},
    {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 10, "dur": 2, "ts": 1e9}])";
  EXPECT_EQ(import_trace_text(ts, "t.json").error().message(),
            "t.json: traceEvents[1]: key 'ts' " + twice);
  const std::string args = R"([{"ph": "X", "name": "k", "pid": 1, "tid": 1, "ts": 1, "dur": 2,
    "args": {"correlation": 5, "correlation": 7}}])";
  EXPECT_EQ(import_trace_text(args, "t.json").error().message(),
            "t.json: traceEvents[0].args: key 'correlation' " + twice);
  const std::string header = R"({"baseTimeNanoseconds": 1, "traceEvents": [],
    "baseTimeNanoseconds": 2})";
  EXPECT_EQ(import_trace_text(header, "t.json").error().message(),
            "t.json: (document): key 'baseTimeNanoseconds' " + twice);
  const std::string unread = R"([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 2,
    "tag": 1, "tag": 2, "args": {"note": 1, "note": 2}}])";
  EXPECT_TRUE(import_trace_text(unread, "t.json").ok());
}

TEST(SpanDumpImport, DetectedByContentAndShiftedOnlyByOverride) {
  Timeline t;
  const auto track = t.add_track(Track{TrackKind::kCpuThread, "thread 1", "cpu0"});
  t.add_span(Span{100, 200, track, t.intern("work")});
  SpanDump dump{t, 42, 3, "tsc"};
  auto plain = import_trace_text(span_dump_to_json(dump), "spans.json");
  ASSERT_TRUE(plain.ok()) << plain.error().message();
  EXPECT_EQ(plain->format, TraceFormat::kSpanDump);
  EXPECT_EQ(plain->timeline.spans()[0].begin_ns, 100);
  EXPECT_EQ(plain->dropped, 3U);
  EXPECT_FALSE(plain->warnings.empty()) << "dropped records are reported";
  TraceImportOptions options;
  options.offset_ns = 1000;
  auto shifted = import_trace_text(span_dump_to_json(dump), "spans.json", options);
  ASSERT_TRUE(shifted.ok());
  EXPECT_EQ(shifted->timeline.spans()[0].begin_ns, 1100);
}

// Bad input: one clear line naming the file, the event and the field.
std::string import_error(const std::string& text) {
  auto imported = import_trace_text(text, "bad.json");
  EXPECT_FALSE(imported.ok());
  return imported.ok() ? "" : imported.error().message();
}

TEST(TraceImportErrors, TruncatedJson) {
  const std::string text = testing::read_file(fixtures() / "timeline/kineto_small.json");
  for (const std::size_t cut : {text.size() / 3, text.size() / 2, text.size() - 3}) {
    const std::string message = import_error(text.substr(0, cut));
    EXPECT_NE(message.find("bad.json"), std::string::npos) << message;
    EXPECT_NE(message.find("JSON"), std::string::npos) << message;
  }
}

TEST(TraceImportErrors, MissingTimesAndNegativeDurations) {
  const std::string missing_ts = import_error(R"({"traceEvents": [
    {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
    {"ph": "X", "name": "b", "pid": 1, "tid": 1, "dur": 5}]})");
  EXPECT_NE(missing_ts.find("traceEvents[1].ts"), std::string::npos) << missing_ts;
  EXPECT_NE(missing_ts.find("missing"), std::string::npos) << missing_ts;

  const std::string missing_dur =
      import_error(R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1}]})");
  EXPECT_NE(missing_dur.find("traceEvents[0].dur"), std::string::npos) << missing_dur;

  const std::string negative =
      import_error(R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 10, "dur": -2.5}]})");
  EXPECT_NE(negative.find("traceEvents[0].dur"), std::string::npos) << negative;
  EXPECT_NE(negative.find("-2.5"), std::string::npos) << negative;
  EXPECT_NE(negative.find("negative"), std::string::npos) << negative;

  const std::string text_ts =
      import_error(R"({"traceEvents": [{"ph": "X", "name": "a", "ts": "soon", "dur": 1}]})");
  EXPECT_NE(text_ts.find("not a number"), std::string::npos) << text_ts;
}

TEST(TraceImportErrors, NotATrace) {
  EXPECT_NE(import_error(R"({"events": []})").find("no traceEvents"), std::string::npos);
  EXPECT_NE(import_error("42").find("neither an object nor an array"), std::string::npos);
  EXPECT_NE(import_error("").find("bad.json"), std::string::npos);
  auto missing = import_trace("/nonexistent/trace.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace jouleprof
