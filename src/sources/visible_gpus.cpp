#include "sources/visible_gpus.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/parse.hpp"

namespace jouleprof {
namespace {

std::string_view trimmed(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const std::size_t last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

// The GPU an entry names: by index, or by a UUID prefix that only one GPU has.
std::optional<std::size_t> named_gpu(std::string_view entry, const std::vector<GpuIdentity>& gpus) {
  if (const auto index = to_integer<std::size_t>(entry)) {
    for (std::size_t g = 0; g < gpus.size(); ++g)
      if (gpus[g].index == *index) return g;
    return std::nullopt;
  }
  if (!entry.starts_with("GPU-") || entry.size() <= 4) return std::nullopt;
  std::optional<std::size_t> found;
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    if (!std::string_view(gpus[g].uuid).starts_with(entry)) continue;
    if (found) return std::nullopt;  // ambiguous
    found = g;
  }
  return found;
}

}  // namespace

std::size_t GpuVisibility::visible() const {
  return static_cast<std::size_t>(
      std::count_if(number.begin(), number.end(), [](const auto& n) { return n.has_value(); }));
}

GpuVisibility resolve_visible_gpus(std::string_view variable, const char* value,
                                   const std::vector<GpuIdentity>& gpus) {
  GpuVisibility out;
  out.number.resize(gpus.size());
  if (value == nullptr) {
    for (std::size_t g = 0; g < gpus.size(); ++g) out.number[g] = gpus[g].index;
    return out;
  }
  const std::string_view list(value);
  std::optional<std::string> ended;  // the entry that ended the list, if one did
  std::size_t next_number = 0;
  for (std::size_t start = 0; start <= list.size() && !list.empty();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view entry = trimmed(list.substr(start, comma - start));
    start = comma + 1;
    const std::optional<std::size_t> gpu = named_gpu(entry, gpus);
    if (!gpu || out.number[*gpu]) {
      ended = std::string(entry);
      break;
    }
    out.number[*gpu] = next_number++;
  }
  std::string seen;
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    if (!out.number[g]) continue;
    seen += fmt::format("{}gpu {} as device {}", seen.empty() ? "" : ", ", gpus[g].index,
                        *out.number[g]);
  }
  out.note = fmt::format(
      "{}='{}': the job sees {} of the {} GPUs{}{}; the others are not its energy "
      "and are not measured",
      variable, list, out.visible(), gpus.size(), seen.empty() ? "" : " (",
      seen.empty() ? "" : seen + ")");
  if (ended) {
    out.note += fmt::format(
        "; the entry '{}' names no GPU of this machine (or one listed before), "
        "so, as CUDA does, it and every entry after it are ignored",
        *ended);
  }
  return out;
}

}  // namespace jouleprof
