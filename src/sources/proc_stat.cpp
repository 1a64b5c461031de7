#include "sources/proc_stat.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <string>

#include "core/parse.hpp"

namespace jouleprof {
namespace {

struct CpuLine {
  std::string_view label;  // "cpu" or "cpuN"
  std::uint64_t busy = 0;
  std::uint64_t idle = 0;
  std::uint64_t steal = 0;
};

// The tick counts after a `cpu`/`cpuN` label: user nice system idle iowait irq softirq steal.
Result<CpuLine> parse_cpu_line(std::string_view line, std::string_view path, std::size_t line_no) {
  CpuLine out;
  const std::size_t label_end = line.find(' ');
  out.label = line.substr(0, label_end);
  std::array<std::uint64_t, 8> v{};
  std::size_t n = 0;
  std::size_t at = label_end == std::string_view::npos ? line.size() : label_end;
  while (n < v.size()) {
    while (at < line.size() && line[at] == ' ') ++at;
    if (at >= line.size()) break;
    std::size_t end = line.find(' ', at);
    if (end == std::string_view::npos) end = line.size();
    const std::string_view token = line.substr(at, end - at);
    const std::optional<std::uint64_t> ticks = to_uint64(token);
    if (!ticks) {
      return invalid_input(fmt::format("{}:{}", path, line_no),
                           fmt::format("{} field {}", out.label, n + 1), token, "not a tick count");
    }
    v[n++] = *ticks;
    at = end;
  }
  if (n < 4) {
    return invalid_input(fmt::format("{}:{}", path, line_no), std::string(out.label),
                         std::string(line), "fewer than 4 tick counts");
  }
  out.busy = v[0] + v[1] + v[2] + v[5] + v[6];
  out.idle = v[3] + v[4];
  out.steal = v[7];
  return out;
}

bool is_cpu_n(std::string_view line) {
  return line.size() > 3 && line.substr(0, 3) == "cpu" &&
         std::isdigit(static_cast<unsigned char>(line[3])) != 0;
}

bool is_aggregate(std::string_view line) { return line.size() > 3 && line.substr(0, 4) == "cpu "; }

template <typename Visit>
Status each_line(std::string_view text, Visit visit) {
  std::size_t line_no = 0;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    JP_RETURN_IF_ERROR(visit(text.substr(begin, end - begin), ++line_no));
    begin = end + 1;
  }
  return Status::Ok();
}

}  // namespace

Result<CpuTimes> parse_proc_stat(std::string_view text, std::string_view path) {
  CpuTimes times;
  bool found = false;
  JP_RETURN_IF_ERROR(each_line(text, [&](std::string_view line, std::size_t line_no) -> Status {
    if (is_cpu_n(line)) {
      ++times.cpus;
      return Status::Ok();
    }
    if (!is_aggregate(line)) return Status::Ok();
    JP_TRY(const CpuLine cpu, parse_cpu_line(line, path, line_no));
    times.busy = cpu.busy;
    times.idle = cpu.idle;
    times.steal = cpu.steal;
    found = true;
    return Status::Ok();
  }));
  if (!found) return invalid_input(path, "cpu", "", "no aggregate `cpu` line");
  if (times.cpus == 0) times.cpus = 1;
  return times;
}

Result<std::vector<CpuTicks>> parse_proc_stat_per_cpu(std::string_view text,
                                                      std::string_view path) {
  std::vector<CpuTicks> cpus;
  JP_RETURN_IF_ERROR(each_line(text, [&](std::string_view line, std::size_t line_no) -> Status {
    if (!is_cpu_n(line)) return Status::Ok();
    JP_TRY(const CpuLine parsed, parse_cpu_line(line, path, line_no));
    const std::optional<int> n = to_integer<int>(parsed.label.substr(3));
    if (!n) {
      return invalid_input(fmt::format("{}:{}", path, line_no), "cpu number",
                           std::string(parsed.label), "not cpu followed by a number");
    }
    cpus.push_back(CpuTicks{*n, parsed.busy, parsed.idle});
    return Status::Ok();
  }));
  return cpus;
}

}  // namespace jouleprof
