#include "training/gpu_specs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "core/csv.hpp"
#include "core/line_reader.hpp"
#include "core/parse.hpp"
#include "sources/trace_text.hpp"

namespace jouleprof {
namespace {

// The lower-case runs of letters and digits, without the vendor words NVIDIA, GeForce, Tesla:
// "NVIDIA A100-SXM4-80GB" -> {a100, sxm4, 80gb}.
std::vector<std::string> name_tokens(std::string_view name) {
  std::vector<std::string> tokens;
  std::string token;
  const auto flush = [&] {
    if (!token.empty() && token != "nvidia" && token != "geforce" && token != "tesla") {
      tokens.push_back(token);
    }
    token.clear();
  };
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      token.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else {
      flush();
    }
  }
  flush();
  return tokens;
}

// "RTX 3090", "rtx3090" and "GeForce RTX-3090" are one name.
std::string normalise(std::string_view name) {
  return fmt::format("{}", fmt::join(name_tokens(name), ""));
}

}  // namespace

Result<GpuSpecTable> GpuSpecTable::built_in_with(const std::string& overrides_path) {
  GpuSpecTable table = built_in();
  if (!overrides_path.empty()) JP_RETURN_IF_ERROR(table.load_overrides(overrides_path));
  return table;
}

GpuSpecTable GpuSpecTable::built_in() {
  GpuSpecTable table;
  table.entries_ = {
      {"GeForce GTX 750 Ti", 640, 2, 60, 1.389},
      {"GeForce GTX 1080 Ti", 3584, 11, 250, 11.34},
      {"GeForce RTX 2080 Ti", 4352, 11, 250, 13.45},
      {"GeForce RTX 3070", 5888, 8, 220, 20.31},
      {"GeForce RTX 3080", 8704, 10, 320, 29.77},
      {"GeForce RTX 3090", 10496, 24, 350, 35.58},
      {"GeForce RTX 4090", 16384, 24, 450, 82.58},
      {"Tesla T4", 2560, 16, 70, 8.14},
      {"Tesla V100-SXM2-32GB", 5120, 32, 300, 15.7},
      {"A10", 9216, 24, 150, 31.2},
      {"L4", 7424, 24, 72, 30.3},
      {"A100-SXM4-40GB", 6912, 40, 400, 19.5},
      {"A100-SXM4-80GB", 6912, 80, 400, 19.5},
      {"H100 80GB HBM3", 16896, 80, 700, 66.9},
      {"H200", 16896, 141, 700, 66.9},
  };
  return table;
}

Status GpuSpecTable::load_overrides(const std::string& path) {
  JP_TRY(LineReader lines, LineReader::open(path, "file"));
  bool header = true;
  JP_RETURN_IF_ERROR(for_each_line(lines, [&](const TextLine& line) -> Status {
    if (trim_ascii_space(line.text).empty()) return Status::Ok();
    const auto fields = split_fields(line.text, ',');
    const std::string where = trace_text::where(path, line.number);
    if (header) {
      header = false;
      if (fields.size() != 5 || fields[0] != "name") {
        return invalid_input(where, "header", line.text,
                             "expected 'name,cuda_cores,memory_gb,tdp_w,fp32_tflops'");
      }
      return Status::Ok();
    }
    if (fields.size() != 5) return invalid_input(where, "fields", line.text, "expected 5 fields");
    GpuSpec spec{std::string(fields[0]), 0, 0, 0, 0};
    static constexpr std::array<std::string_view, 4> kNames = {"cuda_cores", "memory_gb", "tdp_w",
                                                               "fp32_tflops"};
    double* targets[] = {&spec.cuda_cores, &spec.memory_gb, &spec.tdp_w, &spec.fp32_tflops};
    for (std::size_t i = 0; i < 4; ++i) {
      const auto v = to_number(fields[i + 1]);
      if (!v || *v <= 0.0) {
        return invalid_input(where, kNames[i], fields[i + 1], "must be a positive number");
      }
      *targets[i] = *v;
    }
    const std::string key = normalise(spec.name);
    const auto it = std::find_if(entries_.begin(), entries_.end(),
                                 [&](const GpuSpec& g) { return normalise(g.name) == key; });
    if (it != entries_.end()) {
      *it = spec;
    } else {
      entries_.push_back(spec);
    }
    return Status::Ok();
  }));
  origin_ = fmt::format("built-in table with overrides from {}", path);
  return Status::Ok();
}

Result<GpuSpec> GpuSpecTable::find(std::string_view name) const {
  const std::vector<std::string> query = name_tokens(name);
  const std::string key = normalise(name);
  if (key.empty()) return invalid_input("GPU specs", "GPU name", name, "names no GPU");
  for (const GpuSpec& spec : entries_) {
    if (normalise(spec.name) == key) return spec;
  }
  // The query may name the first whole tokens of one entry ("V100" for "Tesla V100-SXM2-32GB"),
  // never part of a token: "A100" is no "A10", "RTX 3080 Ti" no "RTX 3080".
  std::vector<const GpuSpec*> extending;
  std::vector<std::string> related;  // entries sharing the query's first token, for the message
  for (const GpuSpec& spec : entries_) {
    const std::vector<std::string> tokens = name_tokens(spec.name);
    if (!query.empty() && !tokens.empty() && tokens[0] == query[0]) related.push_back(spec.name);
    if (tokens.size() > query.size() && std::equal(query.begin(), query.end(), tokens.begin())) {
      extending.push_back(&spec);
    }
  }
  if (extending.size() == 1) return *extending.front();
  if (extending.size() > 1) {
    std::vector<std::string> names;
    for (const GpuSpec* spec : extending) names.push_back(spec->name);
    return invalid_input("GPU specs", "GPU name", name,
                         fmt::format("is ambiguous in the {}: it could be {}; give the full name",
                                     origin_, fmt::join(names, ", ")));
  }
  return Error(
      ErrorCode::kNotFound,
      fmt::format("GPU '{}' is not in the {}{}: add it with a specs file "
                  "(name,cuda_cores,memory_gb,tdp_w,fp32_tflops)",
                  name, origin_,
                  related.empty() ? std::string()
                                  : fmt::format(" (similar: {})", fmt::join(related, ", "))));
}

}  // namespace jouleprof
