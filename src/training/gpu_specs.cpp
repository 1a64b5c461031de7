#include "training/gpu_specs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "sources/trace_text.hpp"

namespace jouleprof {
namespace {

std::string normalise(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  for (std::string_view word : {"nvidia", "geforce", "tesla"}) {
    for (std::size_t at = out.find(word); at != std::string::npos; at = out.find(word)) {
      out.erase(at, word.size());
    }
  }
  return out;
}

}  // namespace

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
  JP_TRY(std::string content, trace_text::read_all(path));
  bool header = true;
  for (const trace_text::Line& line : trace_text::split_lines(content)) {
    if (trace_text::trim(line.text).empty()) continue;
    const auto fields = trace_text::split_fields(line.text, ',');
    const std::string where = trace_text::where(path, line.number);
    if (header) {
      header = false;
      if (fields.size() != 5 || fields[0] != "name") {
        return invalid_input(where, "header", line.text,
                             "expected 'name,cuda_cores,memory_gb,tdp_w,fp32_tflops'");
      }
      continue;
    }
    if (fields.size() != 5) return invalid_input(where, "fields", line.text, "expected 5 fields");
    GpuSpec spec{std::string(fields[0]), 0, 0, 0, 0};
    static constexpr std::array<std::string_view, 4> kNames = {"cuda_cores", "memory_gb", "tdp_w",
                                                               "fp32_tflops"};
    double* targets[] = {&spec.cuda_cores, &spec.memory_gb, &spec.tdp_w, &spec.fp32_tflops};
    for (std::size_t i = 0; i < 4; ++i) {
      const auto v = trace_text::parse_number(fields[i + 1]);
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
  }
  origin_ = fmt::format("built-in table with overrides from {}", path);
  return Status::Ok();
}

Result<GpuSpec> GpuSpecTable::find(std::string_view name) const {
  const std::string key = normalise(name);
  const GpuSpec* best = nullptr;
  std::size_t best_length = 0;
  for (const GpuSpec& spec : entries_) {
    const std::string candidate = normalise(spec.name);
    if (candidate == key) return spec;
    if (!candidate.empty() && key.find(candidate) != std::string::npos &&
        candidate.size() > best_length) {
      best = &spec;
      best_length = candidate.size();
    }
  }
  if (best != nullptr) return *best;
  return Error(ErrorCode::kNotFound,
               fmt::format("GPU '{}' is not in the {}: add it with a specs file "
                           "(name,cuda_cores,memory_gb,tdp_w,fp32_tflops)",
                           name, origin_));
}

}  // namespace jouleprof
