// The libtorch adapter: every aten operator as a span, module scopes as layer paths, backward ops
// charged to the layer that produced them, and a zoo of seeded models to profile.
//
//   namespace jt = jouleprof::torch_adapter;
//   jt::Observer observer;                         // RecordFunction callbacks → recorder spans
//   jouleprof::Recorder::global().start();
//   observer.start();
//   {
//     jt::PassScope forward(jouleprof::Pass::kForward);
//     jt::LayerScope layer(my_layer_name);         // from jt::layer_name("query"), once
//     y = linear(x);                               // aten::linear, aten::addmm … nest under it
//   }
//   observer.stop();
//   jouleprof::Timeline timeline = jouleprof::Recorder::global().collect();
//
// Layer scopes nest: `encoder` ⊃ `layer_3` ⊃ `attention` gives `encoder/layer_3/attention`. A
// scope opened with libtorch's own RECORD_USER_SCOPE("name") (Python: torch.profiler.
// record_function) is treated as a layer scope too. During backward, each autograd node is
// wrapped in a span named after the full path of the layer whose forward op created it (matched
// by autograd sequence number and forward thread), with Pass::kBackward.
//
// This header does not include torch: model, tensors and replayable op arguments stay opaque, so
// command-line tools and C++ users without torch headers can drive it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/calibration.hpp"
#include "jouleprof/clock.hpp"
#include "jouleprof/device_kind.hpp"
#include "jouleprof/gated_measurement.hpp"
#include "jouleprof/monitor.hpp"
#include "jouleprof/recorder.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/timeline.hpp"

namespace jouleprof::torch_adapter {

// ---------------------------------------------------------------------------------------------
// Instrumentation

// A layer's name, interned once (at model construction): the recorder's NameId and the label the
// adapter uses to build layer paths.
struct LayerName {
  NameId name = 0;
  std::uint32_t label = 0;
};
LayerName layer_name(std::string_view name);  // thread-safe; takes a lock: call it once per name

// Opens a layer span (kLayer) and makes it the current module path on this thread.
class LayerScope {
 public:
  explicit LayerScope(LayerName name) noexcept;
  ~LayerScope();
  LayerScope(const LayerScope&) = delete;
  LayerScope& operator=(const LayerScope&) = delete;
};

// Opens a region span "forward" / "backward" / "optimizer" (or `name`) and tags every span begun
// inside it on this thread with `pass`.
class PassScope {
 public:
  explicit PassScope(Pass pass) noexcept;
  PassScope(Pass pass, NameId name) noexcept;
  ~PassScope();
  PassScope(const PassScope&) = delete;
  PassScope& operator=(const PassScope&) = delete;

 private:
  Pass previous_;
};

// Opaque, replayable arguments of one observed operator call (tensor shapes and dtypes, the
// non-tensor arguments by value).
struct ReplayArgs;

// One distinct (operator, argument signature) seen while shapes were recorded.
struct CapturedOp {
  std::string op_name;    // "aten::addmm"
  std::string overload;   // "" or e.g. "Tensor"
  std::string signature;  // "f32[8,256], f32[256,256], f32[256], 1, 1"
  std::uint64_t calls = 0;
  Pass pass = Pass::kNone;
  std::shared_ptr<const ReplayArgs> args;  // null when an argument kind cannot be replayed
  std::string not_replayable_reason;
};

struct ObserverOptions {
  // Also captures each operator's argument shapes (costs a copy of the argument metadata and a
  // formatted signature per op): attached to the op's span as attribute "shapes", and kept for
  // the calibration, which replays the captured calls.
  bool record_shapes = false;
  // CUDA builds: also time each outermost op on the device with a pair of CUDA events, and add
  // the device intervals as kKernel spans on GPU-stream tracks (device "gpuN"), named by layer
  // path + op, so that GPU energy goes to when the device ran the op, not when it was launched.
  bool device_timing = false;
};

// Installs libtorch's global RecordFunction callbacks while started. Only one observer may run at
// a time in a process. It records into jouleprof::Recorder::global(); start the recorder first.
class Observer {
 public:
  explicit Observer(ObserverOptions options = {});
  ~Observer();
  Observer(const Observer&) = delete;
  Observer& operator=(const Observer&) = delete;

  Status
  start();      // fails when another observer is already running (or device timing is unavailable)
  void stop();  // also flushes the device intervals

  // Waits for the device and hands the finished device intervals to the recorder as external
  // spans; returns how many. Call it between steps to bound the pending events.
  std::size_t flush_device_spans();
  bool running() const { return handle_ != 0; }

  // Every distinct call captured so far on all threads (empty unless record_shapes), most
  // frequent first.
  std::vector<CapturedOp> captured_ops() const;
  void clear_captured();

 private:
  ObserverOptions options_;
  std::uint64_t handle_ = 0;
};

// Whether libtorch here can run CUDA work (false in CPU builds of libtorch).
bool cuda_available();
// Whether the adapter was built with CUDA-event device timing, and whether it can use it now.
bool device_timing_compiled();
bool device_timing_available();

// ---------------------------------------------------------------------------------------------
// The model zoo

enum class Mode : std::uint8_t { kInfer = 0, kTrain = 1 };
std::string_view to_string(Mode mode);
std::optional<Mode> mode_from_string(std::string_view text);

struct ZooModel {
  std::string name;         // "bert-base", "resnet-18" …
  std::string family;       // "bert", "albert", "resnet", "mobilenet", "vgg", "mlp"
  std::string description;  // sizes and defaults in words
};

// Every built-in model (the BERT grid variants "bert-L6-H512" … included).
std::vector<ZooModel> zoo_models();

struct WorkloadOptions {
  std::string model = "bert-mini";
  Mode mode = Mode::kInfer;
  int batch = 0;  // 0: the model's default
  int seq = 0;    // BERT/ALBERT sequence length; 0: default
  int image = 0;  // vision input height = width; 0: default
  // BERT/ALBERT overrides of the preset (0: keep the preset's value).
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int vocab = 0;
  DeviceKind device = DeviceKind::kCpu;
  int threads = 0;              // intra-op threads; 0: libtorch's default
  std::uint64_t seed = 0;       // initialisation and synthetic inputs
  double learning_rate = 1e-3;  // SGD step in training mode
};

// One ready-to-run model with its synthetic inputs (and, in training mode, loss and optimizer).
class Workload {
 public:
  virtual ~Workload() = default;

  // One inference pass, or one training step (forward, backward, optimizer step), inside a step
  // span (kStep) with forward / backward / optimizer pass spans. Waits for the device to finish.
  virtual void step() = 0;

  virtual std::int64_t samples_per_step() const = 0;
  virtual std::int64_t parameter_count() const = 0;
  virtual std::string description() const = 0;  // "bert-mini L=4 H=256 A=4 seq=128 batch=8 train"
  virtual DeviceKind device() const = 0;
};

// Builds the model of `options.model` with seeded initialisation; unknown names, bad sizes or an
// unavailable device are errors naming the option and value.
Result<std::unique_ptr<Workload>> make_workload(const WorkloadOptions& options);

// ---------------------------------------------------------------------------------------------
// Calibration: each captured operator class replayed alone, its power measured

// Self time of the recorded operator spans (kOp; time in nested ops excluded): what the
// calibration ranks classes by, and the share of the step's operator time it covers.
struct OpTimes {
  std::map<std::string, TimeNs> by_class;                              // "aten::addmm"
  std::map<std::pair<std::string, std::string>, TimeNs> by_signature;  // (class, "shapes")
  TimeNs total_ns = 0;
};
OpTimes op_self_times(const Timeline& timeline);

// The gate options the calibration uses unless told otherwise: the quick preset
// (gated_preset(GatedPreset::kQuick)): FECoM's thresholds, with shorter windows than FECoM's (0.1 s
// intervals, a 1 s gate window checked every second, a 1 s tail, 3 repetitions, the gate given up
// after 15 s), and replay windows of 50 counter updates (~2 % resolution per repetition). A
// deliberate choice: a model has dozens of classes, and FECoM's 20 s checks and 30 s tails would
// make a calibration of bert-mini take an hour. GatedOptions{} is FECoM's published protocol.
GatedOptions calibration_gate_defaults();

struct CalibrationOptions {
  GatedOptions gate = calibration_gate_defaults();
  // Classes are taken in order of their self time in the profiled step, until max_classes are
  // taken or they cover time_coverage of the step's operator time.
  std::size_t max_classes = 24;
  double time_coverage = 1.0;
  DeviceKind device = DeviceKind::kCpu;  // which channels: those of this kind (device_kind.hpp)
};

// Opens a fresh monitor for one class's measurement (the gated protocol starts and stops it).
using MonitorFactory = std::function<Result<std::unique_ptr<Monitor>>()>;

// Replays each captured class alone — the signature with the most self time — through the gated
// protocol (measure_gated), the classes with the most self time first. The channels are the
// top-level energy channels of the workload's device from the first source that has any. Each
// class measured is an item of `progress`; after a stop asked through it, the class under way and
// the later ones are listed in `skipped` as stopped, and the classes measured are kept.
Result<Calibration> calibrate(const std::vector<CapturedOp>& ops, const OpTimes& times,
                              const MonitorFactory& open_monitor, const CalibrationOptions& options,
                              ProgressReporter* progress = nullptr);

// How many classes calibrate() will replay at most: the replayable classes, up to max_classes.
std::size_t calibration_class_count(const std::vector<CapturedOp>& ops,
                                    const CalibrationOptions& options);

}  // namespace jouleprof::torch_adapter
