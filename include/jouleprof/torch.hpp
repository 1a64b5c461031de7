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
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/recorder.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/timeline.hpp"

namespace jouleprof {
class Source;
}

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

  Status start();  // fails when another observer is already running (or device timing is unavailable)
  void stop();     // also flushes the device intervals

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
  int batch = 0;       // 0: the model's default
  int seq = 0;         // BERT/ALBERT sequence length; 0: default
  int image = 0;       // vision input height = width; 0: default
  // BERT/ALBERT overrides of the preset (0: keep the preset's value).
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int vocab = 0;
  std::string device = "cpu";  // "cpu" or "cuda"
  int threads = 0;             // intra-op threads; 0: libtorch's default
  std::uint64_t seed = 0;      // initialisation and synthetic inputs
  double learning_rate = 1e-3; // SGD step in training mode
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
  virtual const std::string& device() const = 0;
};

// Builds the model of `options.model` with seeded initialisation; unknown names, bad sizes or an
// unavailable device are errors naming the option and value.
Result<std::unique_ptr<Workload>> make_workload(const WorkloadOptions& options);

// ---------------------------------------------------------------------------------------------
// Calibration: each captured operator class replayed alone, its power measured

struct CalibrationOptions {
  // Each class is replayed in a loop until this much time has passed, so that the window spans
  // many counter updates (a RAPL counter updates every ~1 ms, NVML's every ~100 ms).
  TimeNs min_replay_ns = 300 * kNsPerMs;
  // Idle baseline measured before the classes, with the machine left alone this long.
  TimeNs idle_ns = 500 * kNsPerMs;
  // How often the source is read during a loop (power channels are integrated over these reads).
  TimeNs read_period_ns = 10 * kNsPerMs;
  // At most this many classes are replayed, the most frequently called first.
  std::size_t max_classes = 24;
  std::string device = "cpu";  // which channels: those whose device starts with "cpu" or "gpu"
};

struct ClassCalibration {
  std::string op_class;       // "aten::addmm"
  double power_w = 0.0;       // mean power of the channel(s) during the replay loop
  double dynamic_power_w = 0.0;  // power_w − idle power
  double duration_s = 0.0;
  std::uint64_t iterations = 0;
  std::string signature;      // the argument shapes replayed
};

struct Calibration {
  int version = 1;
  std::string device;                   // "cpu" / "cuda"
  std::vector<std::string> channel_ids; // channels whose energy was measured
  std::string provenance = "measured";  // of the channel(s): measured / estimated / simulated …
  std::string method;                   // "plain timed loop with idle subtraction"
  std::string model;                    // the workload the classes were captured from
  double idle_power_w = 0.0;
  std::vector<ClassCalibration> classes;
  std::vector<std::string> skipped;     // "aten::foo: <why it was not replayed>"

  const ClassCalibration* find(std::string_view op_class) const;
};

// Replays the captured calls (one representative signature per class: the most frequent) alone
// in a loop and measures `source`'s energy over each loop.
Result<Calibration> calibrate(const std::vector<CapturedOp>& ops, Source& source,
                              const CalibrationOptions& options);

Status write_calibration_json(const Calibration& calibration, const std::string& path);
Result<Calibration> read_calibration_json(const std::string& path);

}  // namespace jouleprof::torch_adapter
