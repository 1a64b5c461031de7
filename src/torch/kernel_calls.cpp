#include "torch/kernel_calls.hpp"

#include <fmt/format.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

#include "jouleprof/torch.hpp"
#include "predict/kernel_space.hpp"
#include "predict/kernel_type.hpp"
#include "torch/torch_device.hpp"

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
        kind_(options.device),
        device_(torch_device_type(options.device)) {
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
      call.run = [optimised, inputs, kind = kind_]() -> Status {
        try {
          ::torch::NoGradGuard no_grad;
          optimised->forward(*inputs);
          synchronize(kind);
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
  DeviceKind kind_;
  ::torch::Device device_;
  std::vector<Value> inputs_;
  std::string body_;
  int weights_ = 0;
  int values_ = 0;
};

Status check_options(const KernelCallOptions& options) {
  JP_RETURN_IF_ERROR(require_usable(options.device, "KernelCallOptions::device"));
  if (options.threads > 0) ::torch::set_num_threads(options.threads);
  return Status::Ok();
}

std::string shape_text(const Shape& s) { return fmt::format("{}", fmt::join(s, "×")); }

// The ops a rule block is built of; kRuleOpNames (index = value) names them as fusion rules do.
enum class RuleOp : std::uint8_t {
  kConv,
  kDwconv,
  kBn,
  kRelu,
  kHswish,
  kFc,
  kAdd,
  kMaxpool,
  kAvgpool,
  kConcat,
};
constexpr std::array<std::string_view, 10> kRuleOpNames{
    "conv", "dwconv", "bn", "relu", "hswish", "fc", "add", "maxpool", "avgpool", "concat"};

std::optional<RuleOp> rule_op_from_string(std::string_view name) {
  for (std::size_t i = 0; i < kRuleOpNames.size(); ++i) {
    if (kRuleOpNames[i] == name) return static_cast<RuleOp>(i);
  }
  return std::nullopt;
}

// One op of a rule block, on x.
Result<Value> rule_op(ScriptBlock& block, const std::string& name, const Value& x,
                      const RuleBlockShape& shape) {
  const std::optional<RuleOp> op = rule_op_from_string(name);
  if (!op) {
    return invalid_input(
        "fusion rules", "op", name,
        fmt::format("detect-rules can build {}", fmt::join(rule_block_ops(), ", ")));
  }
  const bool flat = x.shape.size() == 2;
  const bool takes_flat = *op == RuleOp::kFc || *op == RuleOp::kBn || *op == RuleOp::kRelu ||
                          *op == RuleOp::kHswish || *op == RuleOp::kAdd;
  if (flat && !takes_flat)
    return invalid_input("fusion rules", "op", name, "cannot follow fc in a rule block");
  if (!flat && *op == RuleOp::kFc)
    return invalid_input("fusion rules", "op", name, "fc can only start a rule block or follow fc");
  switch (*op) {
    case RuleOp::kConv:
      return block.conv(x, shape.channels, shape.kernel_size, 1, false);
    case RuleOp::kDwconv:
      return block.conv(x, x.shape[1], shape.kernel_size, 1, true);
    case RuleOp::kBn:
      return block.bn(x);
    case RuleOp::kRelu:
      return block.relu(x);
    case RuleOp::kHswish:
      return block.hswish(x);
    case RuleOp::kFc:
      return block.fc(x, shape.channels);
    case RuleOp::kAdd:
      return block.add(x);
    case RuleOp::kMaxpool:
      return block.pool(x, true, shape.kernel_size, 1);
    case RuleOp::kAvgpool:
      return block.pool(x, false, shape.kernel_size, 1);
    case RuleOp::kConcat:
      return block.concat(x);
  }
  return x;
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
  using predict::KernelType;
  JP_RETURN_IF_ERROR(check_options(options));
  const std::optional<KernelType> type = predict::kernel_type_from_string(k.op);
  const auto benchable = predict::benchable_kernel_types();
  if (!type || std::find(benchable.begin(), benchable.end(), *type) == benchable.end()) {
    return invalid_input(
        k.name, "OP", k.op,
        fmt::format("kernel-bench builds {}", predict::benchable_kernel_type_list()));
  }
  const bool flat = *type == KernelType::kFc;
  if (k.cin <= 0 || (!flat && k.hw <= 0)) {
    return invalid_input(k.name, k.cin <= 0 ? "CIN" : "HW",
                         std::to_string(k.cin <= 0 ? k.cin : k.hw), "must be positive");
  }
  ScriptBlock block(k.op, options);
  Value v = block.input(flat ? Shape{1, k.cin} : Shape{1, k.cin, k.hw, k.hw});
  const Shape input = v.shape;
  switch (*type) {
    case KernelType::kConvBnRelu:
      v = block.relu(block.bn(block.conv(v, k.cout, k.kernel_size, k.stride, false)));
      break;
    case KernelType::kDwconvBnRelu:
      v = block.relu(block.bn(block.conv(v, k.cin, k.kernel_size, k.stride, true)));
      break;
    case KernelType::kFc:
      v = block.fc(v, k.cout);
      break;
    case KernelType::kMaxpool:
    case KernelType::kAvgpool:
      v = block.pool(v, *type == KernelType::kMaxpool, k.kernel_size, k.stride);
      break;
    case KernelType::kBn:
      v = block.bn(v);
      break;
    case KernelType::kRelu:
      v = block.relu(v);
      break;
    case KernelType::kBnRelu:
      v = block.relu(block.bn(v));
      break;
    case KernelType::kAdd:
      v = block.add(v);
      break;
    case KernelType::kAddRelu:
      v = block.relu(block.add(v));
      break;
    case KernelType::kHswish:
      v = block.hswish(v);
      break;
    case KernelType::kSe:
      v = block.se(v);
      break;
    case KernelType::kChannelShuffle:
      if (k.cin % kShuffleGroups != 0)
        return invalid_input(k.name, "CIN", std::to_string(k.cin),
                             "channelshuffle needs an even count");
      v = block.channel_shuffle(v);
      break;
    case KernelType::kGlobalAvgpool:
      v = block.global_avgpool(v);
      break;
    case KernelType::kConcat:  // not benchable: refused above
      break;
  }
  return block.finish(v, fmt::format("{} {} on {}", k.op, k.name, shape_text(input)));
}

const std::vector<std::string>& rule_block_ops() {
  static const std::vector<std::string> kOps(kRuleOpNames.begin(), kRuleOpNames.end());
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
  const Shape input = rule_op_from_string(producer_op) == RuleOp::kFc
                          ? Shape{1, shape.channels}
                          : Shape{1, shape.channels, shape.hw, shape.hw};
  RuleCalls calls;
  JP_TRY(calls.producer, rule_block({producer_op}, input, shape, options));
  JP_TRY(calls.consumer, rule_block({consumer_op}, calls.producer.output_shape, shape, options));
  JP_TRY(calls.fused, rule_block({producer_op, consumer_op}, input, shape, options));
  return calls;
}

}  // namespace jouleprof::torch_adapter
