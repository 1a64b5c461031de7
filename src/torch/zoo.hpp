// The model zoo's building blocks: every zoo network is a ScopedNet whose forward opens a layer
// scope per module, so that its aten ops land under paths like bert/encoder/layer_3/attention.
#pragma once

#include <torch/torch.h>

#include <string>
#include <utility>

#include "jouleprof/torch.hpp"

namespace jouleprof::torch_adapter {

// A zoo network: synthetic input in, class logits out.
class ScopedNet : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& input) = 0;
};

// Runs f() inside a layer scope.
template <typename F>
auto scoped(LayerName name, F&& f) {
  LayerScope scope(name);
  return std::forward<F>(f)();
}

struct BertConfig {
  int layers = 12;
  int hidden = 768;
  int heads = 12;
  int intermediate = 0;  // 0: 4 × hidden
  int vocab = 30522;
  int max_positions = 512;
  int type_vocab = 2;
  int embedding = 0;           // ALBERT's factorised embedding size; 0: = hidden (BERT)
  bool shared_layers = false;  // ALBERT: one layer's weights used by every layer
  int classes = 2;
  double dropout = 0.1;
};

// BERT (or, with embedding and shared_layers set, ALBERT) encoder with a pooler and classifier.
std::shared_ptr<ScopedNet> make_bert(const BertConfig& config, const std::string& root_name);

std::shared_ptr<ScopedNet> make_resnet(int depth, int classes);  // 18 or 50
std::shared_ptr<ScopedNet> make_mobilenet_v2(int classes);
std::shared_ptr<ScopedNet> make_vgg16(int classes, int classifier_width);
std::shared_ptr<ScopedNet> make_mlp(int inputs, int hidden, int depth, int classes);

}  // namespace jouleprof::torch_adapter
