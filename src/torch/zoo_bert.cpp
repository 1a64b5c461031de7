// BERT and ALBERT encoders, named as in the reference implementation (Hugging Face's module
// names), so that a layer's breakdown reads attention/self/query, intermediate/dense, output/dense.
// No attention mask: every synthetic token is a real one.
#include <cmath>
#include <vector>

#include "torch/zoo.hpp"

namespace jouleprof::torch_adapter {
namespace {

namespace nn = torch::nn;

struct Names {
  LayerName attention = layer_name("attention");
  LayerName self = layer_name("self");
  LayerName query = layer_name("query");
  LayerName key = layer_name("key");
  LayerName value = layer_name("value");
  LayerName output = layer_name("output");
  LayerName dense = layer_name("dense");
  LayerName layer_norm = layer_name("LayerNorm");
  LayerName intermediate = layer_name("intermediate");
  LayerName embeddings = layer_name("embeddings");
  LayerName word = layer_name("word_embeddings");
  LayerName position = layer_name("position_embeddings");
  LayerName token_type = layer_name("token_type_embeddings");
  LayerName mapping = layer_name("embedding_hidden_mapping_in");
  LayerName encoder = layer_name("encoder");
  LayerName pooler = layer_name("pooler");
  LayerName classifier = layer_name("classifier");
};

const Names& names() {
  static const Names n;
  return n;
}

class BertLayer : public nn::Module {
 public:
  explicit BertLayer(const BertConfig& c)
      : heads_(c.heads),
        head_size_(c.hidden / c.heads),
        query_(register_module("query", nn::Linear(c.hidden, c.hidden))),
        key_(register_module("key", nn::Linear(c.hidden, c.hidden))),
        value_(register_module("value", nn::Linear(c.hidden, c.hidden))),
        attention_dense_(register_module("attention_dense", nn::Linear(c.hidden, c.hidden))),
        attention_norm_(register_module(
            "attention_norm", nn::LayerNorm(nn::LayerNormOptions({c.hidden}).eps(1e-12)))),
        intermediate_(register_module(
            "intermediate", nn::Linear(c.hidden, c.intermediate ? c.intermediate : 4 * c.hidden))),
        output_dense_(register_module(
            "output_dense", nn::Linear(c.intermediate ? c.intermediate : 4 * c.hidden, c.hidden))),
        output_norm_(register_module("output_norm",
                                     nn::LayerNorm(nn::LayerNormOptions({c.hidden}).eps(1e-12)))),
        dropout_(register_module("dropout", nn::Dropout(c.dropout))) {}

  torch::Tensor forward(const torch::Tensor& hidden) {
    const Names& n = names();
    torch::Tensor attention = scoped(n.attention, [&] {
      torch::Tensor context = scoped(n.self, [&] { return self_attention(hidden); });
      return scoped(n.output, [&] {
        torch::Tensor projected =
            scoped(n.dense, [&] { return dropout_(attention_dense_(context)); });
        return scoped(n.layer_norm, [&] { return attention_norm_(projected + hidden); });
      });
    });
    torch::Tensor inner = scoped(n.intermediate, [&] {
      return scoped(n.dense, [&] { return torch::gelu(intermediate_(attention)); });
    });
    return scoped(n.output, [&] {
      torch::Tensor projected = scoped(n.dense, [&] { return dropout_(output_dense_(inner)); });
      return scoped(n.layer_norm, [&] { return output_norm_(projected + attention); });
    });
  }

 private:
  torch::Tensor split_heads(const torch::Tensor& x) const {
    return x.view({x.size(0), x.size(1), heads_, head_size_}).transpose(1, 2);
  }

  torch::Tensor self_attention(const torch::Tensor& hidden) {
    const Names& n = names();
    torch::Tensor q = scoped(n.query, [&] { return split_heads(query_(hidden)); });
    torch::Tensor k = scoped(n.key, [&] { return split_heads(key_(hidden)); });
    torch::Tensor v = scoped(n.value, [&] { return split_heads(value_(hidden)); });
    torch::Tensor scores =
        torch::matmul(q, k.transpose(-1, -2)) / std::sqrt(static_cast<double>(head_size_));
    torch::Tensor probs = dropout_(torch::softmax(scores, -1));
    torch::Tensor context = torch::matmul(probs, v).transpose(1, 2).contiguous();
    return context.view({context.size(0), context.size(1), heads_ * head_size_});
  }

  std::int64_t heads_;
  std::int64_t head_size_;
  nn::Linear query_, key_, value_, attention_dense_;
  nn::LayerNorm attention_norm_;
  nn::Linear intermediate_, output_dense_;
  nn::LayerNorm output_norm_;
  nn::Dropout dropout_;
};

class Bert : public ScopedNet {
 public:
  Bert(const BertConfig& c, const std::string& root_name)
      : root_(layer_name(root_name)),
        embedding_size_(c.embedding ? c.embedding : c.hidden),
        word_(register_module("word", nn::Embedding(c.vocab, embedding_size_))),
        position_(register_module("position", nn::Embedding(c.max_positions, embedding_size_))),
        token_type_(register_module("token_type", nn::Embedding(c.type_vocab, embedding_size_))),
        embedding_norm_(register_module(
            "embedding_norm", nn::LayerNorm(nn::LayerNormOptions({embedding_size_}).eps(1e-12)))),
        dropout_(register_module("dropout", nn::Dropout(c.dropout))),
        pooler_(register_module("pooler", nn::Linear(c.hidden, c.hidden))),
        classifier_(register_module("classifier", nn::Linear(c.hidden, c.classes))) {
    if (c.embedding && c.embedding != c.hidden) {
      mapping_ = register_module("mapping", nn::Linear(c.embedding, c.hidden));
    }
    const int distinct_layers = c.shared_layers ? 1 : c.layers;
    for (int i = 0; i < distinct_layers; ++i) {
      layers_.push_back(
          register_module("layer_" + std::to_string(i), std::make_shared<BertLayer>(c)));
    }
    for (int i = 0; i < c.layers; ++i)
      layer_names_.push_back(layer_name("layer_" + std::to_string(i)));
  }

  torch::Tensor forward(const torch::Tensor& token_ids) override {
    const Names& n = names();
    LayerScope root(root_);
    torch::Tensor hidden = scoped(n.embeddings, [&] {
      const std::int64_t seq = token_ids.size(1);
      torch::Tensor positions =
          torch::arange(seq, token_ids.options()).unsqueeze(0).expand_as(token_ids);
      torch::Tensor token_types = torch::zeros_like(token_ids);
      torch::Tensor sum = scoped(n.word, [&] { return word_(token_ids); });
      sum = sum + scoped(n.position, [&] { return position_(positions); });
      sum = sum + scoped(n.token_type, [&] { return token_type_(token_types); });
      return scoped(n.layer_norm, [&] { return dropout_(embedding_norm_(sum)); });
    });
    hidden = scoped(n.encoder, [&] {
      torch::Tensor h = hidden;
      if (mapping_) h = scoped(n.mapping, [&] { return mapping_(h); });
      for (std::size_t i = 0; i < layer_names_.size(); ++i) {
        const auto& layer = layers_.size() == 1 ? layers_[0] : layers_[i];
        h = scoped(layer_names_[i], [&] { return layer->forward(h); });
      }
      return h;
    });
    torch::Tensor pooled = scoped(n.pooler, [&] {
      return scoped(n.dense, [&] { return torch::tanh(pooler_(hidden.select(1, 0))); });
    });
    return scoped(n.classifier, [&] { return classifier_(dropout_(pooled)); });
  }

 private:
  LayerName root_;
  std::int64_t embedding_size_;
  nn::Embedding word_, position_, token_type_;
  nn::LayerNorm embedding_norm_;
  nn::Dropout dropout_;
  nn::Linear pooler_, classifier_;
  nn::Linear mapping_{nullptr};
  std::vector<std::shared_ptr<BertLayer>> layers_;
  std::vector<LayerName> layer_names_;
};

}  // namespace

std::shared_ptr<ScopedNet> make_bert(const BertConfig& config, const std::string& root_name) {
  return std::make_shared<Bert>(config, root_name);
}

}  // namespace jouleprof::torch_adapter
