#include "jouleprof/auto_window.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/quantity_text.hpp"
#include "jouleprof/statistics.hpp"

namespace jouleprof {
namespace {

// The first window when none is given: 10 updates of the slowest counter, as the gate's K.
constexpr std::size_t kDefaultWindowUpdates = 10;

// The top-level energy channels' energy in [start, end].
double top_level_energy_j(const std::vector<Series>& series, TimeNs start, TimeNs end) {
  double sum = 0.0;
  for (const Series& s : series) {
    if (s.channel().carries_energy() && s.channel().is_top_level()) {
      sum += s.energy_between_j(start, end);
    }
  }
  return sum;
}

std::string provenance_of(const std::vector<Series>& series) {
  std::set<std::string> parts;
  for (const Series& s : series) {
    const Channel& c = s.channel();
    if (c.carries_energy() && c.is_top_level()) {
      parts.insert(fmt::format("{}:{}", to_string(c.provenance), c.id));
    }
  }
  std::string text;
  for (const std::string& p : parts) text += (text.empty() ? "" : "+") + p;
  return text;
}

}  // namespace

void summarise_trials(AutoWindowSetting& s) {
  const RepetitionStats stats = summarize(s.energy_j_per_call);
  s.mean_j = stats.mean;
  s.cv = stats.mean > 0.0 ? stats.stdev / stats.mean : 0.0;
  bool rising = s.energy_j_per_call.size() >= 3;
  bool falling = rising;
  for (std::size_t i = 1; i < s.energy_j_per_call.size(); ++i) {
    rising = rising && s.energy_j_per_call[i] > s.energy_j_per_call[i - 1];
    falling = falling && s.energy_j_per_call[i] < s.energy_j_per_call[i - 1];
  }
  s.drifting = rising || falling;
}

AutoWindowNext next_auto_window_step(const AutoWindowSetting& tried, const AutoWindowOptions& o) {
  if (tried.mean_j > 0.0 && tried.cv <= o.max_cv) return AutoWindowNext::kAccept;
  const TimeNs next_cooldown = tried.cooldown_ns > 0 ? 2 * tried.cooldown_ns : o.first_cooldown_ns;
  if (tried.drifting && next_cooldown <= o.max_cooldown_ns) return AutoWindowNext::kLongerCooldown;
  if (2 * tried.window_ns <= o.max_window_ns) return AutoWindowNext::kLongerWindow;
  return AutoWindowNext::kGiveUp;
}

Result<AutoWindowResult> find_stable_window(Monitor& monitor, const MeasuredCall& call,
                                            const AutoWindowOptions& o,
                                            ProgressReporter* progress_or_null) {
  if (o.trials < 2 || !(o.max_cv > 0.0)) {
    return invalid_input("auto window", "trials/max_cv", fmt::format("{}/{}", o.trials, o.max_cv),
                         "at least 2 trials and a positive spread threshold are needed");
  }
  ProgressOrSilent progress(progress_or_null);
  JP_RETURN_IF_ERROR(monitor.start());
  progress->phase("warm-up");
  for (std::size_t i = 0; i < std::max<std::size_t>(o.warmup_runs, 1); ++i) {
    if (const Status st = call(); !st) {
      monitor.stop();
      return st.error().with_context("the measured call failed during warm-up");
    }
  }
  const TimeNs period = slowest_nominal_period_ns(monitor.channels(), 100 * kNsPerMs);
  AutoWindowResult result;
  AutoWindowSetting setting;
  setting.window_ns = o.first_window_ns > 0 ? o.first_window_ns
                                            : static_cast<TimeNs>(kDefaultWindowUpdates) * period;
  for (std::size_t k = 1;; ++k) {
    progress->item(k, fmt::format("window {}, cooldown {}", format_duration(setting.window_ns),
                                  format_duration(setting.cooldown_ns)));
    setting.energy_j_per_call.clear();
    for (std::size_t t = 0; t < o.trials; ++t) {
      progress->step(t + 1, o.trials);
      progress->phase("cooldown");
      if (!wait_until(monotonic_now_ns() + setting.cooldown_ns, *progress)) break;
      progress->phase("calls");
      const TimeNs start = monitor.sync();
      std::uint64_t calls = 0;
      Status failed;
      do {
        failed = call();
        ++calls;
        progress->tick();
      } while (failed.ok() && !progress->stop_requested() &&
               monotonic_now_ns() - start < setting.window_ns);
      const TimeNs end = monitor.sync();
      if (!failed.ok()) {
        result.missing = "the call failed: " + failed.error().message();
        break;
      }
      if (progress->stop_requested()) break;
      const std::vector<Series> series = monitor.recent(start - period);
      if (result.provenance.empty()) result.provenance = provenance_of(series);
      setting.energy_j_per_call.push_back(top_level_energy_j(series, start, end) /
                                          static_cast<double>(calls));
    }
    if (progress->stop_requested() || !result.missing.empty() ||
        setting.energy_j_per_call.size() < o.trials) {
      if (result.missing.empty()) result.missing = "stopped on request";
      break;
    }
    summarise_trials(setting);
    result.sweep.push_back(setting);
    const AutoWindowNext next = next_auto_window_step(setting, o);
    if (next == AutoWindowNext::kAccept) {
      result.stable = true;
      break;
    }
    if (next == AutoWindowNext::kGiveUp) {
      result.missing = fmt::format(
          "no setting up to a {} window and a {} cooldown brought the spread below {:.1f} %",
          format_duration(o.max_window_ns), format_duration(o.max_cooldown_ns), 100.0 * o.max_cv);
      break;
    }
    if (next == AutoWindowNext::kLongerCooldown) {
      setting.cooldown_ns = setting.cooldown_ns > 0 ? 2 * setting.cooldown_ns : o.first_cooldown_ns;
    } else {
      setting.window_ns *= 2;
    }
  }
  result.profile = monitor.stop();
  result.profile.meta.kind = "measure";
  result.profile.meta.options.auto_window.max_cv = o.max_cv;
  if (!result.sweep.empty()) {
    // The chosen setting: the stable one, else the one with the least spread.
    const auto best =
        result.stable ? std::prev(result.sweep.end())
                      : std::min_element(result.sweep.begin(), result.sweep.end(),
                                         [](const auto& a, const auto& b) { return a.cv < b.cv; });
    result.window_ns = best->window_ns;
    result.cooldown_ns = best->cooldown_ns;
    result.energy_j_per_call = best->mean_j;
    result.cv = best->cv;
    result.profile.meta.options.auto_window.window_ns = result.window_ns;
    result.profile.meta.options.auto_window.cooldown_ns = result.cooldown_ns;
  }
  if (!result.stable) {
    result.profile.meta.partial = true;
    result.profile.warnings.push_back("auto window: " + result.missing);
  }
  return result;
}

}  // namespace jouleprof
