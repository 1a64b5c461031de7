// Vision networks and an MLP, with torchvision's structure and module names (layer1/0/conv1 …).
#include <array>
#include <vector>

#include "torch/zoo.hpp"

namespace jouleprof::torch_adapter {
namespace {

namespace nn = torch::nn;
namespace F = torch::nn::functional;

LayerName indexed(int i) { return layer_name(std::to_string(i)); }

// conv → batch norm (→ activation), each in its own scope.
class ConvNorm : public nn::Module {
 public:
  enum class Activation { kNone, kRelu, kRelu6 };
  ConvNorm(int in, int out, int kernel, int stride, int groups, Activation activation,
           const std::string& conv_name = "conv", const std::string& norm_name = "bn")
      : conv_(register_module(conv_name, nn::Conv2d(nn::Conv2dOptions(in, out, kernel)
                                                        .stride(stride)
                                                        .padding(kernel / 2)
                                                        .groups(groups)
                                                        .bias(false)))),
        norm_(register_module(norm_name, nn::BatchNorm2d(out))),
        conv_name_(layer_name(conv_name)),
        norm_name_(layer_name(norm_name)),
        activation_(activation) {}

  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor y = scoped(conv_name_, [&] { return conv_(x); });
    y = scoped(norm_name_, [&] { return norm_(y); });
    if (activation_ == Activation::kRelu) return torch::relu(y);
    if (activation_ == Activation::kRelu6) return torch::clamp(y, 0.0, 6.0);
    return y;
  }

 private:
  nn::Conv2d conv_;
  nn::BatchNorm2d norm_;
  LayerName conv_name_, norm_name_;
  Activation activation_;
};
using Act = ConvNorm::Activation;

// ResNet blocks: BasicBlock (18/34) and Bottleneck (50+), with an optional downsample path.
class ResidualBlock : public nn::Module {
 public:
  ResidualBlock(int in, int planes, int stride, bool bottleneck) {
    const int expansion = bottleneck ? 4 : 1;
    if (bottleneck) {
      parts_.push_back(register_module(
          "a", std::make_shared<ConvNorm>(in, planes, 1, 1, 1, Act::kRelu, "conv1", "bn1")));
      parts_.push_back(register_module(
          "b",
          std::make_shared<ConvNorm>(planes, planes, 3, stride, 1, Act::kRelu, "conv2", "bn2")));
      parts_.push_back(register_module(
          "c",
          std::make_shared<ConvNorm>(planes, planes * 4, 1, 1, 1, Act::kNone, "conv3", "bn3")));
    } else {
      parts_.push_back(register_module(
          "a", std::make_shared<ConvNorm>(in, planes, 3, stride, 1, Act::kRelu, "conv1", "bn1")));
      parts_.push_back(register_module(
          "b", std::make_shared<ConvNorm>(planes, planes, 3, 1, 1, Act::kNone, "conv2", "bn2")));
    }
    if (stride != 1 || in != planes * expansion) {
      downsample_ = register_module(
          "downsample",
          std::make_shared<ConvNorm>(in, planes * expansion, 1, stride, 1, Act::kNone, "0", "1"));
    }
  }

  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor y = x;
    for (auto& part : parts_) y = part->forward(y);
    static const LayerName downsample_name = layer_name("downsample");
    torch::Tensor identity =
        downsample_ ? scoped(downsample_name, [&] { return downsample_->forward(x); }) : x;
    return torch::relu(y + identity);
  }

 private:
  std::vector<std::shared_ptr<ConvNorm>> parts_;
  std::shared_ptr<ConvNorm> downsample_;
};

class ResNet : public ScopedNet {
 public:
  ResNet(int depth, int classes)
      : root_(layer_name("resnet" + std::to_string(depth))),
        stem_(register_module(
            "stem", std::make_shared<ConvNorm>(3, 64, 7, 2, 1, Act::kRelu, "conv1", "bn1"))),
        fc_(register_module("fc", nn::Linear(depth >= 50 ? 2048 : 512, classes))) {
    const bool bottleneck = depth >= 50;
    const std::array<int, 4> blocks =
        depth >= 50 ? std::array<int, 4>{3, 4, 6, 3} : std::array<int, 4>{2, 2, 2, 2};
    int in = 64;
    for (int stage = 0; stage < 4; ++stage) {
      const int planes = 64 << stage;
      std::vector<std::shared_ptr<ResidualBlock>> stage_blocks;
      for (int b = 0; b < blocks[static_cast<std::size_t>(stage)]; ++b) {
        const int stride = (b == 0 && stage > 0) ? 2 : 1;
        stage_blocks.push_back(
            register_module("layer" + std::to_string(stage + 1) + "_" + std::to_string(b),
                            std::make_shared<ResidualBlock>(in, planes, stride, bottleneck)));
        in = planes * (bottleneck ? 4 : 1);
      }
      stages_.push_back(std::move(stage_blocks));
      stage_names_.push_back(layer_name("layer" + std::to_string(stage + 1)));
    }
  }

  torch::Tensor forward(const torch::Tensor& image) override {
    static const LayerName maxpool = layer_name("maxpool");
    static const LayerName avgpool = layer_name("avgpool");
    static const LayerName fc = layer_name("fc");
    LayerScope root(root_);
    torch::Tensor x = stem_->forward(image);
    x = scoped(maxpool,
               [&] { return F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2).padding(1)); });
    for (std::size_t s = 0; s < stages_.size(); ++s) {
      x = scoped(stage_names_[s], [&] {
        torch::Tensor y = x;
        for (std::size_t b = 0; b < stages_[s].size(); ++b) {
          y = scoped(indexed(static_cast<int>(b)), [&] { return stages_[s][b]->forward(y); });
        }
        return y;
      });
    }
    x = scoped(avgpool, [&] {
      return F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(1)).flatten(1);
    });
    return scoped(fc, [&] { return fc_(x); });
  }

 private:
  LayerName root_;
  std::shared_ptr<ConvNorm> stem_;
  nn::Linear fc_;
  std::vector<std::vector<std::shared_ptr<ResidualBlock>>> stages_;
  std::vector<LayerName> stage_names_;
};

class InvertedResidual : public nn::Module {
 public:
  InvertedResidual(int in, int out, int stride, int expand_ratio)
      : residual_(stride == 1 && in == out) {
    const int hidden = in * expand_ratio;
    if (expand_ratio != 1) {
      expand_ = register_module(
          "expand",
          std::make_shared<ConvNorm>(in, hidden, 1, 1, 1, Act::kRelu6, "expand", "expand_bn"));
    }
    depthwise_ = register_module(
        "depthwise", std::make_shared<ConvNorm>(hidden, hidden, 3, stride, hidden, Act::kRelu6,
                                                "depthwise", "depthwise_bn"));
    project_ = register_module(
        "project",
        std::make_shared<ConvNorm>(hidden, out, 1, 1, 1, Act::kNone, "project", "project_bn"));
  }

  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor y = expand_ ? expand_->forward(x) : x;
    y = project_->forward(depthwise_->forward(y));
    return residual_ ? x + y : y;
  }

 private:
  bool residual_;
  std::shared_ptr<ConvNorm> expand_, depthwise_, project_;
};

class MobileNetV2 : public ScopedNet {
 public:
  explicit MobileNetV2(int classes)
      : root_(layer_name("mobilenet_v2")),
        stem_(register_module("stem", std::make_shared<ConvNorm>(3, 32, 3, 2, 1, Act::kRelu6))),
        head_(register_module("head", std::make_shared<ConvNorm>(320, 1280, 1, 1, 1, Act::kRelu6))),
        dropout_(register_module("dropout", nn::Dropout(0.2))),
        classifier_(register_module("classifier", nn::Linear(1280, classes))) {
    // (expansion t, channels c, repeats n, first stride s), as in the paper's Table 2.
    const int settings[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    int in = 32;
    for (const auto& s : settings) {
      for (int i = 0; i < s[2]; ++i) {
        blocks_.push_back(
            register_module("block" + std::to_string(blocks_.size() + 1),
                            std::make_shared<InvertedResidual>(in, s[1], i == 0 ? s[3] : 1, s[0])));
        in = s[1];
      }
    }
  }

  torch::Tensor forward(const torch::Tensor& image) override {
    static const LayerName features = layer_name("features");
    static const LayerName classifier = layer_name("classifier");
    LayerScope root(root_);
    torch::Tensor x = scoped(features, [&] {
      torch::Tensor y = scoped(indexed(0), [&] { return stem_->forward(image); });
      for (std::size_t b = 0; b < blocks_.size(); ++b) {
        y = scoped(indexed(static_cast<int>(b + 1)), [&] { return blocks_[b]->forward(y); });
      }
      return scoped(indexed(static_cast<int>(blocks_.size() + 1)),
                    [&] { return head_->forward(y); });
    });
    x = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(1)).flatten(1);
    return scoped(classifier, [&] { return classifier_(dropout_(x)); });
  }

 private:
  LayerName root_;
  std::shared_ptr<ConvNorm> stem_, head_;
  nn::Dropout dropout_;
  nn::Linear classifier_;
  std::vector<std::shared_ptr<InvertedResidual>> blocks_;
};

class Vgg16 : public ScopedNet {
 public:
  Vgg16(int classes, int classifier_width)
      : root_(layer_name("vgg16")),
        fc1_(register_module("fc1", nn::Linear(512 * 7 * 7, classifier_width))),
        fc2_(register_module("fc2", nn::Linear(classifier_width, classifier_width))),
        fc3_(register_module("fc3", nn::Linear(classifier_width, classes))),
        dropout_(register_module("dropout", nn::Dropout(0.5))) {
    // Channels per conv, 0 = max pool (configuration "D" of the VGG paper).
    const int config[] = {64, 64,  0,   128, 128, 0,   256, 256, 256,
                          0,  512, 512, 512, 0,   512, 512, 512, 0};
    int in = 3;
    int block = 1;
    int conv_in_block = 1;
    for (int channels : config) {
      if (channels == 0) {
        layers_.push_back({nullptr, layer_name("pool" + std::to_string(block))});
        ++block;
        conv_in_block = 1;
        continue;
      }
      const std::string name =
          "conv" + std::to_string(block) + "_" + std::to_string(conv_in_block++);
      layers_.push_back(
          {register_module(name, nn::Conv2d(nn::Conv2dOptions(in, channels, 3).padding(1))),
           layer_name(name)});
      in = channels;
    }
  }

  torch::Tensor forward(const torch::Tensor& image) override {
    static const LayerName features = layer_name("features");
    static const LayerName classifier = layer_name("classifier");
    static const std::array<LayerName, 3> fc_names{layer_name("fc1"), layer_name("fc2"),
                                                   layer_name("fc3")};
    LayerScope root(root_);
    torch::Tensor x = scoped(features, [&] {
      torch::Tensor y = image;
      for (auto& [conv, name] : layers_) {
        y = scoped(name, [&] {
          return conv ? torch::relu(conv(y)) : F::max_pool2d(y, F::MaxPool2dFuncOptions(2));
        });
      }
      return y;
    });
    x = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(7)).flatten(1);
    return scoped(classifier, [&] {
      torch::Tensor y = scoped(fc_names[0], [&] { return dropout_(torch::relu(fc1_(x))); });
      y = scoped(fc_names[1], [&] { return dropout_(torch::relu(fc2_(y))); });
      return scoped(fc_names[2], [&] { return fc3_(y); });
    });
  }

 private:
  struct Layer {
    nn::Conv2d conv;  // null: a max pool
    LayerName name;
  };
  LayerName root_;
  nn::Linear fc1_, fc2_, fc3_;
  nn::Dropout dropout_;
  std::vector<Layer> layers_;
};

class Mlp : public ScopedNet {
 public:
  Mlp(int inputs, int hidden, int depth, int classes) : root_(layer_name("mlp")) {
    int in = inputs;
    for (int i = 0; i < depth; ++i) {
      const std::string name = "fc" + std::to_string(i + 1);
      layers_.push_back({register_module(name, nn::Linear(in, i + 1 == depth ? classes : hidden)),
                         layer_name(name)});
      in = hidden;
    }
  }

  torch::Tensor forward(const torch::Tensor& input) override {
    LayerScope root(root_);
    torch::Tensor x = input;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      x = scoped(layers_[i].name, [&] {
        torch::Tensor y = layers_[i].linear(x);
        return i + 1 == layers_.size() ? y : torch::relu(y);
      });
    }
    return x;
  }

 private:
  struct Layer {
    nn::Linear linear;
    LayerName name;
  };
  LayerName root_;
  std::vector<Layer> layers_;
};

}  // namespace

std::shared_ptr<ScopedNet> make_resnet(int depth, int classes) {
  return std::make_shared<ResNet>(depth, classes);
}
std::shared_ptr<ScopedNet> make_mobilenet_v2(int classes) {
  return std::make_shared<MobileNetV2>(classes);
}
std::shared_ptr<ScopedNet> make_vgg16(int classes, int classifier_width) {
  return std::make_shared<Vgg16>(classes, classifier_width);
}
std::shared_ptr<ScopedNet> make_mlp(int inputs, int hidden, int depth, int classes) {
  return std::make_shared<Mlp>(inputs, hidden, depth, classes);
}

}  // namespace jouleprof::torch_adapter
