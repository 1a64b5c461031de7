// The real PyTorch profiler traces of BERT-base training on an H200 (../shared/data/h200).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "jouleprof/trace_import.hpp"
#include "test_support.hpp"
#include "timeline/trace_file.hpp"

namespace jouleprof {
namespace {

using testing::shared_data;

struct Counts {
  std::size_t kernels = 0;
  std::size_t memory_ops = 0;
  std::size_t cpu_ops = 0;
  std::size_t runtime_calls = 0;
  std::map<Pass, std::size_t> kernels_by_pass;
};

Counts count(const Timeline& t) {
  Counts c;
  for (const Span& s : t.spans()) {
    switch (s.category) {
      case SpanCategory::kKernel:
        ++c.kernels;
        ++c.kernels_by_pass[s.pass];
        break;
      case SpanCategory::kMemory:
        ++c.memory_ops;
        break;
      case SpanCategory::kOp:
        ++c.cpu_ops;
        break;
      case SpanCategory::kCall:
        ++c.runtime_calls;
        break;
      default:
        break;
    }
  }
  return c;
}

TEST(H200Traces, CpuAndCudaTraceHasEveryActivity) {
  JP_REQUIRE_SHARED_DATA("h200/bert_cpu_cuda_short.json.gz");
  auto imported = import_trace((shared_data() / "h200/bert_cpu_cuda_short.json.gz").string());
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const Timeline& t = imported->timeline;
  EXPECT_EQ(imported->format, TraceFormat::kKineto);
  Counts c = count(t);
  // Counted independently from the file (Python's json module): 29 720 kernels, 5 160 memsets,
  // 267 520 cpu_op events, 41 683 runtime + 3 480 driver calls.
  EXPECT_EQ(c.kernels, 29'720U);
  EXPECT_EQ(c.memory_ops, 5'160U);
  EXPECT_EQ(c.cpu_ops, 267'520U);
  EXPECT_EQ(c.runtime_calls, 41'683U + 3'480U);
  EXPECT_EQ(imported->gpu_spans, c.kernels + c.memory_ops + 40U) << "plus 40 GPU annotations";
  EXPECT_EQ(imported->gpu_spans_linked, c.kernels + c.memory_ops)
      << "every kernel finds its launch";

  std::set<std::string> gpu_tracks;
  std::size_t cpu_tracks = 0;
  for (const Track& tr : t.tracks()) {
    if (tr.kind == TrackKind::kGpuStream) {
      gpu_tracks.insert(tr.name + "@" + tr.device);
    } else {
      ++cpu_tracks;
    }
  }
  EXPECT_EQ(gpu_tracks, std::set<std::string>{"stream 7@gpu0"});
  EXPECT_EQ(cpu_tracks, 2U) << "the main thread and the autograd thread";

  // The training step's structure: forward, backward and optimizer kernels are all there.
  EXPECT_GT(c.kernels_by_pass[Pass::kForward], 0U);
  EXPECT_GT(c.kernels_by_pass[Pass::kBackward], 0U);
  EXPECT_GT(c.kernels_by_pass[Pass::kOptimizer], 0U);
  // Parents from containment: an addmm sits under its linear.
  bool addmm_under_linear = false;
  for (std::uint32_t i = 0; i < t.spans().size() && !addmm_under_linear; ++i) {
    const Span& s = t.spans()[i];
    addmm_under_linear = t.name(s.name) == "aten::addmm" && s.parent != kNoIndex &&
                         t.name(t.spans()[s.parent].name) == "aten::linear";
  }
  EXPECT_TRUE(addmm_under_linear);
}

TEST(H200Traces, BackwardNodesAreLinkedToTheForwardOpsThatCreatedThem) {
  JP_REQUIRE_SHARED_DATA("h200/bert_cpu_cuda_short.json.gz");
  auto imported = import_trace((shared_data() / "h200/bert_cpu_cuda_short.json.gz").string());
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const BackwardLinkStats& b = imported->backward;
  // Counted independently (Python's json module): 27 920 outermost cpu_op spans on the autograd
  // thread (pt_autograd_0), 1.170 s; those with a Sequence number hold 94.5 % of that time and
  // all have their creating op on the main thread; the other 5.5 % are the 8 040 AccumulateGrad
  // nodes, which follow the node that produced their gradient.
  EXPECT_EQ(b.nodes, 27'920U);
  EXPECT_NEAR(ns_to_s(b.backward_ns), 1.16994, 1e-4);
  const double linked = static_cast<double>(b.linked_ns) / static_cast<double>(b.backward_ns);
  EXPECT_GE(linked, 0.95);
  EXPECT_EQ(b.linked_nodes, b.nodes);
  // The trace has no module scopes (recorded without with_stack and without jouleprof's hooks):
  // no node can go under a module, and the importer's numbers say so.
  EXPECT_EQ(b.module_nodes, 0U);
  EXPECT_DOUBLE_EQ(b.unlinked_share(), 1.0);
}

// The module scopes jouleprof.torch.profile would have opened around BERT's forward passes in
// this trace, rebuilt from its top-level operators on the main thread: per pass, the embeddings
// (up to the first layer_norm and its dropout), 12 encoder layers of two layer_norms each, the
// pooler (select, linear, tanh), the classifier (dropout, linear), then the loss. Names as
// jouleprof's hooks give them for HuggingFace's BertForSequenceClassification.
struct ModuleScope {
  std::string name;
  TimeNs begin_ns;
  TimeNs end_ns;
};

std::vector<ModuleScope> bert_module_scopes(const Timeline& t, std::uint32_t main_track) {
  std::vector<const Span*> top;
  for (const Span& s : t.spans()) {
    if (s.track == main_track && s.parent == kNoIndex) top.push_back(&s);
  }
  std::sort(top.begin(), top.end(), [](const Span* a, const Span* b) {
    return a->begin_ns != b->begin_ns ? a->begin_ns < b->begin_ns : a->end_ns > b->end_ns;
  });
  std::vector<ModuleScope> scopes;
  // Past the end: no name, so that a trace of another structure ends the walk (and the test).
  const auto name = [&](std::size_t i) {
    return i < top.size() ? std::string_view(t.name(top[i]->name)) : std::string_view();
  };
  const auto scope = [&](std::string n, std::size_t first, std::size_t last) {
    if (last < top.size())
      scopes.push_back(ModuleScope{std::move(n), top[first]->begin_ns, top[last]->end_ns});
  };
  for (std::size_t i = 0; i < top.size(); ++i) {
    if (name(i) != "aten::slice") continue;  // a forward pass begins with the position ids
    const std::size_t pass = i;
    std::size_t j = i;
    while (j < top.size() && name(j) != "aten::layer_norm") ++j;
    const std::size_t encoder = j + 2;  // after the embeddings' dropout
    scope("bert.embeddings", pass, j + 1);
    j = encoder;
    for (int layer = 0; layer < 12; ++layer) {
      const std::size_t first = j;
      for (int norms = 0; norms < 2 && j < top.size(); ++j)
        norms += name(j) == "aten::layer_norm" ? 1 : 0;
      scope(fmt::format("bert.encoder.layer.{}", layer), first, j - 1);
    }
    scope("bert.encoder", encoder, j - 1);
    EXPECT_EQ(name(j), "aten::select");
    scope("bert.pooler", j, j + 2);
    scope("bert", pass, j + 2);
    EXPECT_EQ(name(j + 4), "aten::linear");
    scope("classifier", j + 3, j + 4);
    while (j < top.size() && name(j) != "aten::cross_entropy_loss") ++j;
    scope("BertForSequenceClassification", pass, j);
    i = j;
  }
  return scopes;
}

// The trace's main thread (pid and tid 544 in the file) as a track of the import.
std::uint32_t main_thread_track(const Timeline& t) {
  std::map<std::uint32_t, std::size_t> forward_ops;
  for (const Span& s : t.spans()) {
    if (s.category == SpanCategory::kOp && s.pass == Pass::kForward) ++forward_ops[s.track];
  }
  return std::max_element(forward_ops.begin(), forward_ops.end(),
                          [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;
}

// Chrome trace events for the scopes, as torch writes a record_function scope (µs, ns exact).
std::string module_events(const std::vector<ModuleScope>& scopes) {
  const auto us = [](TimeNs ns) { return fmt::format("{}.{:03}", ns / 1000, ns % 1000); };
  std::string out;
  for (const ModuleScope& m : scopes) {
    out += fmt::format(
        R"({{"ph": "X", "cat": "user_annotation", "name": "nn.Module: {}", "pid": 544, )"
        R"("tid": 544, "ts": {}, "dur": {}, "args": {{}}}}, )",
        m.name, us(m.begin_ns), us(m.end_ns - m.begin_ns));
  }
  return out;
}

TEST(H200Traces, WithModuleScopesTheBackwardPassGoesUnderBertsModules) {
  JP_REQUIRE_SHARED_DATA("h200/bert_cpu_cuda_short.json.gz");
  const std::string path = (shared_data() / "h200/bert_cpu_cuda_short.json.gz").string();
  auto text = timeline::read_trace_file(path);
  ASSERT_TRUE(text.ok()) << text.error().message();
  TraceImportOptions options;
  options.offset_ns = -1'790'857'026'000'000'000;  // minus baseTimeNanoseconds: span times are ts
  auto plain = import_trace_text(std::string(text->view()), path, options);
  ASSERT_TRUE(plain.ok()) << plain.error().message();
  const std::uint32_t main_track = main_thread_track(plain->timeline);
  const std::vector<ModuleScope> scopes = bert_module_scopes(plain->timeline, main_track);
  ASSERT_EQ(scopes.size(), 40U * 18U) << "40 forward passes of 18 modules";

  std::string scoped(text->view());
  const std::size_t events = scoped.find('[', scoped.find("\"traceEvents\""));
  ASSERT_NE(events, std::string::npos);
  scoped.insert(events + 1, module_events(scopes));
  auto imported = import_trace_text(std::move(scoped), path, options);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const Timeline& t = imported->timeline;
  const BackwardLinkStats& b = imported->backward;
  EXPECT_EQ(b.nodes, 27'920U);

  std::map<std::string, TimeNs> backward_ns;                 // by module path
  const std::uint32_t forward_track = main_thread_track(t);  // track numbers differ by import
  for (const Span& s : t.spans()) {
    if (s.category == SpanCategory::kLayer && s.pass == Pass::kBackward) {
      backward_ns[t.name(s.name)] += s.duration_ns();
      EXPECT_NE(s.track, forward_track) << "backward nodes run on the autograd thread";
    }
  }
  // Share of the backward time under the modules whose path ends in `module`.
  const auto share = [&](std::string_view module) {
    TimeNs sum = 0;
    for (const auto& [module_path, ns] : backward_ns) {
      if (module_path.ends_with(module)) sum += ns;
    }
    return static_cast<double>(sum) / static_cast<double>(b.backward_ns);
  };
  // Counted independently (Python's json module, the same scopes, AccumulateGrad after the node
  // before it): every node goes under a module; the 12 encoder layers hold 84.61 % of the
  // backward time (5.8 to 8.3 % each), the embeddings 11.97 % (their EmbeddingBackward0 alone
  // 11.3 %), the classifier, the loss (the root module) and the pooler about 1 % each.
  EXPECT_EQ(b.module_nodes, b.nodes);
  EXPECT_DOUBLE_EQ(b.unlinked_share(), 0.0);
  double layers = 0.0;
  for (int layer = 0; layer < 12; ++layer) {
    const double s = share(fmt::format("/bert.encoder.layer.{}", layer));
    EXPECT_GT(s, 0.055) << layer;
    EXPECT_LT(s, 0.085) << layer;
    layers += s;
  }
  EXPECT_NEAR(layers, 0.8461, 0.0005);
  EXPECT_NEAR(share("/bert.embeddings"), 0.1197, 0.0005);
  EXPECT_NEAR(share("/classifier"), 0.0127, 0.0005);
  EXPECT_EQ(
      backward_ns.count("BertForSequenceClassification/bert/bert.encoder/bert.encoder.layer.3"),
      1U);
}

TEST(H200Traces, EveryKernelFallsInsideTheRunMarksAfterClockMapping) {
  JP_REQUIRE_SHARED_DATA("h200/bert_fold.json.gz");
  const auto meta =
      nlohmann::json::parse(testing::read_file(shared_data() / "h200/meta_fold.json"));
  TraceImportOptions options;
  options.anchor = ClockAnchor{meta.at("anchor_monotonic_ns").get<TimeNs>(),
                               meta.at("anchor_realtime_ns").get<TimeNs>()};
  TimeNs train_begin = 0;
  TimeNs train_end = 0;
  for (const auto& mark : meta.at("marks")) {
    if (mark.at(0) == "train_begin") train_begin = mark.at(1).get<TimeNs>();
    if (mark.at(0) == "train_end") train_end = mark.at(1).get<TimeNs>();
  }
  ASSERT_LT(train_begin, train_end);

  auto imported = import_trace((shared_data() / "h200/bert_fold.json.gz").string(), options);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const Timeline& t = imported->timeline;
  EXPECT_EQ(imported->offset_ns, options.anchor->monotonic_ns - options.anchor->realtime_ns);
  EXPECT_NE(imported->clock_mapping.find("baseTimeNanoseconds"), std::string::npos);

  std::size_t kernels = 0;
  TimeNs first = std::numeric_limits<TimeNs>::max();
  TimeNs last = std::numeric_limits<TimeNs>::min();
  for (const Span& s : t.spans()) {
    if (s.category != SpanCategory::kKernel) continue;
    ++kernels;
    first = std::min(first, s.begin_ns);
    last = std::max(last, s.end_ns);
  }
  EXPECT_EQ(kernels, 190'208U);
  EXPECT_GE(first, train_begin);
  EXPECT_LE(last, train_end);
  // And tightly: the run is the kernels (within a millisecond at either end).
  EXPECT_LT(first - train_begin, kNsPerMs);
  EXPECT_LT(train_end - last, kNsPerMs);
}

}  // namespace
}  // namespace jouleprof
