// The table of backends and the rules that pick a run's sources (see jouleprof/sources.hpp).
#include "sources/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <vector>

#include "core/parse.hpp"
#include "jouleprof/sources.hpp"
#include "sources/backends.hpp"
#include "sources/liveness_probe.hpp"

namespace jouleprof {
namespace {

// RAPL counters update about every millisecond, so 50 ms without a change means nobody feeds them.
constexpr TimeNs kRaplLivenessProbeNs = 50 * kNsPerMs;

// Order within a group is the order of preference: the three RAPL paths read the same counters,
// so the default set takes the first that works (powercap, then perf, then MSR).
constexpr std::array kRegistry{
    SourceEntry{"rapl-powercap", "rapl", SourceClass::kMeasured,
                "Intel/AMD RAPL energy counters through powercap sysfs (measured)",
                make_rapl_powercap_source, kRaplLivenessProbeNs},
    SourceEntry{"rapl-perf", "rapl", SourceClass::kMeasured,
                "RAPL through perf_event_open and the power PMU, no root needed when "
                "perf_event_paranoid allows (measured)",
                make_rapl_perf_source, kRaplLivenessProbeNs},
    SourceEntry{"rapl-msr", "rapl", SourceClass::kMeasured,
                "RAPL model-specific registers through /dev/cpu/N/msr, root only (measured)",
                make_rapl_msr_source, kRaplLivenessProbeNs, "", rapl_msr_settings},
    SourceEntry{"nvml", "", SourceClass::kMeasured,
                "NVIDIA GPUs through NVML: total-energy counter, power, temperature (measured)",
                make_nvml_source, 0, "", nvml_settings},
    SourceEntry{"rocm-smi", "", SourceClass::kMeasured,
                "AMD GPUs through ROCm SMI: energy counter or average power, temperature "
                "(measured)",
                make_rocm_smi_source, 0, "amdgpu", rocm_smi_settings},
    SourceEntry{"level-zero", "", SourceClass::kMeasured,
                "Intel GPUs through Level Zero Sysman: energy counters per power domain, "
                "temperature (measured)",
                make_level_zero_source, 0, "i915,xe", level_zero_settings},
    SourceEntry{"hwmon", "", SourceClass::kMeasured,
                "hwmon power and energy sensors, e.g. Jetson INA3221 rails (measured)",
                make_hwmon_source, 0, "", hwmon_settings},
    SourceEntry{"power-supply", "", SourceClass::kMeasured,
                "batteries and supplies in /sys/class/power_supply (measured)",
                make_power_supply_source},
    SourceEntry{"cpu-estimate", "", SourceClass::kEstimated,
                "P = P_idle + (TDP - P_idle) x CPU utilisation from /proc/stat (estimated)",
                make_cpu_estimate_source, 0, "", cpu_estimate_settings},
    SourceEntry{"simulated", "", SourceClass::kSimulated,
                "scripted power profiles for tests and demos (simulated)", make_simulated_source, 0,
                "", simulated_settings},
};

// A source and the settings keys it reads: the registry's backends and the process source, which
// joins runs from outside the table.
struct SettingsOwner {
  std::string_view source;
  std::span<const std::string_view> keys;
};

std::vector<SettingsOwner> settings_owners() {
  std::vector<SettingsOwner> owners;
  for (const SourceEntry& e : kRegistry) {
    if (e.settings != nullptr) owners.push_back({e.name, e.settings()});
  }
  owners.push_back({"processes", process_activity_settings()});
  return owners;
}

// Keys are "<prefix>.<name>", one prefix per source ("simulate" for simulated).
std::string_view key_prefix(std::string_view key) { return key.substr(0, key.find('.')); }

// A misspelt key would otherwise be ignored and the run use the default the user meant to change.
Status check_settings(const std::map<std::string, std::string>& settings) {
  const std::vector<SettingsOwner> owners = settings_owners();
  for (const auto& [key, value] : settings) {
    const SettingsOwner* owner = nullptr;
    bool known = false;
    for (const SettingsOwner& o : owners) {
      known = known || std::find(o.keys.begin(), o.keys.end(), key) != o.keys.end();
      if (!o.keys.empty() && key_prefix(o.keys.front()) == key_prefix(key)) owner = &o;
    }
    if (known) continue;
    if (owner != nullptr) {
      return invalid_input("settings", key, value,
                           fmt::format("the {} source has no such setting (its settings: {})",
                                       owner->source, fmt::join(owner->keys, ", ")));
    }
    std::vector<std::string> prefixes;
    for (const SettingsOwner& o : owners) {
      if (!o.keys.empty()) {
        prefixes.push_back(fmt::format("{}.* ({})", key_prefix(o.keys.front()), o.source));
      }
    }
    return invalid_input("settings", key, value,
                         fmt::format("no source has this setting (settings are named by their "
                                     "source: {})",
                                     fmt::join(prefixes, ", ")));
  }
  return Status::Ok();
}

const SourceEntry* find_entry(std::string_view name) {
  for (const SourceEntry& e : kRegistry) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

// Opens the backends of one discovery in turn, numbering their GPUs in one sequence and telling
// hwmon which chips the GPU backends already read.
class SourceOpener {
 public:
  explicit SourceOpener(const SourceOptions& options) : options_(options) {}

  std::unique_ptr<Source> open(const SourceEntry& entry) {
    SourceOptions options = options_;
    options.first_gpu_index = next_gpu_index_;
    if (entry.name == "hwmon" && !hwmon_skips_.empty()) {
      // The user's chips, if any, stay.
      std::string& skips = options.settings[std::string(kHwmonSkipChipsSetting)];
      skips = skips.empty() ? hwmon_skips_ : skips + "," + hwmon_skips_;
    }
    std::unique_ptr<Source> source = entry.make(options);
    for (const Channel& channel : source->channels()) {
      const std::string_view device = channel.device;
      if (!device.starts_with("gpu")) continue;
      if (const auto index = to_integer<std::size_t>(device.substr(3))) {
        next_gpu_index_ = std::max(next_gpu_index_, *index + 1);
      }
    }
    return source;
  }

  // After `entry`'s source was taken into the run.
  void taken(const SourceEntry& entry) {
    if (entry.hwmon_chips.empty()) return;
    if (!hwmon_skips_.empty()) hwmon_skips_ += ",";
    hwmon_skips_ += entry.hwmon_chips;
  }

 private:
  const SourceOptions& options_;
  std::size_t next_gpu_index_ = 0;
  std::string hwmon_skips_;
};

void add_source(SourceDiscovery& found, const SourceEntry& entry, std::unique_ptr<Source> source) {
  const Availability availability = source->availability();
  if (availability.available) {
    // A source that works with a limitation (zones skipped, a wrap it cannot undo) says so.
    if (!availability.reason.empty()) {
      found.notes.push_back(fmt::format("{}: {}", entry.name, availability.reason));
    }
    found.available.push_back(std::move(source));
  } else {
    found.unavailable.push_back({std::string(entry.name), availability});
  }
}

SourceDiscovery discover_default(const SourceOptions& options, ProbeClock& probe_clock) {
  SourceDiscovery found;
  SourceOpener opener(options);
  std::map<std::string_view, std::string_view> groups_taken;  // group -> backend used
  for (const SourceEntry& entry : kRegistry) {
    if (entry.source_class != SourceClass::kMeasured) continue;
    if (!entry.group.empty() && groups_taken.count(entry.group) > 0) {
      found.notes.push_back(fmt::format("{} not tried: {} already reads the {} counters",
                                        entry.name, groups_taken.at(entry.group), entry.group));
      continue;
    }
    std::unique_ptr<Source> source = opener.open(entry);
    if (source->availability().available && entry.liveness_probe_ns > 0) {
      const Liveness liveness = probe_liveness(*source, entry.liveness_probe_ns, probe_clock);
      if (!liveness.alive) {
        // Not a group taken: another interface to the same counters may still be fed.
        found.unavailable.push_back(
            {std::string(entry.name),
             {false, liveness.evidence,
              fmt::format("virtual machines often expose RAPL without feeding it; select the "
                          "{} source by name (SourceOptions::selected) to use it anyway",
                          entry.name)}});
        continue;
      }
    }
    if (source->availability().available) {
      if (!entry.group.empty()) groups_taken.emplace(entry.group, entry.name);
      opener.taken(entry);
    }
    add_source(found, entry, std::move(source));
  }
  if (!found.available.empty()) return found;

  for (const SourceEntry& entry : kRegistry) {
    if (entry.source_class != SourceClass::kEstimated) continue;
    std::unique_ptr<Source> source = entry.make(options);
    if (source->availability().available) {
      found.notes.push_back(fmt::format(
          "no measured energy source is available: using {} (every figure is an estimate)",
          entry.name));
    }
    add_source(found, entry, std::move(source));
  }
  return found;
}

Result<SourceDiscovery> discover_selected(const SourceOptions& options) {
  std::vector<const SourceEntry*> entries;
  for (const std::string& name : options.selected) {
    const SourceEntry* entry = find_entry(name);
    if (entry == nullptr) {
      return invalid_input("SourceOptions::selected", "name", name,
                           fmt::format("unknown energy source (valid: {})", source_names()));
    }
    if (std::find(entries.begin(), entries.end(), entry) == entries.end()) entries.push_back(entry);
  }
  SourceDiscovery found;
  SourceOpener opener(options);
  for (const SourceEntry* entry : entries) {
    std::unique_ptr<Source> source = opener.open(*entry);
    if (source->availability().available) opener.taken(*entry);
    add_source(found, *entry, std::move(source));
  }
  return found;
}

// The process source reads activity, not energy: it joins any set of sources when processes are
// observed, first, so that the GPU sources see this poll's observed set.
void add_process_source(SourceDiscovery& found, const SourceOptions& options) {
  if (!options.observed) return;
  std::unique_ptr<Source> source = make_process_activity_source(options);
  const Availability availability = source->availability();
  if (availability.available) {
    found.available.insert(found.available.begin(), std::move(source));
  } else {
    found.unavailable.push_back({std::string(source->name()), availability});
  }
}

}  // namespace

std::span<const SourceEntry> source_registry() { return kRegistry; }

std::string source_names() {
  std::string names;
  for (const SourceEntry& e : kRegistry) {
    if (!names.empty()) names += ", ";
    names += e.name;
  }
  return names;
}

std::vector<std::string> split_source_list(std::string_view text) {
  std::vector<std::string> names;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find(',', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view part = trim_ascii_space(text.substr(begin, end - begin));
    if (!part.empty()) names.emplace_back(part);
    begin = end + 1;
  }
  return names;
}

Result<SourceDiscovery> discover_sources(const SourceOptions& options) {
  return discover_sources(options, monotonic_probe_clock());
}

Result<SourceDiscovery> discover_sources(const SourceOptions& options, ProbeClock& probe_clock) {
  JP_RETURN_IF_ERROR(check_settings(options.settings));
  SourceDiscovery found;
  if (options.selected.empty()) {
    found = discover_default(options, probe_clock);
  } else {
    JP_TRY(found, discover_selected(options));
  }
  add_process_source(found, options);
  found.observed = options.observed;
  return found;
}

}  // namespace jouleprof
