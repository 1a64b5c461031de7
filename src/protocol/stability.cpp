#include "jouleprof/stability.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace jouleprof {

StabilityCheck check_stability(const IntervalTrace& trace, TimeNs at_ns,
                               const StabilityOptions& options) {
  StabilityCheck check;
  check.threshold = options.max_cv * (1.0 + options.tolerance);
  const auto end = std::upper_bound(trace.begin(), trace.end(), at_ns,
                                    [](TimeNs t, const IntervalSample& s) { return t < s.end_ns; });
  const std::size_t available = static_cast<std::size_t>(end - trace.begin());
  if (options.last_n < 2 || available < options.last_n) {
    check.samples = available;
    check.reason =
        fmt::format("only {} of the {} samples needed so far", available, options.last_n);
    return check;
  }
  const auto begin = end - static_cast<std::ptrdiff_t>(options.last_n);
  check.samples = options.last_n;
  double sum = 0.0;
  for (auto it = begin; it != end; ++it) sum += it->power_w();
  check.mean_power_w = sum / static_cast<double>(options.last_n);
  double squares = 0.0;
  for (auto it = begin; it != end; ++it) {
    squares += (it->power_w() - check.mean_power_w) * (it->power_w() - check.mean_power_w);
  }
  // Sample stdev (n − 1): the conservative choice, it never calls a window stable that the
  // population formula would reject.
  const double stdev = std::sqrt(squares / static_cast<double>(options.last_n - 1));
  if (check.mean_power_w <= 0.0) {
    check.reason = fmt::format("mean power {:.3f} W is not positive", check.mean_power_w);
    return check;
  }
  check.cv = stdev / check.mean_power_w;
  check.stable = check.cv <= check.threshold;
  if (!check.stable) {
    check.reason =
        fmt::format("coefficient of variation {:.4f} above {:.4f}", check.cv, check.threshold);
  }
  return check;
}

}  // namespace jouleprof
