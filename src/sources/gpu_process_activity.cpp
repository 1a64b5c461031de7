#include "sources/gpu_process_activity.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace jouleprof {
namespace {

bool is_observed(pid_t pid, const std::vector<pid_t>& observed) {
  return std::binary_search(observed.begin(), observed.end(), pid);
}

}  // namespace

void GpuProcessActivity::add_utilisation(TimeNs t_ns, double elapsed_s,
                                         std::span<const ProcessUtilisation> samples,
                                         const std::vector<pid_t>& observed) {
  elapsed_s = std::max(0.0, elapsed_s);
  const double period_s = std::min(max_sample_period_s_, elapsed_s);
  double busy_here_s = 0.0;
  for (const ProcessUtilisation& sample : samples) {
    const double busy_s = std::clamp(sample.utilisation, 0.0, 1.0) * period_s;
    busy_here_s += busy_s;
    if (is_observed(sample.pid, observed)) observed_busy_s_ += busy_s;
  }
  busy_s_ += busy_here_s;
  idle_s_ += std::max(0.0, elapsed_s - busy_here_s);
  as_of_ns_ = t_ns;
}

std::vector<pid_t> GpuProcessActivity::add_holders(TimeNs t_ns, double elapsed_s,
                                                   std::span<const pid_t> holders,
                                                   const std::vector<pid_t>& observed) {
  as_of_ns_ = t_ns;
  elapsed_s = std::max(0.0, elapsed_s);
  if (holders.empty()) {
    idle_s_ += elapsed_s;
    return {};
  }
  bool ours = false;
  std::vector<pid_t> others;
  for (const pid_t pid : holders) {
    if (is_observed(pid, observed)) {
      ours = true;
    } else {
      others.push_back(pid);
    }
  }
  if (ours && !others.empty()) return others;
  busy_s_ += elapsed_s;
  if (ours) observed_busy_s_ += elapsed_s;
  return {};
}

double GpuProcessActivity::count(GpuActivityCount which) const {
  switch (which) {
    case GpuActivityCount::kObservedBusy:
      return observed_busy_s_;
    case GpuActivityCount::kBusy:
      return busy_s_;
    case GpuActivityCount::kIdle:
      return idle_s_;
  }
  return 0.0;
}

std::array<GpuActivityChannel, 3> gpu_activity_channels(std::string_view rule,
                                                        std::string_view how) {
  return {{
      {"observed", std::string(rule), fmt::format("observed processes' busy time: {}", how),
       GpuActivityCount::kObservedBusy},
      {"busy", "busy", fmt::format("every process's busy time: {}", how), GpuActivityCount::kBusy},
      {"idle", "idle", fmt::format("the time no process kept busy: {}", how),
       GpuActivityCount::kIdle},
  }};
}

}  // namespace jouleprof
