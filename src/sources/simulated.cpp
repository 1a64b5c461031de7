// The simulated source: a package-like channel whose counter follows a scripted power profile on
// the real monotonic clock, so the real Sampler can poll it and the ground truth is known exactly.
//
// Counter model: the counter updates every `update_period` (like RAPL's ~1 ms); update k adds the
// profile's exact energy over [(k-1)P, kP] plus, when noise is set, noise_w × z_k × P with z_k a
// seeded standard normal of k (clamped so an interval never has negative energy). With a wrap
// range the raw counter wraps and is unwrapped exactly as the hardware backends do: a poll slower
// than the wrap time loses whole wraps, as on real hardware.
// Power model: the mean power over the last `average_window` (at least one update), read off the
// same counter, so energy and power channels agree.
#include "sources/simulated.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>

#include "core/figure_bounds.hpp"
#include "core/parse.hpp"
#include "jouleprof/source.hpp"
#include "sources/backends.hpp"
#include "sources/setting_values.hpp"

namespace jouleprof {
namespace {

// The settings this source reads (simulated_settings() lists them).
constexpr const char* kSimulateWattsSetting = "simulate.watts";
constexpr const char* kSimulateProfileSetting = "simulate.profile";
constexpr const char* kSimulateRepeatSetting = "simulate.repeat";
constexpr const char* kSimulateNoiseSetting = "simulate.noise_w";
constexpr const char* kSimulateSeedSetting = "simulate.seed";
constexpr const char* kSimulateUpdatePeriodSetting = "simulate.update_period_ms";
constexpr const char* kSimulateAverageWindowSetting = "simulate.average_window_ms";
constexpr const char* kSimulateWrapSetting = "simulate.wrap_j";
constexpr const char* kSimulatePollPeriodSetting = "simulate.poll_period_ms";
constexpr const char* kSimulateChannelsSetting = "simulate.channels";
constexpr const char* kSimulateDeviceSetting = "simulate.device";
constexpr double kMaxWatts = kMaxDevicePowerW;
// Written into every channel's provenance detail, followed by the origin in nanoseconds.
constexpr std::string_view kOriginKey = "origin_ns=";
constexpr double kMaxSeconds = 1e7;

Result<double> parse_watts(std::string_view text, std::string_view field) {
  return parse_number_between(kSimulateProfileSetting, field, text, 0.0, kMaxWatts);
}

// splitmix64: a seeded, random-access stream (noise of update k does not depend on read timing).
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double standard_normal(std::uint64_t seed, std::uint64_t k) {
  const std::uint64_t a = mix(seed ^ mix(2 * k));
  const std::uint64_t b = mix(seed ^ mix(2 * k + 1));
  const double u1 = (static_cast<double>(a >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
  const double u2 = static_cast<double>(b >> 11) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

class SimulatedSource final : public Source {
 public:
  SimulatedSource(SimulationSettings settings, Availability availability)
      : settings_(std::move(settings)),
        availability_(std::move(availability)),
        counter_(settings_) {
    if (!availability_.available) return;
    origin_ns_ = monotonic_now_ns();
    // The origin makes the ground truth recomputable from the profile alone.
    const std::string detail = fmt::format(
        "simulated: profile '{}' W from {}{}, counter update {} ms, noise {} W (seed {}), wrap {}",
        settings_.profile_text, kOriginKey, origin_ns_, ns_to_s(settings_.update_period_ns) * 1e3,
        settings_.noise_w, settings_.seed,
        settings_.wrap_j > 0 ? fmt::format("{} J", settings_.wrap_j) : "none");
    Channel base;
    base.source = "simulated";
    base.device = settings_.device;
    base.domain = "package";
    base.provenance = Provenance::kSimulated;
    base.nominal_period_ns = settings_.update_period_ns;
    const bool energy = settings_.channels != SimulatedChannels::kPower;
    const bool power = settings_.channels != SimulatedChannels::kEnergy;
    if (energy) {
      Channel c = base;
      c.id = "simulated:package";
      c.kind = ChannelKind::kEnergyCounter;
      c.provenance_detail = detail;
      channels_.push_back(c);
    }
    if (power) {
      Channel c = base;
      c.id = energy ? "simulated:package-power" : "simulated:package";
      c.kind = ChannelKind::kPower;
      c.provenance_detail = fmt::format("{}, power averaged over max(window {} ms, one update)",
                                        detail, ns_to_s(settings_.average_window_ns) * 1e3);
      // A window longer than one update is a moving average of the kind NVML's is (its lag is
      // the `averaging` term); over one update the reading is that interval's mean power.
      if (settings_.average_window_ns > settings_.update_period_ns)
        c.averaging_ns = settings_.average_window_ns;
      // The same package as the counter: nested so that totals count it once.
      if (energy) c.parent_id = "simulated:package";
      channels_.push_back(c);
    }
  }

  std::string_view name() const override { return "simulated"; }
  Availability availability() const override { return availability_; }
  const std::vector<Channel>& channels() const override { return channels_; }
  TimeNs default_period_ns() const override { return settings_.poll_period_ns; }
  std::string read_error(std::size_t) const override { return {}; }

  void read(std::span<Reading> out) override {
    const TimeNs now = monotonic_now_ns();
    counter_.advance_to(static_cast<std::uint64_t>(std::max<TimeNs>(0, now - origin_ns_) /
                                                   settings_.update_period_ns));
    const double energy_j = counter_.read_unwrapped_j();
    for (std::size_t i = 0; i < channels_.size(); ++i) {
      const bool counter = channels_[i].kind == ChannelKind::kEnergyCounter;
      out[i] = Reading{now, counter ? energy_j : counter_.window_power_w(), true};
    }
  }

 private:
  SimulationSettings settings_;
  Availability availability_;
  SimulatedCounter counter_;
  std::vector<Channel> channels_;
  TimeNs origin_ns_ = 0;
};

}  // namespace

SimulatedCounter::SimulatedCounter(const SimulationSettings& settings)
    : settings_(&settings), recent_counter_j_(window_updates() + 1, 0.0) {}

std::size_t SimulatedCounter::window_updates() const {
  return static_cast<std::size_t>(
      std::max<TimeNs>(1, settings_->average_window_ns / settings_->update_period_ns));
}

void SimulatedCounter::advance_to(std::uint64_t k) {
  const double period_s = ns_to_s(settings_->update_period_ns);
  while (updates_ < k) {
    const double a_s = static_cast<double>(updates_) * period_s;
    double interval_j = settings_->profile.energy_between_j(a_s, a_s + period_s);
    if (settings_->noise_w > 0.0) {
      interval_j += settings_->noise_w * standard_normal(settings_->seed, updates_) * period_s;
      interval_j = std::max(0.0, interval_j);
    }
    ++updates_;
    counter_j_ += interval_j;
    raw_j_ = settings_->wrap_j > 0.0 ? std::fmod(raw_j_ + interval_j, settings_->wrap_j)
                                     : raw_j_ + interval_j;
    ring_next_ = (ring_next_ + 1) % recent_counter_j_.size();
    recent_counter_j_[ring_next_] = counter_j_;
  }
}

double SimulatedCounter::read_unwrapped_j() {
  double delta = raw_j_ - last_raw_j_;
  if (delta < 0.0) delta += settings_->wrap_j;
  unwrapped_j_ += delta;
  last_raw_j_ = raw_j_;
  return unwrapped_j_;
}

double SimulatedCounter::window_power_w() const {
  if (updates_ == 0) return settings_->profile.power_w(0.0);
  const std::size_t n = std::min<std::size_t>(window_updates(), static_cast<std::size_t>(updates_));
  const std::size_t size = recent_counter_j_.size();
  const double older_j = recent_counter_j_[(ring_next_ + size - n) % size];
  return (counter_j_ - older_j) / (static_cast<double>(n) * ns_to_s(settings_->update_period_ns));
}

PowerProfile PowerProfile::constant(double watts) {
  PowerProfile p;
  p.segments_.push_back({watts, watts, std::numeric_limits<double>::infinity()});
  return p;
}

Result<PowerProfile> PowerProfile::parse(const std::string& text, bool repeat) {
  PowerProfile p;
  std::string_view rest = text;
  std::size_t index = 0;
  while (true) {
    const std::size_t sep = rest.find(';');
    const std::string_view part = trim_ascii_space(rest.substr(0, sep));
    const std::string field = fmt::format("segment {}", index + 1);
    if (part.empty()) return invalid_input(kSimulateProfileSetting, field, text, "empty segment");
    Segment seg;
    std::string_view power = part;
    if (const std::size_t colon = part.find(':'); colon != std::string_view::npos) {
      power = trim_ascii_space(part.substr(0, colon));
      JP_TRY(seg.duration_s,
             parse_number_between(kSimulateProfileSetting, field + " duration",
                                  trim_ascii_space(part.substr(colon + 1)), 0.0, kMaxSeconds));
      if (seg.duration_s <= 0.0) {
        return invalid_input(kSimulateProfileSetting, field + " duration", part,
                             "must be positive");
      }
    }
    if (const std::size_t arrow = power.find("->"); arrow != std::string_view::npos) {
      JP_TRY(seg.start_w,
             parse_watts(trim_ascii_space(power.substr(0, arrow)), field + " start watts"));
      JP_TRY(seg.end_w,
             parse_watts(trim_ascii_space(power.substr(arrow + 2)), field + " end watts"));
    } else {
      JP_TRY(seg.start_w, parse_watts(power, field + " watts"));
      seg.end_w = seg.start_w;
    }
    p.segments_.push_back(seg);
    ++index;
    if (sep == std::string_view::npos) break;
    rest.remove_prefix(sep + 1);
  }
  for (std::size_t i = 0; i < p.segments_.size(); ++i) {
    const Segment& seg = p.segments_[i];
    const bool last = i + 1 == p.segments_.size();
    if (std::isinf(seg.duration_s) && (!last || seg.start_w != seg.end_w || repeat)) {
      return invalid_input(kSimulateProfileSetting, fmt::format("segment {}", i + 1), text,
                           "only the last segment of a non-repeating profile may omit its "
                           "duration, and it must be constant");
    }
  }
  p.repeat_ = repeat;
  p.cycle_s_ = 0.0;
  for (const Segment& seg : p.segments_) p.cycle_s_ += seg.duration_s;
  if (std::isfinite(p.cycle_s_)) p.cycle_energy_j_ = p.cycle_energy_until_j(p.cycle_s_);
  return p;
}

double PowerProfile::power_w(double t_s) const {
  if (repeat_ && std::isfinite(cycle_s_)) t_s = std::fmod(t_s, cycle_s_);
  for (const Segment& seg : segments_) {
    if (t_s < seg.duration_s) {
      return seg.start_w + (seg.end_w - seg.start_w) * (t_s / seg.duration_s);
    }
    t_s -= seg.duration_s;
  }
  return segments_.back().end_w;  // a finite, non-repeating profile holds its last value
}

double PowerProfile::cycle_energy_until_j(double t_s) const {
  double energy = 0.0;
  for (const Segment& seg : segments_) {
    const double in_segment = std::min(t_s, seg.duration_s);
    if (in_segment <= 0.0) break;
    const double end_power =
        std::isinf(seg.duration_s)
            ? seg.start_w
            : seg.start_w + (seg.end_w - seg.start_w) * (in_segment / seg.duration_s);
    energy += 0.5 * (seg.start_w + end_power) * in_segment;
    t_s -= in_segment;
  }
  if (t_s > 0.0) energy += segments_.back().end_w * t_s;  // held after a finite profile
  return energy;
}

double PowerProfile::energy_until_j(double t_s) const {
  if (!repeat_ || !std::isfinite(cycle_s_)) return cycle_energy_until_j(t_s);
  const double cycles = std::floor(t_s / cycle_s_);
  return cycles * cycle_energy_j_ + cycle_energy_until_j(t_s - cycles * cycle_s_);
}

double PowerProfile::energy_between_j(double a_s, double b_s) const {
  return b_s <= a_s ? 0.0 : energy_until_j(b_s) - energy_until_j(a_s);
}

std::optional<TimeNs> simulated_origin_ns(const Channel& channel) {
  if (channel.source != "simulated") return std::nullopt;
  const std::size_t at = channel.provenance_detail.find(kOriginKey);
  if (at == std::string::npos) return std::nullopt;
  return to_integer<TimeNs>(
      leading_digits(std::string_view(channel.provenance_detail).substr(at + kOriginKey.size())));
}

Result<SimulationSettings> parse_simulation_settings(const SettingsMap& settings) {
  SimulationSettings s;
  const auto get = [&](const std::string& key) -> const std::string* {
    const auto it = settings.find(key);
    return it == settings.end() ? nullptr : &it->second;
  };
  const std::string* watts = get(kSimulateWattsSetting);
  const std::string* profile = get(kSimulateProfileSetting);
  if (watts != nullptr && profile != nullptr) {
    return invalid_input("settings", kSimulateWattsSetting, *watts,
                         "give either simulate.watts or simulate.profile, not both");
  }
  bool repeat = false;
  if (const std::string* r = get(kSimulateRepeatSetting)) {
    if (*r != "0" && *r != "1")
      return invalid_input("settings", kSimulateRepeatSetting, *r, "must be 0 or 1");
    repeat = *r == "1";
  }
  if (watts != nullptr) {
    JP_TRY(const double w,
           parse_number_between("settings", kSimulateWattsSetting, *watts, 0.0, kMaxWatts));
    s.profile = PowerProfile::constant(w);
    s.profile_text = *watts;
  } else if (profile != nullptr) {
    JP_TRY(s.profile, PowerProfile::parse(*profile, repeat));
    s.profile_text = *profile;
  } else {
    return Error(ErrorCode::kUnavailable,
                 "no power profile given (settings simulate.watts or simulate.profile)");
  }
  if (repeat) s.profile_text += " (repeating)";
  JP_TRY(s.noise_w, setting_number(settings, kSimulateNoiseSetting, 0.0, 0.0, kMaxWatts));
  JP_TRY(const double seed,
         setting_number(settings, kSimulateSeedSetting, 1.0, 0.0, 9007199254740992.0));
  s.seed = static_cast<std::uint64_t>(seed);
  JP_TRY(const double update_ms,
         setting_number(settings, kSimulateUpdatePeriodSetting, 1.0, 0.001, 1e6));
  s.update_period_ns = s_to_ns(update_ms * 1e-3);
  JP_TRY(const double window_ms,
         setting_number(settings, kSimulateAverageWindowSetting, 0.0, 0.0, 1e6));
  s.average_window_ns = s_to_ns(window_ms * 1e-3);
  JP_TRY(s.wrap_j, setting_number(settings, kSimulateWrapSetting, 0.0, 0.0, 1e12));
  JP_TRY(const double poll_ms,
         setting_number(settings, kSimulatePollPeriodSetting, 10.0, 0.01, 1e6));
  s.poll_period_ns = s_to_ns(poll_ms * 1e-3);
  if (const std::string* c = get(kSimulateChannelsSetting)) {
    if (*c == "energy") {
      s.channels = SimulatedChannels::kEnergy;
    } else if (*c == "power") {
      s.channels = SimulatedChannels::kPower;
    } else if (*c == "energy,power") {
      s.channels = SimulatedChannels::kEnergyAndPower;
    } else {
      return invalid_input("settings", kSimulateChannelsSetting, *c,
                           "must be energy, power or energy,power");
    }
  }
  if (const std::string* d = get(kSimulateDeviceSetting)) s.device = *d;
  return s;
}

std::unique_ptr<Source> make_simulated_source(const SourceOptions& options) {
  Result<SimulationSettings> settings = parse_simulation_settings(options.settings);
  if (!settings) {
    return std::make_unique<SimulatedSource>(
        SimulationSettings{},
        Availability{false, settings.error().message(),
                     "give a power profile: setting simulate.watts or simulate.profile "
                     "(docs/sources.md)"});
  }
  return std::make_unique<SimulatedSource>(std::move(settings).value(), Availability{true, "", ""});
}

std::span<const std::string_view> simulated_settings() {
  static constexpr std::array<std::string_view, 11> kNames{
      kSimulateWattsSetting,         kSimulateProfileSetting, kSimulateRepeatSetting,
      kSimulateNoiseSetting,         kSimulateSeedSetting,    kSimulateUpdatePeriodSetting,
      kSimulateAverageWindowSetting, kSimulateWrapSetting,    kSimulatePollPeriodSetting,
      kSimulateChannelsSetting,      kSimulateDeviceSetting};
  return kNames;
}

}  // namespace jouleprof
