// nlohmann's DOM builder keeps the last value of a key given twice in one object, without a word:
// {"energy_j": 1, "energy_j": 1e6} reads as 1e6, and a reader that walks the keys in the file's
// order found the second value under the first one's keys and threw (fuzz/crashes/nnmeter_json).
// Every JSON document jouleprof reads is built by this parser instead, which stops at the first
// repeated key of any object, at any depth, so the reader can refuse the file and name the key.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace jouleprof {

class UniqueKeysParser : public nlohmann::detail::json_sax_dom_parser<nlohmann::json> {
 public:
  explicit UniqueKeysParser(nlohmann::json& document)
      : json_sax_dom_parser(document, /*allow_exceptions=*/true) {}

  bool start_object(std::size_t elements) {
    // One set per depth, reused by the objects met at that depth: no allocation per object.
    if (open_objects_ == keys_by_depth_.size()) keys_by_depth_.emplace_back();
    keys_by_depth_[open_objects_++].clear();
    return json_sax_dom_parser::start_object(elements);
  }
  bool end_object() {
    --open_objects_;
    return json_sax_dom_parser::end_object();
  }
  // Returning false stops the parse; nlohmann's sax_parse then returns false.
  bool key(std::string& name) {
    if (!keys_by_depth_[open_objects_ - 1].insert(name).second) {
      repeated_key_ = name;
      return false;
    }
    return json_sax_dom_parser::key(name);
  }

  // The key that stopped the parse, if one did.
  const std::optional<std::string>& repeated_key() const { return repeated_key_; }

 protected:
  // How many objects enclose the current key: 1 for the document's own keys.
  std::size_t open_objects() const { return open_objects_; }

 private:
  std::vector<std::unordered_set<std::string>> keys_by_depth_;
  std::size_t open_objects_ = 0;
  std::optional<std::string> repeated_key_;
};

}  // namespace jouleprof
