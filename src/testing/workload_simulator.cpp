#include "testing/workload_simulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace jouleprof::attribution {

std::vector<OpClassSpec> transformer_op_classes() {
  using P = Pass;
  // name, power W, duration µs (batch 32, sequence 128), batch exp, sequence exp, pass, per layer,
  // scope
  return {
      // Forward, once per step.
      {"memcpy_h2d_batch", 180, 200, 1, 1, P::kForward, false, "input"},
      {"embedding_gather", 300, 60, 1, 1, P::kForward, false, "embeddings"},
      {"embedding_add", 410, 50, 1, 1, P::kForward, false, "embeddings"},
      {"embedding_layernorm", 230, 50, 1, 1, P::kForward, false, "embeddings"},
      {"embedding_dropout", 505, 40, 1, 1, P::kForward, false, "embeddings"},
      // Forward, per layer.
      {"qkv_gemm", 640, 600, 1, 1, P::kForward, true, ""},
      {"qkv_split_copy", 380, 80, 1, 1, P::kForward, true, ""},
      {"qk_bmm", 480, 250, 1, 2, P::kForward, true, ""},
      {"attn_mask_fill", 400, 40, 1, 2, P::kForward, true, ""},
      {"attn_softmax", 595, 150, 1, 2, P::kForward, true, ""},
      {"attn_dropout", 505, 120, 1, 2, P::kForward, true, ""},
      {"av_bmm", 470, 250, 1, 2, P::kForward, true, ""},
      {"out_proj_gemm", 620, 220, 1, 1, P::kForward, true, ""},
      {"attn_residual_add", 420, 60, 1, 1, P::kForward, true, ""},
      {"attn_layernorm", 220, 50, 1, 1, P::kForward, true, ""},
      {"ffn1_gemm", 680, 850, 1, 1, P::kForward, true, ""},
      {"gelu", 620, 180, 1, 1, P::kForward, true, ""},
      {"ffn2_gemm", 660, 850, 1, 1, P::kForward, true, ""},
      {"ffn_dropout", 505, 90, 1, 1, P::kForward, true, ""},
      {"ffn_residual_add", 425, 60, 1, 1, P::kForward, true, ""},
      {"ffn_layernorm", 225, 50, 1, 1, P::kForward, true, ""},
      // Head.
      {"pooler_gemm", 590, 40, 1, 0, P::kForward, false, "head"},
      {"pooler_tanh", 350, 12, 1, 0, P::kForward, false, "head"},
      {"classifier_gemm", 585, 30, 1, 0, P::kForward, false, "head"},
      {"cross_entropy", 330, 25, 1, 0, P::kForward, false, "head"},
      // Backward, once per step (head first).
      {"cross_entropy_bwd", 340, 25, 1, 0, P::kBackward, false, "head"},
      {"classifier_gemm_bwd", 600, 60, 1, 0, P::kBackward, false, "head"},
      {"pooler_gemm_bwd", 600, 80, 1, 0, P::kBackward, false, "head"},
      // Backward, per layer (run in reverse layer order).
      {"ffn_layernorm_bwd", 245, 110, 1, 1, P::kBackward, true, ""},
      {"ffn_dropout_bwd", 500, 90, 1, 1, P::kBackward, true, ""},
      {"ffn2_gemm_bwd", 655, 1700, 1, 1, P::kBackward, true, ""},
      {"gelu_bwd", 600, 260, 1, 1, P::kBackward, true, ""},
      {"ffn1_gemm_bwd", 670, 1700, 1, 1, P::kBackward, true, ""},
      {"grad_accumulate_add", 400, 80, 1, 1, P::kBackward, true, ""},
      {"attn_layernorm_bwd", 240, 110, 1, 1, P::kBackward, true, ""},
      {"out_proj_gemm_bwd", 610, 450, 1, 1, P::kBackward, true, ""},
      {"av_bmm_bwd", 485, 500, 1, 2, P::kBackward, true, ""},
      {"attn_dropout_bwd", 500, 120, 1, 2, P::kBackward, true, ""},
      {"softmax_bwd", 560, 200, 1, 2, P::kBackward, true, ""},
      {"qk_bmm_bwd", 490, 500, 1, 2, P::kBackward, true, ""},
      {"qkv_split_copy_bwd", 390, 80, 1, 1, P::kBackward, true, ""},
      {"qkv_gemm_bwd", 650, 1200, 1, 1, P::kBackward, true, ""},
      // Backward, embeddings.
      {"embedding_layernorm_bwd", 250, 110, 1, 1, P::kBackward, false, "embeddings"},
      {"embedding_bwd_scatter", 280, 600, 1, 1, P::kBackward, false, "embeddings"},
      // Optimizer: proportional to the parameter count (depth), independent of batch and sequence.
      {"loss_scale_check", 300, 150, 0, 0, P::kOptimizer, false, "optimizer"},
      {"grad_norm_reduce", 380, 900, 0, 0, P::kOptimizer, false, "optimizer"},
      {"grad_clip_scale", 450, 700, 0, 0, P::kOptimizer, false, "optimizer"},
      {"adam_update", 520, 4500, 0, 0, P::kOptimizer, false, "optimizer"},
      {"lr_schedule_update", 250, 15, 0, 0, P::kOptimizer, false, "optimizer"},
      {"zero_grad_memset", 200, 300, 0, 0, P::kOptimizer, false, "optimizer"},
  };
}

namespace {

struct StepShape {
  double batch = 32;
  double sequence = 128;
  int layers = 4;
  bool backward = true;
  int first_trained_layer = 0;  // backward runs for layers ≥ this one
  std::vector<int> repeats;     // per class: how many times it runs where it runs (empty: once)
};

class Builder {
 public:
  Builder(const SimulatorOptions& options, SimulatedWorkload& w)
      : options_(options), w_(w), rng_(options.seed) {
    w_.classes = transformer_op_classes();
    w_.idle_power_w = options.idle_power_w;
    track_ = w_.timeline.add_track(Track{TrackKind::kGpuStream, "stream 7", "gpu0"});
    cursor_ = kNsPerS;  // the run starts 1 s into the monotonic axis
    w_.begin_ns = cursor_;
    idle(200 * kNsPerMs);  // counters have readings before the first span
  }

  void step(const StepShape& shape) {
    const std::uint32_t step_span = w_.timeline.add_span(
        Span{cursor_, cursor_, track_, w_.timeline.intern(fmt::format("step_{}", steps_++)),
             kNoIndex, kNoIndex, SpanCategory::kStep, Pass::kNone});
    w_.class_of_span.push_back(-1);
    w_.true_span_energy_j.push_back(0.0);
    const std::size_t n = w_.classes.size();
    // Ops of one pass, either per layer or per step; per-step ops are split into the head and
    // the rest so that the head runs after the layers.
    enum class Part { kLayer, kHead, kOther };
    const auto run_ops = [&](Pass pass, Part part, int layer) {
      for (std::size_t c = 0; c < n; ++c) {
        const OpClassSpec& spec = w_.classes[c];
        if (spec.pass != pass) continue;
        if ((part == Part::kLayer) != spec.per_layer) continue;
        if (part != Part::kLayer && (spec.scope == "head") != (part == Part::kHead)) continue;
        const int times = shape.repeats.empty() ? 1 : shape.repeats[c];
        for (int k = 0; k < times; ++k) op(step_span, c, shape, layer);
      }
    };
    run_ops(Pass::kForward, Part::kOther, -1);
    for (int layer = 0; layer < shape.layers; ++layer) run_ops(Pass::kForward, Part::kLayer, layer);
    run_ops(Pass::kForward, Part::kHead, -1);
    if (shape.backward) {
      run_ops(Pass::kBackward, Part::kHead, -1);
      for (int layer = shape.layers - 1; layer >= shape.first_trained_layer; --layer) {
        run_ops(Pass::kBackward, Part::kLayer, layer);
      }
      if (shape.first_trained_layer == 0) run_ops(Pass::kBackward, Part::kOther, -1);
      run_ops(Pass::kOptimizer, Part::kOther, -1);
    }
    Span& s = w_.timeline.spans()[step_span];
    s.end_ns = cursor_;
    idle(options_.step_gap_ns);
  }

  TimeNs now() const { return cursor_; }
  std::mt19937_64& rng() { return rng_; }

  void finish() {
    idle(200 * kNsPerMs);
    w_.end_ns = cursor_;
    w_.change_ns.push_back(cursor_);
    w_.power_w.push_back(options_.idle_power_w);
    w_.energy_at_change_j.push_back(energy_);
  }

 private:
  void piece(TimeNs duration_ns, double power_w) {
    w_.change_ns.push_back(cursor_);
    w_.power_w.push_back(power_w);
    w_.energy_at_change_j.push_back(energy_);
    energy_ += power_w * ns_to_s(duration_ns);
    cursor_ += duration_ns;
  }

  void idle(TimeNs duration_ns) {
    if (duration_ns > 0) piece(duration_ns, options_.idle_power_w);
  }

  void op(std::uint32_t step_span, std::size_t c, const StepShape& shape, int layer) {
    const OpClassSpec& spec = w_.classes[c];
    std::exponential_distribution<double> gap(1.0 /
                                              static_cast<double>(options_.mean_launch_gap_ns));
    const auto gap_ns = static_cast<TimeNs>(gap(rng_));
    idle(gap_ns);
    w_.true_span_energy_j[step_span] += options_.idle_power_w * ns_to_s(gap_ns);
    double duration_us = spec.duration_us * std::pow(shape.batch / 32.0, spec.batch_exponent) *
                         std::pow(shape.sequence / 128.0, spec.sequence_exponent);
    if (spec.pass == Pass::kOptimizer) duration_us *= static_cast<double>(shape.layers) / 4.0;
    std::lognormal_distribution<double> spread(0.0, 0.05);
    duration_us *= spread(rng_) * options_.duration_scale;
    const auto duration_ns = std::max<TimeNs>(1'000, static_cast<TimeNs>(duration_us * 1e3));
    std::normal_distribution<double> jitter(0.0, options_.power_jitter);
    const double power = std::max(options_.idle_power_w, spec.power_w * (1.0 + jitter(rng_)));
    const std::string name = spec.per_layer ? fmt::format("layer_{}/{}", layer, spec.name)
                                            : fmt::format("{}/{}", spec.scope, spec.name);
    w_.timeline.add_span(Span{cursor_, cursor_ + duration_ns, track_, w_.timeline.intern(name),
                              step_span, kNoIndex, SpanCategory::kKernel, spec.pass});
    w_.class_of_span.push_back(static_cast<std::int32_t>(c));
    w_.true_span_energy_j.push_back(power * ns_to_s(duration_ns));
    piece(duration_ns, power);
  }

  const SimulatorOptions& options_;
  SimulatedWorkload& w_;
  std::mt19937_64 rng_;
  std::uint32_t track_ = 0;
  TimeNs cursor_ = 0;
  double energy_ = 0.0;
  int steps_ = 0;
};

}  // namespace

double SimulatedWorkload::true_energy_at_j(TimeNs t) const {
  if (change_ns.empty() || t <= change_ns.front()) return 0.0;
  if (t >= change_ns.back()) return energy_at_change_j.back();
  const auto it = std::upper_bound(change_ns.begin(), change_ns.end(), t);
  const auto i = static_cast<std::size_t>(it - change_ns.begin()) - 1;
  return energy_at_change_j[i] + power_w[i] * ns_to_s(t - change_ns[i]);
}

double SimulatedWorkload::true_energy_between_j(TimeNs a, TimeNs b) const {
  return true_energy_at_j(b) - true_energy_at_j(a);
}

SimulatedWorkload simulate_workload(const SimulatorOptions& options) {
  SimulatedWorkload w;
  Builder b(options, w);
  const TimeNs stop = w.begin_ns + options.run_ns;
  if (options.shape == WorkloadShape::kSteadyStep) {
    while (b.now() < stop) b.step(StepShape{});
  } else {
    // Phases of 1–6 steps, each with its own batch, sequence length, depth, pass mix and layer
    // recipe (which op kinds its layers use, and how often: variants of the model).
    static constexpr double kBatches[] = {8, 16, 32, 64, 128};
    static constexpr double kSequences[] = {64, 128, 256};
    static constexpr int kLayers[] = {2, 4, 6, 8};
    std::uniform_int_distribution<int> pick5(0, 4), pick3(0, 2), pick4(0, 3), mode(0, 3),
        length(1, 6);
    std::discrete_distribution<int> multiplicity({1, 2, 1});  // 0, 1 or 2 times
    while (b.now() < stop) {
      StepShape shape;
      shape.batch = kBatches[pick5(b.rng())];
      shape.sequence = kSequences[pick3(b.rng())];
      shape.layers = kLayers[pick4(b.rng())];
      const int m = mode(b.rng());
      shape.backward = m != 0;                                    // 0: evaluation (forward only)
      shape.first_trained_layer = m == 1 ? shape.layers / 2 : 0;  // 1: lower half frozen
      shape.repeats.resize(w.classes.size());
      for (int& r : shape.repeats) r = multiplicity(b.rng());
      const int steps = length(b.rng());
      for (int i = 0; i < steps && b.now() < stop; ++i) b.step(shape);
    }
  }
  b.finish();
  return w;
}

Series simulate_rapl_counter(const SimulatedWorkload& w, std::uint64_t seed, TimeNs period_ns,
                             TimeNs max_read_delay_ns) {
  Channel ch{"sim:rapl",
             "simulator",
             "gpu0",
             "package",
             ChannelKind::kEnergyCounter,
             Provenance::kSimulated,
             fmt::format("RAPL-like counter: {} ms updates, 61 µJ unit, read up to {} µs late",
                         static_cast<double>(period_ns) / 1e6, max_read_delay_ns / 1000),
             "",
             period_ns,
             0};
  Series s(std::move(ch));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<TimeNs> delay(0, max_read_delay_ns);
  constexpr double kUnitJ = 61.035e-6;  // 2^-14 J, the common RAPL energy unit
  for (TimeNs u = w.begin_ns; u <= w.end_ns; u += period_ns) {
    const double value = std::floor(w.true_energy_at_j(u) / kUnitJ) * kUnitJ;
    (void)s.append(u + delay(rng), value);
  }
  return s;
}

Series simulate_nvml_counter(const SimulatedWorkload& w, std::uint64_t seed, TimeNs period_ns,
                             TimeNs jitter_ns, TimeNs max_read_delay_ns) {
  Channel ch{
      "sim:nvml",
      "simulator",
      "gpu0",
      "gpu",
      ChannelKind::kEnergyCounter,
      Provenance::kSimulated,
      fmt::format("NVML-like energy counter: {} ± {} ms updates, 1 mJ unit",
                  static_cast<double>(period_ns) / 1e6, static_cast<double>(jitter_ns) / 1e6),
      "",
      period_ns,
      0};
  Series s(std::move(ch));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<TimeNs> jitter(-jitter_ns, jitter_ns);
  std::uniform_int_distribution<TimeNs> delay(0, max_read_delay_ns);
  for (TimeNs u = w.begin_ns; u <= w.end_ns; u += period_ns + jitter(rng)) {
    const double value = std::floor(w.true_energy_at_j(u) * 1e3) / 1e3;
    (void)s.append(u + delay(rng), value);
  }
  return s;
}

Series simulate_averaged_power(const SimulatedWorkload& w, TimeNs period_ns, TimeNs average_ns) {
  Channel ch{"sim:power",
             "simulator",
             "gpu0",
             "gpu",
             ChannelKind::kPower,
             Provenance::kSimulated,
             fmt::format("power averaged over {} s, sampled every {} ms", ns_to_s(average_ns),
                         static_cast<double>(period_ns) / 1e6),
             "",
             period_ns,
             0};
  ch.averaging_ns = average_ns;
  Series s(std::move(ch));
  for (TimeNs t = w.begin_ns; t <= w.end_ns; t += period_ns) {
    const TimeNs from = std::max(w.begin_ns, t - average_ns);
    const double p =
        t > from ? w.true_energy_between_j(from, t) / ns_to_s(t - from) : w.idle_power_w;
    (void)s.append(t, p);
  }
  return s;
}

}  // namespace jouleprof::attribution
