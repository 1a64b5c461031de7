// hwmon power and energy sensors (<root>/sys/class/hwmon/hwmonN): power*_input (µW, or
// power*_average where a driver reports only the average), energy*_input (cumulative µJ), with
// each sensor's *_label and the chip's `name`. The INA3221 current monitor of NVIDIA Jetson boards
// reports its rails as bus voltage (inN_input, mV) and current (currN_input, mA) only; jouleprof
// multiplies the two.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/parse.hpp"
#include "sources/backends.hpp"
#include "sources/energy_accumulator.hpp"
#include "sources/sysfs_file.hpp"
#include "sources/unit_factors.hpp"

namespace jouleprof {
namespace {

constexpr std::string_view kHwmonSourceName = "hwmon";
// Default poll for hwmon sensors (issue 2: "hwmon and batteries 100 ms").
constexpr TimeNs kHwmonDefaultPollPeriodNs = 100 * kNsPerMs;
// Setting naming the rail that feeds every other rail of its chip (Jetson's module input): other
// rails of that chip nest under it so that totals do not add them twice. Empty disables nesting.
constexpr std::string_view kTotalRailSetting = "hwmon.total-rail";
constexpr std::string_view kDefaultTotalRail = "VDD_IN";
constexpr std::string_view kIna3221 = "ina3221";
constexpr int kIna3221Rails = 3;  // in1..in3 are bus voltages; in4..in6 are shunt voltages

constexpr double kWattsPerMillivoltMilliamp = 1e-6;

enum class SensorKind { kPower, kEnergy, kVoltageTimesCurrent };

struct Sensor {
  SensorKind kind = SensorKind::kPower;
  std::string stem;         // "power1", "energy2", "in1"
  std::string label;        // from *_label, or the stem
  sysfs::OpenFile file;     // power, energy, or the voltage
  sysfs::OpenFile current;  // only for voltage × current
  EnergyAccumulator accumulator;
  std::string read_error;
};

// "power12_input" -> {"power", 12, "input"}; nullopt when the name has another shape.
struct AttributeName {
  std::string type;
  int index = 0;
  std::string item;
};
std::optional<AttributeName> split_attribute(std::string_view name) {
  std::size_t digits_begin = 0;
  while (digits_begin < name.size() && (name[digits_begin] < '0' || name[digits_begin] > '9'))
    ++digits_begin;
  std::size_t digits_end = digits_begin;
  while (digits_end < name.size() && name[digits_end] >= '0' && name[digits_end] <= '9')
    ++digits_end;
  if (digits_begin == 0 || digits_end == digits_begin || digits_end - digits_begin > 4 ||
      digits_end >= name.size() || name[digits_end] != '_') {
    return std::nullopt;
  }
  return AttributeName{
      std::string(name.substr(0, digits_begin)),
      static_cast<int>(*to_int64(name.substr(digits_begin, digits_end - digits_begin))),
      std::string(name.substr(digits_end + 1))};
}

class HwmonSource final : public Source {
 public:
  explicit HwmonSource(const SourceOptions& options) { discover(options); }

  std::string_view name() const override { return kHwmonSourceName; }
  Availability availability() const override { return availability_; }
  const std::vector<Channel>& channels() const override { return channels_; }
  TimeNs default_period_ns() const override { return kHwmonDefaultPollPeriodNs; }
  std::string read_error(std::size_t channel) const override {
    return channel < sensors_.size() ? sensors_[channel].read_error : std::string();
  }

  void read(std::span<Reading> out) override {
    for (std::size_t i = 0; i < sensors_.size() && i < out.size(); ++i) {
      Sensor& sensor = sensors_[i];
      Reading& reading = out[i];
      reading.t_ns = monotonic_now_ns();
      reading.ok = false;
      auto value = read_value(sensor);
      if (!value) {
        sensor.read_error = value.error().message();
        continue;
      }
      sensor.read_error.clear();
      reading.value = *value;
      reading.ok = true;
    }
  }

 private:
  static Result<double> read_value(Sensor& sensor) {
    switch (sensor.kind) {
      case SensorKind::kPower: {
        JP_TRY(const std::uint64_t microwatts, sensor.file.read_unsigned(sensor.stem + "_input"));
        return static_cast<double>(microwatts) * kWattsPerMicrowatt;
      }
      case SensorKind::kEnergy: {
        JP_TRY(const std::uint64_t microjoules, sensor.file.read_unsigned(sensor.stem + "_input"));
        // A decrease (a sensor reset) is passed on: the sampler judges it and records a gap.
        sensor.accumulator.add(microjoules, monotonic_now_ns());
        return static_cast<double>(sensor.accumulator.total()) * kJoulesPerMicrojoule;
      }
      case SensorKind::kVoltageTimesCurrent: {
        // Signed: a rail's current can read slightly below zero around idle.
        JP_TRY(const std::int64_t millivolts, sensor.file.read_signed(sensor.stem + "_input"));
        JP_TRY(const std::int64_t milliamps, sensor.current.read_signed("curr_input"));
        return static_cast<double>(millivolts) * static_cast<double>(milliamps) *
               kWattsPerMillivoltMilliamp;
      }
    }
    return Error(ErrorCode::kInternal, "unknown hwmon sensor kind");
  }

  // Opens a sensor file and reads it once, so that bad sensors are reported at discovery.
  std::optional<sysfs::OpenFile> open_checked(const std::filesystem::path& path, bool allow_sign,
                                              std::vector<std::string>& notes) {
    auto file = sysfs::OpenFile::open(path);
    if (!file) {
      notes.push_back(file.error().message());
      return std::nullopt;
    }
    const std::string field = path.filename().string();
    Status probe;
    if (allow_sign) {
      if (auto value = file->read_signed(field); !value) probe = value.error();
    } else {
      if (auto value = file->read_unsigned(field); !value) probe = value.error();
    }
    if (!probe) {
      notes.push_back(probe.error().message());
      return std::nullopt;
    }
    return std::move(file).value();
  }

  void discover_chip(const std::filesystem::path& chip_dir, std::vector<Sensor>& chip_sensors,
                     std::vector<std::string>& notes) {
    auto entries = sysfs::list_directory(chip_dir);
    if (!entries) {
      notes.push_back(entries.error().message());
      return;
    }
    const std::set<std::string> names(entries->begin(), entries->end());
    const auto label_of = [&](const std::string& stem) {
      if (!names.count(stem + "_label")) return stem;
      auto label = sysfs::read_text(chip_dir / (stem + "_label"));
      return label && !label->empty() ? *label : stem;
    };
    for (const std::string& entry : *entries) {
      const auto attribute = split_attribute(entry);
      if (!attribute) continue;
      const std::string stem = fmt::format("{}{}", attribute->type, attribute->index);
      const bool power_input = attribute->type == "power" && attribute->item == "input";
      // power*_average counts only where the driver gives no instantaneous power*_input.
      const bool power_average = attribute->type == "power" && attribute->item == "average" &&
                                 !names.count(stem + "_input");
      const bool energy = attribute->type == "energy" && attribute->item == "input";
      if (!power_input && !power_average && !energy) continue;
      auto file = open_checked(chip_dir / entry, false, notes);
      if (!file) continue;
      Sensor sensor;
      sensor.kind = energy ? SensorKind::kEnergy : SensorKind::kPower;
      sensor.stem = stem;
      sensor.label = label_of(stem);
      sensor.file = std::move(*file);
      chip_sensors.push_back(std::move(sensor));
    }
  }

  void discover_ina3221_rails(const std::filesystem::path& chip_dir,
                              std::vector<Sensor>& chip_sensors, std::vector<std::string>& notes) {
    for (int rail = 1; rail <= kIna3221Rails; ++rail) {
      const std::string stem = fmt::format("in{}", rail);
      const auto voltage_path = chip_dir / (stem + "_input");
      const auto current_path = chip_dir / fmt::format("curr{}_input", rail);
      if (!std::filesystem::exists(voltage_path) || !std::filesystem::exists(current_path))
        continue;
      auto voltage = open_checked(voltage_path, true, notes);
      auto current = open_checked(current_path, true, notes);
      if (!voltage || !current) continue;
      Sensor sensor;
      sensor.kind = SensorKind::kVoltageTimesCurrent;
      sensor.stem = stem;
      auto label = sysfs::read_text(chip_dir / (stem + "_label"));
      sensor.label = label && !label->empty() ? *label : stem;
      sensor.file = std::move(*voltage);
      sensor.current = std::move(*current);
      chip_sensors.push_back(std::move(sensor));
    }
  }

  void discover(const SourceOptions& options) {
    std::string total_rail(kDefaultTotalRail);
    if (const auto it = options.settings.find(std::string(kTotalRailSetting));
        it != options.settings.end()) {
      total_rail = it->second;
    }
    const auto class_dir = sysfs::under_root(options.sysfs_root, "/sys/class/hwmon");
    auto entries = sysfs::list_directory(class_dir);
    if (!entries) {
      availability_.reason = fmt::format("no hwmon sensors: {}", entries.error().message());
      return;
    }
    struct Chip {
      std::string dir_name;
      std::string name;
      std::filesystem::path attribute_dir;
      std::vector<Sensor> sensors;
      TimeNs update_interval_ns = 0;
    };
    std::set<std::string> skip_chips;
    if (const auto it = options.settings.find(std::string(kHwmonSkipChipsSetting));
        it != options.settings.end()) {
      for (std::string_view rest = it->second; !rest.empty();) {
        const std::size_t comma = std::min(rest.find(','), rest.size());
        if (comma > 0) skip_chips.emplace(rest.substr(0, comma));
        rest.remove_prefix(std::min(comma + 1, rest.size()));
      }
    }
    std::vector<Chip> chips;
    std::vector<std::string> notes;
    std::vector<std::string> chips_without_power;
    std::vector<std::string> chips_skipped;
    std::map<std::string, int> chips_per_name;
    for (const std::string& entry : *entries) {
      Chip chip;
      chip.dir_name = entry;
      chip.attribute_dir = class_dir / entry;
      // Old drivers keep their attributes in the parent device's directory.
      if (!std::filesystem::exists(chip.attribute_dir / "name") &&
          std::filesystem::exists(chip.attribute_dir / "device" / "name")) {
        chip.attribute_dir /= "device";
      }
      auto name = sysfs::read_text(chip.attribute_dir / "name");
      chip.name = name && !name->empty() ? *name : entry;
      if (skip_chips.count(chip.name) > 0) {
        chips_skipped.push_back(chip.name);
        continue;
      }
      discover_chip(chip.attribute_dir, chip.sensors, notes);
      if (chip.sensors.empty() && chip.name == kIna3221) {
        discover_ina3221_rails(chip.attribute_dir, chip.sensors, notes);
      }
      if (chip.sensors.empty()) {
        chips_without_power.push_back(chip.name);
        continue;
      }
      if (auto interval_ms = sysfs::read_unsigned(chip.attribute_dir / "update_interval")) {
        chip.update_interval_ns = static_cast<TimeNs>(*interval_ms) * kNsPerMs;
      }
      ++chips_per_name[chip.name];
      chips.push_back(std::move(chip));
    }

    std::set<std::string> used_ids;
    for (Chip& chip : chips) {
      // Chips that share a name (two INA3221 on one board) are told apart by their directory.
      const std::string chip_key = chips_per_name[chip.name] > 1
                                       ? fmt::format("{}@{}", chip.name, chip.dir_name)
                                       : chip.name;
      std::map<std::string, std::string> id_by_label;  // first channel of each label
      std::vector<std::string> ids;
      for (const Sensor& sensor : chip.sensors) {
        std::string id = fmt::format("hwmon:{}/{}", chip_key, sensor.label);
        if (used_ids.count(id)) id = fmt::format("{}/{}", id, sensor.stem);
        used_ids.insert(id);
        ids.push_back(id);
      }
      // Nesting: a power sensor with the label of an energy sensor measures the same rail and
      // nests under it; every rail of a chip that has the total rail nests under the total.
      std::string total_id;
      for (std::size_t s = 0; s < chip.sensors.size(); ++s) {
        const Sensor& sensor = chip.sensors[s];
        if (sensor.kind == SensorKind::kEnergy && !id_by_label.count(sensor.label)) {
          id_by_label[sensor.label] = ids[s];
        }
      }
      for (std::size_t s = 0; s < chip.sensors.size(); ++s) {
        if (!id_by_label.count(chip.sensors[s].label)) id_by_label[chip.sensors[s].label] = ids[s];
      }
      if (!total_rail.empty() && id_by_label.count(total_rail)) total_id = id_by_label[total_rail];

      for (std::size_t s = 0; s < chip.sensors.size(); ++s) {
        Sensor& sensor = chip.sensors[s];
        Channel channel;
        channel.id = ids[s];
        channel.source = std::string(kHwmonSourceName);
        channel.device = chip.name;
        channel.domain = "rail";
        channel.kind =
            sensor.kind == SensorKind::kEnergy ? ChannelKind::kEnergyCounter : ChannelKind::kPower;
        channel.provenance = Provenance::kMeasured;
        channel.nominal_period_ns = chip.update_interval_ns;
        switch (sensor.kind) {
          case SensorKind::kPower:
            channel.provenance_detail = fmt::format("hwmon {} (µW)", sensor.file.path().string());
            break;
          case SensorKind::kEnergy:
            channel.provenance_detail =
                fmt::format("hwmon {} (cumulative µJ)", sensor.file.path().string());
            break;
          case SensorKind::kVoltageTimesCurrent:
            channel.provenance_detail =
                fmt::format("hwmon {} (mV) × {} (mA)", sensor.file.path().string(),
                            sensor.current.path().string());
            break;
        }
        const std::string& same_rail = id_by_label[sensor.label];
        if (same_rail != channel.id) {
          channel.parent_id = same_rail;
        } else if (!total_id.empty() && channel.id != total_id) {
          channel.parent_id = total_id;
        }
        channels_.push_back(std::move(channel));
        sensors_.push_back(std::move(sensor));
      }
    }

    const std::string skipped =
        chips_skipped.empty()
            ? std::string()
            : fmt::format("{} left out (another source reads it through the vendor's library)",
                          fmt::join(chips_skipped, ", "));
    if (sensors_.empty() && notes.empty() && !chips_skipped.empty()) {
      availability_.reason =
          fmt::format("no other hwmon chip reports power or energy: {}", skipped);
      return;
    }
    if (!skipped.empty()) notes.push_back(skipped);
    if (sensors_.empty()) {
      availability_.reason =
          notes.empty()
              ? fmt::format("no hwmon chip reports power or energy (chips: {})",
                            chips_without_power.empty()
                                ? std::string("none")
                                : fmt::format("{}", fmt::join(chips_without_power, ", ")))
              : fmt::format("no readable hwmon power or energy sensor: {}", fmt::join(notes, "; "));
      availability_.fix = notes.empty() ? "" : "run as a user who may read these files";
      return;
    }
    availability_.available = true;
    if (!notes.empty())
      availability_.reason = fmt::format("sensors skipped: {}", fmt::join(notes, "; "));
  }

  Availability availability_;
  std::vector<Sensor> sensors_;
  std::vector<Channel> channels_;
};

}  // namespace

std::unique_ptr<Source> make_hwmon_source(const SourceOptions& options) {
  return std::make_unique<HwmonSource>(options);
}

std::span<const std::string_view> hwmon_settings() {
  static constexpr std::array<std::string_view, 2> kNames{kTotalRailSetting,
                                                          kHwmonSkipChipsSetting};
  return kNames;
}

}  // namespace jouleprof
