// The zoo's presets, synthetic inputs and the inference / training step that jouleprof profiles.
#include <map>
#include <sstream>

#include "torch/torch_device.hpp"
#include "torch/zoo.hpp"

namespace jouleprof::torch_adapter {
namespace {

enum class Family { kBert, kAlbert, kResNet18, kResNet50, kMobileNetV2, kVgg16, kMlp };

struct Preset {
  Preset(Family f, std::string name, BertConfig config = {})
      : family(f), family_name(std::move(name)), bert(config) {}

  Family family;
  std::string family_name;
  BertConfig bert;  // BERT family only
  int batch = 8;
  int seq = 128;
  int image = 224;
  int hidden = 0;  // MLP width / VGG classifier width
  int classes = 1000;
  std::string description;
};

BertConfig bert_config(int layers, int hidden) {
  BertConfig c;
  c.layers = layers;
  c.hidden = hidden;
  c.heads = hidden / 64;  // 64 dimensions per head, as in every published BERT size
  return c;
}

std::map<std::string, Preset> presets() {
  std::map<std::string, Preset> p;
  auto bert = [&](const std::string& name, int layers, int hidden, int heads,
                  const std::string& what) {
    Preset preset(Family::kBert, "bert", bert_config(layers, hidden));
    preset.bert.heads = heads;
    preset.classes = 2;
    preset.description = what + ": L=" + std::to_string(layers) + " H=" + std::to_string(hidden) +
                         " A=" + std::to_string(heads) + ", seq 128, batch 8";
    p.emplace(name, preset);
  };
  bert("bert-base", 12, 768, 12, "BERT-base encoder");
  bert("bert", 12, 768, 12,
       "BERT encoder (bert-base unless --layers/--hidden/--heads say otherwise)");
  bert("bert-mini", 4, 256, 4, "BERT-mini encoder");
  for (int layers : {6, 8, 10, 12}) {
    for (int hidden : {512, 768}) {
      bert("bert-L" + std::to_string(layers) + "-H" + std::to_string(hidden), layers, hidden,
           hidden / 64, "BERT grid variant");
    }
  }
  for (const std::string name : {"albert-base", "albert"}) {
    Preset albert(Family::kAlbert, "albert", bert_config(12, 768));
    albert.bert.vocab = 30000;
    albert.bert.embedding = 128;
    albert.bert.shared_layers = true;
    albert.bert.dropout = 0.0;  // ALBERT trains without dropout
    albert.classes = 2;
    albert.description =
        "ALBERT-base: one shared layer applied L=12 times, H=768 A=12, embeddings E=128";
    p.emplace(name, albert);
  }
  auto vision = [&](const std::string& name, Family family, const std::string& family_name,
                    const std::string& what) {
    Preset preset(family, family_name);
    preset.description = what + ", 3x224x224 images, batch 8, 1000 classes";
    p.emplace(name, preset);
  };
  vision("resnet-18", Family::kResNet18, "resnet", "ResNet-18");
  vision("resnet-50", Family::kResNet50, "resnet", "ResNet-50");
  vision("mobilenet-v2", Family::kMobileNetV2, "mobilenet", "MobileNetV2");
  vision("vgg16", Family::kVgg16, "vgg", "VGG16 (classifier width 4096, --hidden changes it)");
  p.at("vgg16").hidden = 4096;
  Preset mlp(Family::kMlp, "mlp");
  mlp.batch = 64;
  mlp.image = 28;  // inputs = image × image (MNIST-sized by default)
  mlp.hidden = 1024;
  mlp.classes = 10;
  mlp.bert.layers = 4;
  mlp.description = "MLP: 4 linear layers of width 1024 (--layers, --hidden), 784 inputs, batch 64";
  p.emplace("mlp", mlp);
  return p;
}

Error bad_option(std::string_view option, int value, std::string_view problem) {
  return invalid_input("workload", option, std::to_string(value), problem);
}

class ZooWorkload : public Workload {
 public:
  ZooWorkload(std::shared_ptr<ScopedNet> net, torch::Tensor input, torch::Tensor target, Mode mode,
              DeviceKind device, std::string description, double learning_rate)
      : net_(std::move(net)),
        input_(std::move(input)),
        target_(std::move(target)),
        mode_(mode),
        device_(device),
        description_(std::move(description)),
        optimizer_(net_->parameters(), torch::optim::SGDOptions(learning_rate)) {
    if (mode_ == Mode::kTrain) {
      net_->train();
    } else {
      net_->eval();
    }
  }

  void step() override {
    static const NameId step_name = intern_name("step");
    Scope step_scope(step_name, SpanCategory::kStep);
    if (mode_ == Mode::kInfer) {
      torch::NoGradGuard no_grad;
      PassScope forward(Pass::kForward);
      net_->forward(input_);
    } else {
      torch::Tensor loss;
      {
        PassScope forward(Pass::kForward);
        loss = torch::nn::functional::cross_entropy(net_->forward(input_), target_);
      }
      {
        PassScope backward(Pass::kBackward);
        loss.backward();
      }
      {
        PassScope optimizer(Pass::kOptimizer);
        optimizer_.step();
        optimizer_.zero_grad();
      }
    }
    synchronize(device_);
  }

  std::int64_t samples_per_step() const override { return input_.size(0); }

  std::int64_t parameter_count() const override {
    std::int64_t n = 0;
    for (const auto& p : net_->parameters()) n += p.numel();
    return n;
  }

  std::string description() const override { return description_; }
  DeviceKind device() const override { return device_; }

 private:
  std::shared_ptr<ScopedNet> net_;
  torch::Tensor input_;
  torch::Tensor target_;
  Mode mode_;
  DeviceKind device_;
  std::string description_;
  torch::optim::SGD optimizer_;
};

}  // namespace

std::string_view to_string(Mode mode) { return mode == Mode::kTrain ? "train" : "infer"; }

std::optional<Mode> mode_from_string(std::string_view text) {
  if (text == "infer") return Mode::kInfer;
  if (text == "train") return Mode::kTrain;
  return std::nullopt;
}

std::vector<ZooModel> zoo_models() {
  std::vector<ZooModel> models;
  for (const auto& [name, preset] : presets())
    models.push_back({name, preset.family_name, preset.description});
  return models;
}

Result<std::unique_ptr<Workload>> make_workload(const WorkloadOptions& options) {
  const auto all = presets();
  const auto found = all.find(options.model);
  if (found == all.end()) {
    return invalid_input("workload", "WorkloadOptions::model", options.model,
                         "is not a zoo model (zoo_models() lists them)");
  }
  Preset preset = found->second;
  for (auto [option, value] : {std::pair{"WorkloadOptions::batch", options.batch},
                               {"WorkloadOptions::seq", options.seq},
                               {"WorkloadOptions::image", options.image},
                               {"WorkloadOptions::layers", options.layers},
                               {"WorkloadOptions::hidden", options.hidden},
                               {"WorkloadOptions::heads", options.heads},
                               {"WorkloadOptions::vocab", options.vocab},
                               {"WorkloadOptions::threads", options.threads}}) {
    if (value < 0) return bad_option(option, value, "must not be negative");
  }
  JP_RETURN_IF_ERROR(require_usable(options.device, "WorkloadOptions::device"));
  const int batch = options.batch ? options.batch : preset.batch;
  const int seq = options.seq ? options.seq : preset.seq;
  const int image = options.image ? options.image : preset.image;

  if (options.threads > 0) torch::set_num_threads(options.threads);
  torch::manual_seed(options.seed);
  const torch::Device device(torch_device_type(options.device));

  std::shared_ptr<ScopedNet> net;
  torch::Tensor input;
  std::ostringstream description;
  description << options.model;
  int classes = preset.classes;
  if (preset.family == Family::kBert || preset.family == Family::kAlbert) {
    BertConfig c = preset.bert;
    if (options.layers) c.layers = options.layers;
    if (options.hidden) {
      c.hidden = options.hidden;
      if (!options.heads) c.heads = std::max(1, options.hidden / 64);
    }
    if (options.heads) c.heads = options.heads;
    if (options.vocab) c.vocab = options.vocab;
    if (c.hidden % c.heads != 0) {
      return bad_option(
          "WorkloadOptions::hidden", c.hidden,
          "must be a multiple of the number of heads (" + std::to_string(c.heads) + ")");
    }
    if (seq > c.max_positions) {
      return bad_option(
          "WorkloadOptions::seq", seq,
          "exceeds the " + std::to_string(c.max_positions) + " positions of the model");
    }
    net = make_bert(c, preset.family == Family::kAlbert ? "albert" : "bert");
    input = torch::randint(0, c.vocab, {batch, seq}, torch::kLong);
    description << " L=" << c.layers << " H=" << c.hidden << " A=" << c.heads;
    if (c.embedding) description << " E=" << c.embedding;
    description << " seq=" << seq;
  } else if (preset.family == Family::kMlp) {
    const int inputs = image * image;
    const int hidden = options.hidden ? options.hidden : preset.hidden;
    const int depth = options.layers ? options.layers : preset.bert.layers;
    net = make_mlp(inputs, hidden, depth, classes);
    input = torch::randn({batch, inputs});
    description << " inputs=" << inputs << " hidden=" << hidden << " layers=" << depth;
  } else {
    if (image < 32)
      return bad_option("WorkloadOptions::image", image,
                        "must be at least 32 for the vision models");
    switch (preset.family) {
      case Family::kResNet18:
        net = make_resnet(18, classes);
        break;
      case Family::kResNet50:
        net = make_resnet(50, classes);
        break;
      case Family::kMobileNetV2:
        net = make_mobilenet_v2(classes);
        break;
      default:
        net = make_vgg16(classes, options.hidden ? options.hidden : preset.hidden);
        break;
    }
    input = torch::randn({batch, 3, image, image});
    description << " image=" << image;
  }
  description << " batch=" << batch << ' ' << to_string(options.mode) << " on "
              << to_string(options.device);
  torch::Tensor target = torch::randint(0, classes, {batch}, torch::kLong);
  net->to(device);
  return std::unique_ptr<Workload>(
      std::make_unique<ZooWorkload>(net, input.to(device), target.to(device), options.mode,
                                    options.device, description.str(), options.learning_rate));
}

}  // namespace jouleprof::torch_adapter
