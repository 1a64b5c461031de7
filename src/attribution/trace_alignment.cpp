#include "attribution/trace_alignment.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <ctime>
#include <set>

#include "jouleprof/attribution.hpp"

namespace jouleprof::attribution {
namespace {

constexpr double kMinShareInside = 0.5;

constexpr std::string_view kHowToFix =
    "record the trace inside jouleprof.torch.profile (it leaves a jouleprof::clock_sync scope "
    "that maps the clock), or call jouleprof.clock_sync() while torch.profiler records, or give "
    "the offset from the trace's clock to CLOCK_MONOTONIC or the recording host's clock anchor";

// "2026-11-30 10:02:03.123 UTC"
std::string wall_clock(TimeNs monotonic_ns, const ClockAnchor& anchor) {
  const TimeNs realtime_ns = anchor.monotonic_to_realtime(monotonic_ns);
  const std::time_t seconds = static_cast<std::time_t>(realtime_ns / kNsPerS);
  std::tm utc{};
  if (gmtime_r(&seconds, &utc) == nullptr) return fmt::format("monotonic {} ns", monotonic_ns);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &utc);
  const auto ms = static_cast<long long>((realtime_ns % kNsPerS + kNsPerS) % kNsPerS / kNsPerMs);
  return fmt::format("{}.{:03d} UTC", text, ms);
}

std::string describe(TimeWindow w, const ClockAnchor& anchor) {
  return fmt::format("{} to {} ({:.3f} s)", wall_clock(w.begin_ns, anchor),
                     wall_clock(w.end_ns, anchor), ns_to_s(w.end_ns - w.begin_ns));
}

std::string device_list(const std::set<std::string>& devices) {
  std::string out;
  for (const std::string& d : devices) out += fmt::format("{}'{}'", out.empty() ? "" : ", ", d);
  return out;
}

constexpr std::string_view kThanTheModelPassed =
    "than the one passed to jouleprof.torch.profile or module_scopes";

std::string no_forward_of(const std::vector<std::string>& models) {
  return fmt::format("no forward of the profiled model {} ran inside the block",
                     fmt::join(models, ", "));
}

}  // namespace

std::optional<TimeWindow> samples_window(const std::vector<Series>& series) {
  std::optional<TimeWindow> window;
  for (const Series& s : series) {
    if (!s.channel().carries_energy() || s.empty()) continue;
    if (!window) {
      window = TimeWindow{s.begin_ns(), s.end_ns()};
    } else {
      window->begin_ns = std::min(window->begin_ns, s.begin_ns());
      window->end_ns = std::max(window->end_ns, s.end_ns());
    }
  }
  return window;
}

Result<TimeWindow> require_energy_readings(const std::vector<Series>& series,
                                           std::string_view samples_origin) {
  const std::optional<TimeWindow> window = samples_window(series);
  if (!window) {
    return Error(ErrorCode::kInvalidInput,
                 fmt::format("{}: no channel that carries energy has a reading", samples_origin));
  }
  return *window;
}

double span_time_share_inside(const Timeline& timeline, TimeWindow window) {
  double total = 0.0;
  double inside = 0.0;
  for (const Span& s : timeline.spans()) {
    total += static_cast<double>(s.duration_ns());
    const TimeNs begin = std::max(s.begin_ns, window.begin_ns);
    const TimeNs end = std::min(s.end_ns, window.end_ns);
    if (end > begin) inside += static_cast<double>(end - begin);
  }
  return total > 0.0 ? inside / total : 1.0;
}

Status check_trace_alignment(const Timeline& timeline, TimeWindow samples,
                             const TraceClockFacts& facts) {
  const ClockAnchor anchor = facts.anchor.monotonic_ns != 0 || facts.anchor.realtime_ns != 0
                                 ? facts.anchor
                                 : ClockAnchor::capture();
  if (!facts.clock_established) {
    return Error(ErrorCode::kInvalidInput,
                 fmt::format("{}: the trace's times have no known clock ({}), so its spans cannot "
                             "be placed against the samples of {} ({}); to fix it, {}",
                             facts.trace_origin, facts.clock_mapping, facts.samples_origin,
                             describe(samples, anchor), kHowToFix),
                 ErrorSubject::kTraceClock);
  }
  if (timeline.spans().empty()) return Status::Ok();
  const double inside = span_time_share_inside(timeline, samples);
  if (inside >= kMinShareInside) return Status::Ok();
  const auto [first, last] = timeline.extent();
  return Error(
      ErrorCode::kInvalidInput,
      fmt::format("{}: only {:.1f} % of the spans' time lies inside the samples' window (at least "
                  "{:.0f} % needed): spans {}, samples of {} {}; clock mapping: "
                  "{}; to fix it, {}",
                  facts.trace_origin, 100.0 * inside, 100.0 * kMinShareInside,
                  describe(TimeWindow{first, last}, anchor), facts.samples_origin,
                  describe(samples, anchor), facts.clock_mapping, kHowToFix),
      ErrorSubject::kTraceClock);
}

Status check_energy_reached_spans(const Profile& profile) {
  if (!profile.tree) {
    return Error(ErrorCode::kInvalidInput, "the profile has no breakdown tree: nothing attributed");
  }
  double to_spans_j = 0.0;
  for (const ProfileNode& child : profile.tree->children) {
    if (child.name != kUnattributedNode) to_spans_j += child.energy_j;
  }
  if (to_spans_j != 0.0) return Status::Ok();
  if (profile.tree->energy_j == 0.0) {
    // Readings left out as implausible explain an empty window better than a counter at rest.
    std::size_t gaps = 0;
    const Gap* first_gap = nullptr;
    for (const Series& s : profile.series) {
      if (!s.channel().carries_energy()) continue;
      for (const Gap& gap : s.gaps()) {
        if (gaps++ == 0) first_gap = &gap;
      }
    }
    if (first_gap != nullptr) {
      return Error(ErrorCode::kInvalidInput,
                   fmt::format("no energy was measured in the attribution window: the energy "
                               "channels have {} gap(s) there (the first: {}), so every figure "
                               "would be zero",
                               gaps, first_gap->reason));
    }
    return Error(ErrorCode::kInvalidInput,
                 fmt::format("no energy was measured in the attribution window: the {} energy "
                             "channel(s) did not change there, so every figure would be zero",
                             profile.channels.size()));
  }
  std::set<std::string> track_devices;
  for (const Track& t : profile.timeline.tracks()) track_devices.insert(t.device);
  std::set<std::string> channel_devices;
  for (const Series& s : profile.series) {
    if (s.channel().carries_energy()) channel_devices.insert(s.channel().device);
  }
  return Error(ErrorCode::kInvalidInput,
               fmt::format("no span received any of the {:.6g} J measured: the {} spans lie on "
                           "tracks of device(s) {} and the energy channels are on device(s) {} (a "
                           "track consumes the channels of its own device)",
                           profile.tree->energy_j, profile.timeline.spans().size(),
                           device_list(track_devices), device_list(channel_devices)),
               ErrorSubject::kChannelDevices);
}

Status adopt_trace(Profile& profile, TraceImport imported, std::string_view trace_origin,
                   std::string_view samples_origin) {
  RecordedOptions::Trace& recorded = profile.meta.options.trace;
  recorded.path = std::string(trace_origin);
  recorded.format = imported.format;
  recorded.clock_mapping = imported.clock_mapping;
  recorded.offset_ns = imported.offset_ns;
  for (const std::string& w : imported.warnings)
    profile.warnings.push_back(fmt::format("{}: {}", trace_origin, w));
  const BackwardLinkStats& b = imported.backward;
  const std::vector<std::string>& not_run = imported.scoped_models_not_run;
  bool not_run_said = false;
  if (b.nodes > 0) {
    const auto share = [&](TimeNs part) {
      return static_cast<double>(part) / static_cast<double>(b.backward_ns);
    };
    recorded.backward_s = ns_to_s(b.backward_ns);
    if (b.backward_ns > 0) {  // a backward pass without duration has no shares (not NaN)
      recorded.backward_linked_share = share(b.linked_ns);
      recorded.backward_module_share = share(b.module_ns);
    }
    if (b.unlinked_share() > 0.05) {
      std::string why;
      if (b.linked_ns < b.backward_ns) {
        why += fmt::format(
            "{:.1f} % has no link to the forward op that created it (no autograd sequence "
            "numbers: torch's legacy profiler export leaves them out, jouleprof.torch.profile "
            "writes them)",
            100.0 * (1.0 - share(b.linked_ns)));
      }
      if (b.module_ns < b.linked_ns) {
        // Hooks that saw no forward explain the missing scopes better than how it was recorded.
        const std::string cause =
            not_run.empty()
                ? fmt::format(
                      "the trace has {}module scopes: record it inside "
                      "jouleprof.torch.profile, or with torch.profiler's with_stack=True",
                      b.module_nodes == 0 ? "no " : "too few ")
                : fmt::format("{}, so probably a different module object was trained {}",
                              no_forward_of(not_run), kThanTheModelPassed);
        not_run_said = !not_run.empty();
        why += fmt::format("{}{:.1f} % was created by forward ops outside every module scope ({})",
                           why.empty() ? "" : "; ",
                           100.0 * (share(b.linked_ns) - share(b.module_ns)), cause);
      }
      profile.warnings.push_back(fmt::format(
          "{}: {:.1f} % of the backward pass's {:.3f} s stays directly under [backward], charged "
          "to no module: {}",
          trace_origin, 100.0 * b.unlinked_share(), ns_to_s(b.backward_ns), why));
    }
  }
  // Without a backward pass nothing says a model ran at all (the block may have ended first).
  if (!not_run.empty() && !not_run_said) {
    profile.warnings.push_back(fmt::format(
        "{}: {}, so none of its modules is in the tree: if a model ran, it was a different module "
        "object {}",
        trace_origin, no_forward_of(not_run), kThanTheModelPassed));
  }
  profile.timeline = std::move(imported.timeline);
  const Result<TimeWindow> samples = require_energy_readings(profile.series, samples_origin);
  if (!samples) return samples.error();
  TraceClockFacts facts;
  facts.trace_origin = trace_origin;
  facts.samples_origin = samples_origin;
  facts.clock_established = imported.clock_established;
  facts.clock_mapping = imported.clock_mapping;
  facts.anchor = profile.meta.anchor;
  return check_trace_alignment(profile.timeline, *samples, facts);
}

}  // namespace jouleprof::attribution
