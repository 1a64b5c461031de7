// RAPL through the powercap sysfs interface (<root>/sys/class/powercap/intel-rapl:S[:D]).
// Intel and AMD both register their zones under the intel-rapl control type; AMD reports a
// package and a core zone per socket, Intel adds uncore, dram and a platform-wide psys zone.
// The zone's meaning is in its `name` file, never in its path.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/parse.hpp"
#include "sources/backends.hpp"
#include "sources/energy_accumulator.hpp"
#include "sources/plausibility.hpp"
#include "sources/rapl_common.hpp"
#include "sources/sysfs_file.hpp"
#include "sources/unit_factors.hpp"

namespace jouleprof {
namespace {

constexpr std::string_view kRaplPowercapSourceName = "rapl-powercap";
constexpr std::string_view kRaplPowercapChannelPrefix = "rapl";
constexpr std::string_view kZonePrefix = "intel-rapl:";

// The indices in a zone directory name: "intel-rapl:1" -> {1}, "intel-rapl:1:0" -> {1, 0};
// nullopt for anything else ("intel-rapl" itself, "intel-rapl-mmio:0", which duplicates the
// package zone through MMIO).
std::optional<std::vector<int>> zone_indices(std::string_view dir_name) {
  if (dir_name.substr(0, kZonePrefix.size()) != kZonePrefix) return std::nullopt;
  std::vector<int> indices;
  std::string_view rest = dir_name.substr(kZonePrefix.size());
  while (true) {
    const std::size_t colon = rest.find(':');
    const std::string_view part = rest.substr(0, colon);
    if (part.empty() || part.size() > 6 ||
        !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    indices.push_back(static_cast<int>(*to_int64(part)));  // at most 6 digits
    if (colon == std::string_view::npos) break;
    rest = rest.substr(colon + 1);
  }
  if (indices.size() > 2) return std::nullopt;
  return indices;
}

// "package-1" -> 1; nullopt for any other name (including "package-0-die-1").
std::optional<int> package_socket(std::string_view zone_name) {
  constexpr std::string_view kPackage = "package-";
  if (zone_name.substr(0, kPackage.size()) != kPackage) return std::nullopt;
  const std::string_view digits = zone_name.substr(kPackage.size());
  if (digits.empty() || digits.size() > 6 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return static_cast<int>(*to_int64(digits));  // at most 6 digits
}

// "package-0" and "package-0-die-1" are packages; every other name is its own domain.
std::string domain_of(std::string_view zone_name) {
  if (zone_name.substr(0, 8) == "package-") return "package";
  return std::string(zone_name);
}

struct Zone {
  std::string dir_name;   // intel-rapl:0:1
  std::string zone_name;  // contents of `name`: package-0, core, uncore, dram, psys
  std::vector<int> indices;
  sysfs::OpenFile energy;
  std::uint64_t max_energy_range_uj = 0;  // 0 = unknown: a decrease cannot be unwrapped
  EnergyAccumulator accumulator;
  std::string read_error;
};

class RaplPowercapSource final : public Source {
 public:
  explicit RaplPowercapSource(const SourceOptions& options) { discover(options.sysfs_root); }

  std::string_view name() const override { return kRaplPowercapSourceName; }
  Availability availability() const override { return availability_; }
  const std::vector<Channel>& channels() const override { return channels_; }
  TimeNs default_period_ns() const override { return rapl::kDefaultPollPeriodNs; }

  std::string read_error(std::size_t channel) const override {
    return channel < zones_.size() ? zones_[channel].read_error : std::string();
  }

  void read(std::span<Reading> out) override {
    for (std::size_t i = 0; i < zones_.size() && i < out.size(); ++i) {
      Zone& zone = zones_[i];
      Reading& reading = out[i];
      reading.t_ns = monotonic_now_ns();
      reading.ok = false;
      auto raw = zone.energy.read_unsigned("energy_uj");
      if (!raw) {
        zone.read_error =
            fmt::format("zone {} ({}): {}", zone.dir_name, zone.zone_name, raw.error().message());
        continue;
      }
      if (zone.max_energy_range_uj != 0 && *raw > zone.max_energy_range_uj) {
        zone.read_error = fmt::format(
            "{}: field 'energy_uj' has value '{}': above "
            "max_energy_range_uj {}",
            zone.energy.path().string(), *raw, zone.max_energy_range_uj);
        continue;
      }
      zone.accumulator.add(*raw, reading.t_ns);
      zone.read_error.clear();
      reading.value = static_cast<double>(zone.accumulator.total()) * kJoulesPerMicrojoule;
      reading.ok = true;
    }
  }

 private:
  void discover(const std::string& root) {
    const auto class_dir = sysfs::under_root(root, "/sys/class/powercap");
    auto entries = sysfs::list_directory(class_dir);
    if (!entries) {
      availability_.reason = fmt::format("no powercap RAPL zones: {} ({})", class_dir.string(),
                                         entries.error().message());
      availability_.fix =
          "load the RAPL driver (`sudo modprobe intel_rapl_msr`, Intel and AMD), or try the "
          "rapl-perf or rapl-msr source; virtual machines usually do not expose RAPL";
      return;
    }

    std::vector<std::string> skipped;
    std::vector<std::string> caveats;  // zones used, with a limitation
    bool permission_denied = false;
    for (const std::string& entry : *entries) {
      auto indices = zone_indices(entry);
      if (!indices) continue;
      const auto zone_dir = class_dir / entry;
      auto zone_name = sysfs::read_text(zone_dir / "name");
      if (!zone_name || zone_name->empty()) {
        skipped.push_back(zone_name
                              ? fmt::format("{}: empty name file", (zone_dir / "name").string())
                              : zone_name.error().message());
        continue;
      }
      auto energy = sysfs::OpenFile::open(zone_dir / "energy_uj");
      if (!energy) {
        permission_denied |= energy.error().code() == ErrorCode::kPermissionDenied;
        skipped.push_back(energy.error().message());
        continue;
      }
      // Probe once so that a zone with garbage in it is reported now, not on every sample.
      auto probe = energy->read_unsigned("energy_uj");
      if (!probe) {
        permission_denied |= probe.error().code() == ErrorCode::kPermissionDenied;
        skipped.push_back(probe.error().message());
        continue;
      }
      Zone zone;
      zone.dir_name = entry;
      zone.zone_name = *zone_name;
      zone.indices = *indices;
      zone.energy = std::move(energy).value();
      auto max_range = sysfs::read_unsigned(zone_dir / "max_energy_range_uj");
      if (max_range && *max_range > 0) {
        zone.max_energy_range_uj = *max_range;
        // The counter runs from 0 to max_energy_range_uj inclusive, then restarts at 0.
        zone.accumulator = EnergyAccumulator(*max_range + 1, kJoulesPerMicrojoule,
                                             power_ceiling(domain_of(zone.zone_name)));
      } else {
        caveats.push_back(fmt::format(
            "{}: {}, so a wrap cannot be undone and will read as a counter reset (a gap)", entry,
            max_range
                ? "max_energy_range_uj is 0, which is no range"
                : fmt::format("no usable max_energy_range_uj ({})", max_range.error().message())));
      }
      zones_.push_back(std::move(zone));
    }

    if (zones_.empty()) {
      availability_.reason =
          skipped.empty() ? fmt::format("no intel-rapl zones under {}", class_dir.string())
                          : fmt::format("no readable RAPL zone: {}", fmt::join(skipped, "; "));
      availability_.fix = permission_denied
                              ? rapl::powercap_permission_fix()
                              : "load the RAPL driver (`sudo modprobe intel_rapl_msr`), or try "
                                "the rapl-perf or rapl-msr source";
      return;
    }
    availability_.available = true;
    std::vector<std::string> notes = std::move(caveats);
    if (!skipped.empty()) {
      notes.insert(notes.begin(), fmt::format("some zones skipped: {}", fmt::join(skipped, "; ")));
      if (permission_denied) availability_.fix = rapl::powercap_permission_fix();
    }
    availability_.reason = fmt::format("{}", fmt::join(notes, "; "));
    build_channels();
  }

  // Names each zone and declares nesting: a sub-zone nests in its package; packages nest in
  // psys when exactly one psys zone exists (with several, which packages each covers is unknown).
  void build_channels() {
    const auto top_level_name = [&](int top_index) -> const Zone* {
      for (const Zone& zone : zones_) {
        if (zone.indices.size() == 1 && zone.indices[0] == top_index) return &zone;
      }
      return nullptr;
    };
    const auto psys_count = std::count_if(zones_.begin(), zones_.end(), [](const Zone& zone) {
      return zone.indices.size() == 1 && zone.zone_name == "psys";
    });
    std::string psys_id;
    if (psys_count == 1) psys_id = fmt::format("{}:psys", kRaplPowercapChannelPrefix);

    std::set<std::string> used_ids;
    for (const Zone& zone : zones_) {
      std::string id;
      std::string parent_id;
      std::string device;
      if (zone.indices.size() == 1) {
        id = fmt::format("{}:{}", kRaplPowercapChannelPrefix, zone.zone_name);
        const auto socket = package_socket(zone.zone_name);
        if (zone.zone_name == "psys") {
          device = "platform";
        } else {
          device = socket ? fmt::format("cpu{}", *socket) : zone.zone_name;
          if (zone.zone_name.substr(0, 8) == "package-") parent_id = psys_id;
        }
      } else {
        const Zone* parent = top_level_name(zone.indices[0]);
        const std::string parent_name =
            parent ? parent->zone_name : fmt::format("intel-rapl:{}", zone.indices[0]);
        id = fmt::format("{}:{}/{}", kRaplPowercapChannelPrefix, parent_name, zone.zone_name);
        if (parent) parent_id = fmt::format("{}:{}", kRaplPowercapChannelPrefix, parent->zone_name);
        const auto socket = package_socket(parent_name);
        device = socket ? fmt::format("cpu{}", *socket) : parent_name;
      }
      // Two zones with the same name (seen on some multi-die parts) keep distinct ids.
      if (!used_ids.insert(id).second) {
        id += fmt::format("@{}", zone.dir_name);
        used_ids.insert(id);
      }
      std::string detail = fmt::format("powercap {} (µJ counter, wraps at max_energy_range_uj {})",
                                       zone.energy.path().string(), zone.max_energy_range_uj);
      channels_.push_back(rapl::make_channel(std::move(id), kRaplPowercapSourceName,
                                             std::move(device), domain_of(zone.zone_name),
                                             std::move(detail), std::move(parent_id)));
    }
  }

  Availability availability_;
  std::vector<Zone> zones_;
  std::vector<Channel> channels_;
};

}  // namespace

std::unique_ptr<Source> make_rapl_powercap_source(const SourceOptions& options) {
  return std::make_unique<RaplPowercapSource>(options);
}

}  // namespace jouleprof
