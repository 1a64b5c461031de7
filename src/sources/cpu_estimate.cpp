// The CPU estimate: when no counter is readable, P = P_idle + (TDP − P_idle) × utilisation, with
// utilisation from the deltas of /proc/stat. It is exposed as a cumulative energy counter (the
// model's power integrated between reads, so the sampler and the attributor treat it like RAPL)
// plus the utilisation it was computed from, and every channel says it is estimated and how.
#include "sources/cpu_estimate.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <fstream>
#include <memory>
#include <sstream>

#include "core/figure_bounds.hpp"
#include "jouleprof/source.hpp"
#include "sources/backends.hpp"
#include "sources/proc_stat.hpp"
#include "sources/setting_values.hpp"

namespace jouleprof {
namespace {

// The settings this source reads (cpu_estimate_settings() lists them).
constexpr const char* kEstimateIdleFractionSetting = "estimate.idle_fraction";
constexpr const char* kEstimateTdpPerCpuSetting = "estimate.tdp_per_cpu_w";
constexpr const char* kEstimatePollPeriodSetting = "estimate.poll_period_ms";
constexpr const char* kEstimateTdpSetting = "estimate.tdp_w";
// Default P_idle / TDP: an assumption (idle draw varies from ~10 % to ~50 % of TDP across
// parts); named option `estimate.idle_fraction`.
constexpr double kDefaultIdleFraction = 0.3;
// Per-CPU TDP used when the model is not in the table and --tdp is not given: a round figure in
// the range of published per-core TDPs of server parts (~8-15 W); option `estimate.tdp_per_cpu_w`.
constexpr double kDefaultTdpPerCpuW = 12.0;
constexpr TimeNs kDefaultPollPeriodNs = 100 * kNsPerMs;

struct TdpEntry {
  std::string_view model;
  double tdp_w;
};
// Manufacturers' published TDPs (base power for Intel Core parts).
constexpr std::array<TdpEntry, 12> kTdpTable{{
    {"Xeon(R) Platinum 8480+", 350.0},
    {"Xeon(R) Platinum 8380", 270.0},
    {"Xeon(R) Gold 6248", 150.0},
    {"EPYC 9654", 360.0},
    {"EPYC 7763", 280.0},
    {"EPYC 7742", 225.0},
    {"i9-13900K", 125.0},
    {"i7-12700K", 125.0},
    {"i5-12400", 65.0},
    {"Ryzen 9 5950X", 105.0},
    {"Ryzen 7 5800X", 105.0},
    {"Ryzen 5 5600X", 65.0},
}};

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+'; }

Result<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error(ErrorCode::kNotFound, fmt::format("{}: cannot be opened", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string cpu_model_name(const std::string& cpuinfo_path) {
  std::ifstream in(cpuinfo_path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string model = line.substr(colon + 1);
    model.erase(0, model.find_first_not_of(" \t"));
    return model;
  }
  return {};
}

class CpuEstimateSource final : public Source {
 public:
  CpuEstimateSource(std::string stat_path, Availability availability)
      : stat_path_(std::move(stat_path)), availability_(std::move(availability)) {}

  void configure(double tdp_w, double idle_fraction, std::string tdp_origin, CpuTimes first,
                 TimeNs poll_period_ns) {
    tdp_w_ = tdp_w;
    idle_w_ = idle_fraction * tdp_w;
    last_times_ = first;
    last_update_ns_ = monotonic_now_ns();
    poll_period_ns_ = poll_period_ns;
    const std::string detail = fmt::format(
        "estimated: P = P_idle + (TDP - P_idle) x utilisation; TDP {:.4g} W ({}); P_idle = {} x "
        "TDP = "
        "{:.4g} W; utilisation = busy / (busy + idle) ticks of all {} CPUs in {} (busy = user + "
        "nice + "
        "system + irq + softirq, idle = idle + iowait, steal left out)",
        tdp_w, tdp_origin, idle_fraction, idle_w_, first.cpus, stat_path_);
    const long ticks_per_s = sysconf(_SC_CLK_TCK);
    Channel energy;
    energy.id = "cpu-estimate:package";
    energy.source = "cpu-estimate";
    energy.device = "cpu";
    energy.domain = "package";
    energy.kind = ChannelKind::kEnergyCounter;
    energy.provenance = Provenance::kEstimated;
    energy.provenance_detail = detail;
    energy.nominal_period_ns = ticks_per_s > 0 ? kNsPerS / ticks_per_s : 0;
    Channel utilisation = energy;
    utilisation.id = "cpu-estimate:utilisation";
    utilisation.kind = ChannelKind::kUtilisation;
    utilisation.provenance_detail = "input of the estimate: " + detail;
    // The model's own zero-load draw: the static part the process shares split (no idle
    // baseline needs measuring for an estimate).
    energy.static_power_w = idle_w_;
    channels_ = {energy, utilisation};
  }

  std::string_view name() const override { return "cpu-estimate"; }
  Availability availability() const override { return availability_; }
  const std::vector<Channel>& channels() const override { return channels_; }
  TimeNs default_period_ns() const override { return poll_period_ns_; }
  std::string read_error(std::size_t) const override { return error_; }

  // The counter advances only when /proc/stat has new ticks: between two changes the utilisation
  // is unknown, so nothing is added (and the update period measures the tick granularity).
  void read(std::span<Reading> out) override {
    const TimeNs now = monotonic_now_ns();
    Result<std::string> text = read_text(stat_path_);
    Result<CpuTimes> times =
        text ? parse_proc_stat(*text, stat_path_) : Result<CpuTimes>(text.error());
    if (!times) {
      error_ = times.error().message();
      for (Reading& r : out) r = Reading{now, 0.0, false};
      return;
    }
    error_.clear();
    const std::uint64_t busy = times->busy - std::min(times->busy, last_times_.busy);
    const std::uint64_t idle = times->idle - std::min(times->idle, last_times_.idle);
    if (busy + idle > 0) {
      utilisation_ = static_cast<double>(busy) / static_cast<double>(busy + idle);
      energy_j_ += (idle_w_ + (tdp_w_ - idle_w_) * utilisation_) * ns_to_s(now - last_update_ns_);
      last_update_ns_ = now;
      last_times_ = *times;
    }
    out[0] = Reading{now, energy_j_, true};
    out[1] = Reading{now, utilisation_, true};
  }

 private:
  std::string stat_path_;
  Availability availability_;
  std::vector<Channel> channels_;
  std::string error_;
  double tdp_w_ = 0.0;
  double idle_w_ = 0.0;
  CpuTimes last_times_;
  TimeNs last_update_ns_ = 0;
  TimeNs poll_period_ns_ = kDefaultPollPeriodNs;
  double energy_j_ = 0.0;
  double utilisation_ = 0.0;
};

}  // namespace

std::optional<double> tdp_from_model_w(std::string_view model_name) {
  for (const TdpEntry& e : kTdpTable) {
    std::size_t at = model_name.find(e.model);
    while (at != std::string_view::npos) {
      const std::size_t after = at + e.model.size();
      const bool starts_word = at == 0 || !is_word_char(model_name[at - 1]);
      const bool ends_word = after == model_name.size() || !is_word_char(model_name[after]);
      if (starts_word && ends_word) return e.tdp_w;
      at = model_name.find(e.model, at + 1);
    }
  }
  return std::nullopt;
}

std::unique_ptr<Source> make_cpu_estimate_source(const SourceOptions& options) {
  const std::string root = options.sysfs_root.empty() ? "/" : options.sysfs_root;
  const std::string stat_path = root + (root.back() == '/' ? "" : "/") + "proc/stat";
  const std::string cpuinfo_path = root + (root.back() == '/' ? "" : "/") + "proc/cpuinfo";
  const auto unavailable = [&](const Error& e, std::string fix) {
    return std::make_unique<CpuEstimateSource>(stat_path,
                                               Availability{false, e.message(), std::move(fix)});
  };

  Result<std::string> text = read_text(stat_path);
  if (!text) return unavailable(text.error(), "the estimate needs Linux's /proc/stat");
  Result<CpuTimes> times = parse_proc_stat(*text, stat_path);
  if (!times) return unavailable(times.error(), "the estimate needs Linux's /proc/stat");

  const auto& settings = options.settings;
  Result<double> idle_fraction =
      setting_number(settings, kEstimateIdleFractionSetting, kDefaultIdleFraction, 0.0, 1.0);
  Result<double> per_cpu =
      setting_number(settings, kEstimateTdpPerCpuSetting, kDefaultTdpPerCpuW, 0.1, 1e4);
  Result<double> poll_ms = setting_number(settings, kEstimatePollPeriodSetting,
                                          ns_to_s(kDefaultPollPeriodNs) * 1e3, 1.0, 1e6);
  for (const Result<double>* r : {&idle_fraction, &per_cpu, &poll_ms}) {
    if (!*r) return unavailable(r->error(), "fix the setting's value");
  }

  double tdp_w = 0.0;
  std::string origin;
  const std::string model = cpu_model_name(cpuinfo_path);
  if (settings.count(kEstimateTdpSetting) > 0) {
    Result<double> tdp = setting_number(settings, kEstimateTdpSetting, 0.0, 0.1, kMaxDevicePowerW);
    if (!tdp)
      return unavailable(tdp.error(), "give the CPU's TDP in watts (setting estimate.tdp_w)");
    tdp_w = *tdp;
    origin = "given with setting estimate.tdp_w";
  } else if (std::optional<double> known = tdp_from_model_w(model)) {
    tdp_w = *known;
    origin = fmt::format("table entry for '{}'", model);
  } else {
    tdp_w = static_cast<double>(times->cpus) * *per_cpu;
    origin = fmt::format(
        "{} CPUs x {} W per CPU: model '{}' not in the TDP table, give setting estimate.tdp_w",
        times->cpus, *per_cpu, model.empty() ? "unknown" : model);
  }
  auto source = std::make_unique<CpuEstimateSource>(stat_path, Availability{true, "", ""});
  source->configure(tdp_w, *idle_fraction, origin, *times, s_to_ns(*poll_ms * 1e-3));
  return source;
}

std::span<const std::string_view> cpu_estimate_settings() {
  static constexpr std::array<std::string_view, 4> kNames{
      kEstimateIdleFractionSetting, kEstimateTdpPerCpuSetting, kEstimatePollPeriodSetting,
      kEstimateTdpSetting};
  return kNames;
}

}  // namespace jouleprof
