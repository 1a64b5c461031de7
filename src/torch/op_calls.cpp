#include <fmt/format.h>
#include <torch/torch.h>

#include "jouleprof/torch.hpp"
#include "jouleprof/torch_ops.hpp"
#include "torch/torch_device.hpp"

namespace jouleprof::torch_adapter {
namespace {

constexpr const char* kTrainStepPrefix = "train-step:";

// Each call ends with the device idle, so that its energy is inside its own window.
MeasuredCall synchronised(std::function<void()> body, DeviceKind device) {
  return [body = std::move(body), device]() -> Status {
    try {
      body();
      synchronize(device);
      return Status::Ok();
    } catch (const std::exception& e) {
      return Error(ErrorCode::kInternal, fmt::format("libtorch: {}", e.what()));
    }
  };
}

double elements(const ::torch::Tensor& t) { return static_cast<double>(t.numel()); }

}  // namespace

std::vector<std::string> measurable_ops() {
  std::vector<std::string> ops{"matmul",  "conv2d",    "linear",  "layer_norm",
                               "softmax", "embedding", "sgd-step"};
  for (const ZooModel& m : zoo_models()) ops.push_back(kTrainStepPrefix + m.name);
  return ops;
}

Result<OpCall> make_op_call(const std::string& op, std::int64_t size, DeviceKind device,
                            std::uint64_t seed) {
  if (size <= 0)
    return invalid_input("op call", "OpCall size", std::to_string(size), "must be positive");
  JP_RETURN_IF_ERROR(require_usable(device, "OpCall device"));
  OpCall call;
  call.op = op;
  call.size = size;
  if (op.rfind(kTrainStepPrefix, 0) == 0) {
    WorkloadOptions w;
    w.model = op.substr(std::string(kTrainStepPrefix).size());
    w.mode = Mode::kTrain;
    w.batch = static_cast<int>(size);
    w.device = device;
    w.seed = seed;
    JP_TRY(std::shared_ptr<Workload> workload, make_workload(w));
    call.description = workload->description();
    call.input_elements = static_cast<double>(workload->samples_per_step());
    call.run = [workload]() -> Status {
      try {
        workload->step();
        return Status::Ok();
      } catch (const std::exception& e) {
        return Error(ErrorCode::kInternal, fmt::format("libtorch: {}", e.what()));
      }
    };
    return call;
  }

  ::torch::manual_seed(seed);
  const auto options = ::torch::TensorOptions().device(torch_device_type(device));
  const std::int64_t n = size;
  try {
    if (op == "matmul") {
      auto a = ::torch::randn({n, n}, options);
      auto b = ::torch::randn({n, n}, options);
      call.description = fmt::format("[{0},{0}] @ [{0},{0}]", n);
      call.input_elements = elements(a) + elements(b);
      call.run = synchronised([a, b] { (void)::torch::matmul(a, b); }, device);
    } else if (op == "conv2d") {
      auto x = ::torch::randn({8, 64, n, n}, options);
      auto w = ::torch::randn({64, 64, 3, 3}, options);
      call.description = fmt::format("x[8,64,{0},{0}] * w[64,64,3,3], padding 1", n);
      call.input_elements = elements(x);
      call.run = synchronised([x, w] { (void)::torch::conv2d(x, w, {}, 1, 1); }, device);
    } else if (op == "linear") {
      auto x = ::torch::randn({64, n}, options);
      auto w = ::torch::randn({n, n}, options);
      auto b = ::torch::randn({n}, options);
      call.description = fmt::format("x[64,{0}] · W[{0},{0}]ᵀ + b", n);
      call.input_elements = elements(x);
      call.run = synchronised([x, w, b] { (void)::torch::linear(x, w, b); }, device);
    } else if (op == "layer_norm") {
      auto x = ::torch::randn({64, n}, options);
      call.description = fmt::format("layer_norm over x[64,{}]", n);
      call.input_elements = elements(x);
      call.run = synchronised([x, n] { (void)::torch::layer_norm(x, {n}); }, device);
    } else if (op == "softmax") {
      auto x = ::torch::randn({64, n}, options);
      call.description = fmt::format("softmax over x[64,{}]", n);
      call.input_elements = elements(x);
      call.run = synchronised([x] { (void)::torch::softmax(x, 1); }, device);
    } else if (op == "embedding") {
      auto table = ::torch::randn({30522, 256}, options);
      auto ids = ::torch::randint(0, 30522, {n}, options.dtype(::torch::kLong));
      call.description = fmt::format("{} lookups in a [30522,256] table", n);
      call.input_elements = elements(ids);
      call.run = synchronised([table, ids] { (void)::torch::embedding(table, ids); }, device);
    } else if (op == "sgd-step") {
      auto layer = std::make_shared<::torch::nn::Linear>(::torch::nn::LinearOptions(n, n));
      (*layer)->to(options.device());
      for (auto& p : (*layer)->parameters()) p.mutable_grad() = ::torch::randn_like(p);
      auto sgd = std::make_shared<::torch::optim::SGD>((*layer)->parameters(),
                                                       ::torch::optim::SGDOptions(1e-3));
      call.description = fmt::format("SGD step over a [{0},{0}] linear layer", n);
      call.input_elements = static_cast<double>(n * n + n);
      call.run = synchronised([layer, sgd] { sgd->step(); }, device);
    } else {
      std::string known;
      for (const std::string& o : measurable_ops()) known += (known.empty() ? "" : ", ") + o;
      return invalid_input("op call", "OpCall op", op, "unknown (known: " + known + ")");
    }
  } catch (const std::exception& e) {
    return Error(
        ErrorCode::kInvalidInput,
        fmt::format("OpCall op {}, OpCall size {}: libtorch could not build the inputs: {}", op,
                    size, e.what()));
  }
  return call;
}

}  // namespace jouleprof::torch_adapter
