#include "torch/kernel_calls.hpp"

#include <fmt/format.h>
#include <torch/cuda.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <algorithm>

#include "jouleprof/torch.hpp"
#include "predict/kernel_space.hpp"

namespace jouleprof::torch_adapter {
namespace {

using Shape = std::vector<std::int64_t>;

// The squeeze-and-excitation block's bottleneck: C/4 channels, as in MobileNetV3.
constexpr std::int64_t kSeReduction = 4;
// Channel shuffle's groups, as in ShuffleNetV2.
constexpr std::int64_t kShuffleGroups = 2;

// TorchScript class names are identifiers.
std::string sanitised(std::string name) {
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

struct Value {
  std::string var;
  Shape shape;
};

// Writes one kernel as TorchScript source, registering its weights as module attributes and its
// inputs as forward() arguments, then compiles, freezes and optimises it.
class ScriptBlock {
 public:
  ScriptBlock(std::string name, const KernelCallOptions& options)
      : module_(c10::QualifiedName(sanitised(name))),
        device_(options.device == "cuda" ? ::torch::kCUDA : ::torch::kCPU) {
    ::torch::manual_seed(options.seed);
  }

  Value input(Shape shape) {
    Value v{fmt::format("in{}", inputs_.size()), std::move(shape)};
    inputs_.push_back(v);
    return v;
  }

  Value conv(const Value& x, std::int64_t cout, std::int64_t ks, std::int64_t stride,
             bool depthwise) {
    const std::int64_t cin = x.shape[1];
    const std::int64_t groups = depthwise ? cin : 1;
    const std::string w = weight(::torch::randn({cout, cin / groups, ks, ks}) /
                                 std::sqrt(double(cin / groups * ks * ks)));
    const std::string b = weight(::torch::randn({cout}) * 0.1);
    const std::int64_t pad = (ks - 1) / 2;
    const std::int64_t out = (x.shape[2] + 2 * pad - ks) / stride + 1;
    return emit(fmt::format("torch.conv2d({}, {}, {}, [{s}, {s}], [{p}, {p}], [1, 1], {})", x.var,
                            w, b, groups, fmt::arg("s", stride), fmt::arg("p", pad)),
                {1, cout, out, out});
  }

  Value bn(const Value& x) {
    const std::int64_t c = x.shape[1];
    const std::string gamma = weight(::torch::rand({c}) + 0.5);
    const std::string beta = weight(::torch::randn({c}) * 0.1);
    const std::string mean = weight(::torch::randn({c}) * 0.1);
    const std::string var = weight(::torch::rand({c}) + 0.5);
    return emit(fmt::format("torch.batch_norm({}, {}, {}, {}, {}, False, 0.1, 1e-05, False)", x.var,
                            gamma, beta, mean, var),
                x.shape);
  }

  Value relu(const Value& x) { return emit(fmt::format("torch.relu({})", x.var), x.shape); }

  // x · relu6(x + 3) / 6, the form the kernel detector recognises.
  Value hswish(const Value& x) {
    return emit(fmt::format("{x} * torch.clamp({x} + 3.0, 0.0, 6.0) / 6.0", fmt::arg("x", x.var)),
                x.shape);
  }

  Value fc(const Value& x, std::int64_t cout) {
    const std::int64_t cin = x.shape[1];
    const std::string w = weight(::torch::randn({cin, cout}) / std::sqrt(double(cin)));
    const std::string b = weight(::torch::randn({cout}) * 0.1);
    return emit(fmt::format("torch.addmm({}, {}, {})", b, x.var, w), {x.shape[0], cout});
  }

  Value pool(const Value& x, bool max, std::int64_t ks, std::int64_t stride) {
    const std::int64_t pad = (ks - 1) / 2;
    const std::int64_t out = (x.shape[2] + 2 * pad - ks) / stride + 1;
    const std::string call =
        max ? fmt::format("torch.max_pool2d({}, [{k}, {k}], [{s}, {s}], [{p}, {p}], [1, 1], False)",
                          x.var, fmt::arg("k", ks), fmt::arg("s", stride), fmt::arg("p", pad))
            : fmt::format(
                  "torch.avg_pool2d({}, [{k}, {k}], [{s}, {s}], [{p}, {p}], False, True, None)",
                  x.var, fmt::arg("k", ks), fmt::arg("s", stride), fmt::arg("p", pad));
    return emit(call, {1, x.shape[1], out, out});
  }

  // The second operand of add and concat is another input of the block, shaped like x.
  Value add(const Value& x) {
    return emit(fmt::format("{} + {}", x.var, input(x.shape).var), x.shape);
  }

  Value concat(const Value& x) {
    return emit(fmt::format("torch.cat([{}, {}], 1)", x.var, input(x.shape).var),
                {1, 2 * x.shape[1], x.shape[2], x.shape[3]});
  }

  Value global_avgpool(const Value& x) {
    return emit(fmt::format("torch.mean({}, [2, 3], True)", x.var), {1, x.shape[1], 1, 1});
  }

  Value se(const Value& x) {
    const std::int64_t c = x.shape[1];
    Value s = global_avgpool(x);
    s = relu(conv(s, std::max<std::int64_t>(c / kSeReduction, 1), 1, 1, false));
    s = conv(s, c, 1, 1, false);
    s = emit(fmt::format("torch.clamp({} + 3.0, 0.0, 6.0) / 6.0", s.var), s.shape);
    return emit(fmt::format("{} * {}", x.var, s.var), x.shape);
  }

  Value channel_shuffle(const Value& x) {
    const std::int64_t c = x.shape[1], h = x.shape[2], w = x.shape[3];
    return emit(
        fmt::format("torch.reshape(torch.transpose(torch.reshape({}, [1, {}, {}, {}, {}]), 1, 2), "
                    "[1, {}, {}, {}])",
                    x.var, kShuffleGroups, c / kShuffleGroups, h, w, c, h, w),
        x.shape);
  }

  Result<KernelCall> finish(const Value& out, std::string description) {
    std::string args;
    for (const Value& in : inputs_) args += ", " + in.var;
    const std::string source =
        fmt::format("def forward(self{}):\n{}    return {}\n", args, body_, out.var);
    KernelCall call;
    call.description = std::move(description);
    call.input_shape = inputs_.front().shape;
    try {
      module_.define(source);
      module_.eval();
      ::torch::jit::Module frozen = ::torch::jit::freeze(module_);
      auto optimised =
          std::make_shared<::torch::jit::Module>(::torch::jit::optimize_for_inference(frozen));
      auto inputs = std::make_shared<std::vector<::torch::jit::IValue>>();
      for (const Value& in : inputs_)
        inputs->emplace_back(::torch::randn(in.shape, ::torch::device(device_)));
      {
        ::torch::NoGradGuard no_grad;
        const ::torch::Tensor y = optimised->forward(*inputs).toTensor();
        call.output_shape = Shape(y.sizes().begin(), y.sizes().end());
      }
      const bool cuda = device_ == ::torch::kCUDA;
      call.run = [optimised, inputs, cuda]() -> Status {
        try {
          ::torch::NoGradGuard no_grad;
          optimised->forward(*inputs);
          if (cuda) ::torch::cuda::synchronize();
          return Status::Ok();
        } catch (const std::exception& e) {
          return Error(ErrorCode::kInternal, fmt::format("libtorch: {}", e.what()));
        }
      };
    } catch (const std::exception& e) {
      return Error(ErrorCode::kUnsupported, fmt::format("{}: libtorch cannot build this block: {}",
                                                        call.description, e.what()));
    }
    if (call.output_shape != out.shape) {
      return Error(ErrorCode::kInternal,
                   fmt::format("{}: output shape [{}], expected [{}]", call.description,
                               fmt::join(call.output_shape, ", "), fmt::join(out.shape, ", ")));
    }
    return call;
  }

 private:
  std::string weight(const ::torch::Tensor& t) {
    const std::string name = fmt::format("w{}", weights_++);
    module_.register_buffer(name, t.to(device_));
    return "self." + name;
  }

  Value emit(const std::string& expression, Shape shape) {
    Value v{fmt::format("t{}", values_++), std::move(shape)};
    body_ += fmt::format("    {} = {}\n", v.var, expression);
    return v;
  }

  ::torch::jit::Module module_;
  ::torch::Device device_;
  std::vector<Value> inputs_;
  std::string body_;
  int weights_ = 0;
  int values_ = 0;
};

Status check_options(const KernelCallOptions& options) {
  if (options.device != "cpu" && options.device != "cuda") {
    return invalid_input("kernel calls", "KernelCallOptions::device", options.device,
                         "must be cpu or cuda");
  }
  if (options.device == "cuda" && !cuda_available()) {
    return Error(ErrorCode::kUnavailable,
                 "KernelCallOptions::device cuda: this libtorch has no usable CUDA device");
  }
  if (options.threads > 0) ::torch::set_num_threads(options.threads);
  return Status::Ok();
}

std::string shape_text(const Shape& s) { return fmt::format("{}", fmt::join(s, "×")); }

// One op of a rule block, on x.
Result<Value> rule_op(ScriptBlock& block, const std::string& op, const Value& x,
                      const RuleBlockShape& shape) {
  const bool flat = x.shape.size() == 2;
  const bool takes_flat = op == "fc" || op == "bn" || op == "relu" || op == "hswish" || op == "add";
  if (flat && !takes_flat)
    return invalid_input("fusion rules", "op", op, "cannot follow fc in a rule block");
  if (!flat && op == "fc")
    return invalid_input("fusion rules", "op", op, "fc can only start a rule block or follow fc");
  if (op == "conv") return block.conv(x, shape.channels, shape.kernel_size, 1, false);
  if (op == "dwconv") return block.conv(x, x.shape[1], shape.kernel_size, 1, true);
  if (op == "bn") return block.bn(x);
  if (op == "relu") return block.relu(x);
  if (op == "hswish") return block.hswish(x);
  if (op == "fc") return block.fc(x, shape.channels);
  if (op == "add") return block.add(x);
  if (op == "maxpool") return block.pool(x, true, shape.kernel_size, 1);
  if (op == "avgpool") return block.pool(x, false, shape.kernel_size, 1);
  if (op == "concat") return block.concat(x);
  return invalid_input("fusion rules", "op", op,
                       fmt::format("detect-rules can build {}", fmt::join(rule_block_ops(), ", ")));
}

Result<KernelCall> rule_block(const std::vector<std::string>& ops, Shape input,
                              const RuleBlockShape& shape, const KernelCallOptions& options) {
  ScriptBlock block(fmt::format("{}", fmt::join(ops, "_")), options);
  Value v = block.input(input);
  for (const std::string& op : ops) {
    JP_TRY(v, rule_op(block, op, v, shape));
  }
  return block.finish(v, fmt::format("{} on {}", fmt::join(ops, " → "), shape_text(input)));
}

}  // namespace

Result<KernelCall> make_kernel_call(const predict::KernelConfig& k,
                                    const KernelCallOptions& options) {
  JP_RETURN_IF_ERROR(check_options(options));
  const std::string& type = k.op;
  const auto& types = predict::benchable_kernel_types();
  if (std::find(types.begin(), types.end(), type) == types.end()) {
    return invalid_input(k.name, "OP", type,
                         fmt::format("kernel-bench builds {}", fmt::join(types, ", ")));
  }
  if (k.cin <= 0 || (type != "fc" && k.hw <= 0)) {
    return invalid_input(k.name, k.cin <= 0 ? "CIN" : "HW",
                         std::to_string(k.cin <= 0 ? k.cin : k.hw), "must be positive");
  }
  ScriptBlock block(type, options);
  const bool flat = type == "fc";
  Value v = block.input(flat ? Shape{1, k.cin} : Shape{1, k.cin, k.hw, k.hw});
  const Shape input = v.shape;
  if (type == "conv-bn-relu" || type == "dwconv-bn-relu") {
    v = block.relu(block.bn(block.conv(v, type == "conv-bn-relu" ? k.cout : k.cin, k.kernel_size,
                                       k.stride, type == "dwconv-bn-relu")));
  } else if (type == "fc") {
    v = block.fc(v, k.cout);
  } else if (type == "maxpool" || type == "avgpool") {
    v = block.pool(v, type == "maxpool", k.kernel_size, k.stride);
  } else if (type == "bn") {
    v = block.bn(v);
  } else if (type == "relu") {
    v = block.relu(v);
  } else if (type == "bn-relu") {
    v = block.relu(block.bn(v));
  } else if (type == "add") {
    v = block.add(v);
  } else if (type == "add-relu") {
    v = block.relu(block.add(v));
  } else if (type == "hswish") {
    v = block.hswish(v);
  } else if (type == "se") {
    v = block.se(v);
  } else if (type == "channelshuffle") {
    if (k.cin % kShuffleGroups != 0)
      return invalid_input(k.name, "CIN", std::to_string(k.cin),
                           "channelshuffle needs an even count");
    v = block.channel_shuffle(v);
  } else {
    v = block.global_avgpool(v);
  }
  return block.finish(v, fmt::format("{} {} on {}", type, k.name, shape_text(input)));
}

const std::vector<std::string>& rule_block_ops() {
  static const std::vector<std::string> kOps{"conv", "dwconv", "bn",      "relu",    "hswish",
                                             "fc",   "add",    "maxpool", "avgpool", "concat"};
  return kOps;
}

Result<RuleCalls> make_rule_calls(const std::string& producer_op, const std::string& consumer_op,
                                  const RuleBlockShape& shape, const KernelCallOptions& options) {
  JP_RETURN_IF_ERROR(check_options(options));
  if (shape.hw <= 0 || shape.channels <= 0 || shape.kernel_size <= 0) {
    return invalid_input("detect-rules", "block shape",
                         fmt::format("{}×{} KS {}", shape.hw, shape.channels, shape.kernel_size),
                         "must be positive");
  }
  const Shape input =
      producer_op == "fc" ? Shape{1, shape.channels} : Shape{1, shape.channels, shape.hw, shape.hw};
  RuleCalls calls;
  JP_TRY(calls.producer, rule_block({producer_op}, input, shape, options));
  JP_TRY(calls.consumer, rule_block({consumer_op}, calls.producer.output_shape, shape, options));
  JP_TRY(calls.fused, rule_block({producer_op, consumer_op}, input, shape, options));
  return calls;
}

}  // namespace jouleprof::torch_adapter
