// Batteries through <root>/sys/class/power_supply/<name> (type "Battery").
//
// Power: power_now (µW), or current_now × voltage_now (µA × µV) where the driver gives no
// power_now. Vendors disagree on the sign (some report a discharging battery's current as
// negative, most as positive), so jouleprof takes the magnitude and the direction from `status`:
// the channel is the power drawn FROM the battery — positive while "Discharging" (and in any state
// other than "Charging"), negative while "Charging" (power flows into the battery).
//
// Energy: energy_now (µWh) is the energy STORED in the battery — a level, not a consumption
// counter. The energy drawn is how much that level falls: the "energy-drawn" channel adds up
// every decrease and ignores increases (charging is not consumption). Fuel gauges update it only
// every few seconds to a minute in mWh steps, so it nests under the power channel when there is
// one and serves as a cross-check over long runs.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "sources/backends.hpp"
#include "sources/sysfs_file.hpp"
#include "sources/unit_factors.hpp"

namespace jouleprof {
namespace {

constexpr std::string_view kPowerSupplySourceName = "power-supply";
// Default poll for batteries (issue 2: "hwmon and batteries 100 ms").
constexpr TimeNs kPowerSupplyDefaultPollPeriodNs = 100 * kNsPerMs;
constexpr double kWattsPerMicroampMicrovolt = 1e-12;
constexpr double kJoulesPerMicrowattHour = 3600.0 * 1e-6;

enum class SupplyQuantity { kPowerNow, kCurrentTimesVoltage, kEnergyDrawn };

struct Battery {
  std::string name;  // BAT0
  SupplyQuantity quantity = SupplyQuantity::kPowerNow;
  sysfs::OpenFile value;    // power_now, current_now or energy_now
  sysfs::OpenFile voltage;  // voltage_now, for current × voltage
  sysfs::OpenFile status;
  std::optional<std::int64_t> previous_energy_uwh;
  double drawn_j = 0.0;
  std::string read_error;
};

class PowerSupplySource final : public Source {
 public:
  explicit PowerSupplySource(const SourceOptions& options) { discover(options.sysfs_root); }

  std::string_view name() const override { return kPowerSupplySourceName; }
  Availability availability() const override { return availability_; }
  const std::vector<Channel>& channels() const override { return channels_; }
  TimeNs default_period_ns() const override { return kPowerSupplyDefaultPollPeriodNs; }
  std::string read_error(std::size_t channel) const override {
    return channel < batteries_.size() ? batteries_[channel].read_error : std::string();
  }

  void read(std::span<Reading> out) override {
    for (std::size_t i = 0; i < batteries_.size() && i < out.size(); ++i) {
      Battery& battery = batteries_[i];
      Reading& reading = out[i];
      reading.t_ns = monotonic_now_ns();
      reading.ok = false;
      auto value = read_value(battery);
      if (!value) {
        battery.read_error = value.error().message();
        continue;
      }
      battery.read_error.clear();
      reading.value = *value;
      reading.ok = true;
    }
  }

 private:
  static Result<double> read_value(Battery& battery) {
    switch (battery.quantity) {
      case SupplyQuantity::kPowerNow:
      case SupplyQuantity::kCurrentTimesVoltage: {
        JP_TRY(const std::string_view status_text, battery.status.read_text());
        const bool charging = status_text.substr(0, 8) == "Charging";
        double watts = 0.0;
        if (battery.quantity == SupplyQuantity::kPowerNow) {
          JP_TRY(const std::int64_t microwatts, battery.value.read_signed("power_now"));
          watts = std::fabs(static_cast<double>(microwatts)) * kWattsPerMicrowatt;
        } else {
          JP_TRY(const std::int64_t microamps, battery.value.read_signed("current_now"));
          JP_TRY(const std::int64_t microvolts, battery.voltage.read_signed("voltage_now"));
          watts = std::fabs(static_cast<double>(microamps) * static_cast<double>(microvolts)) *
                  kWattsPerMicroampMicrovolt;
        }
        return charging ? -watts : watts;
      }
      case SupplyQuantity::kEnergyDrawn: {
        JP_TRY(const std::int64_t stored_uwh, battery.value.read_signed("energy_now"));
        if (battery.previous_energy_uwh && stored_uwh < *battery.previous_energy_uwh) {
          battery.drawn_j += static_cast<double>(*battery.previous_energy_uwh - stored_uwh) *
                             kJoulesPerMicrowattHour;
        }
        battery.previous_energy_uwh = stored_uwh;
        return battery.drawn_j;
      }
    }
    return Error(ErrorCode::kInternal, "unknown battery quantity");
  }

  // Opens `file` and checks that it holds an integer now, so that a broken attribute is
  // reported at discovery instead of on every sample.
  static Result<sysfs::OpenFile> open_number(const std::filesystem::path& path) {
    JP_TRY(auto file, sysfs::OpenFile::open(path));
    JP_RETURN_IF_ERROR(file.read_signed(path.filename().string()));
    return file;
  }

  Channel make_channel(const std::string& battery, std::string_view suffix, ChannelKind kind,
                       std::string detail, std::string parent_id) const {
    Channel channel;
    channel.id = fmt::format("power-supply:{}/{}", battery, suffix);
    channel.source = std::string(kPowerSupplySourceName);
    channel.device = fmt::format("battery {}", battery);
    channel.domain = "battery";
    channel.kind = kind;
    channel.provenance = Provenance::kMeasured;
    channel.provenance_detail = std::move(detail);
    channel.parent_id = std::move(parent_id);
    return channel;
  }

  void discover_battery(const std::filesystem::path& dir, const std::string& name,
                        std::vector<std::string>& notes) {
    if (auto present = sysfs::read_text(dir / "present"); present && *present == "0") return;
    auto status = sysfs::OpenFile::open(dir / "status");
    std::string power_id;
    if (status) {
      Battery battery;
      battery.name = name;
      battery.status = std::move(status).value();
      std::string detail;
      if (auto power = open_number(dir / "power_now")) {
        battery.quantity = SupplyQuantity::kPowerNow;
        battery.value = std::move(power).value();
        detail = fmt::format("{} (µW)", battery.value.path().string());
      } else {
        auto current = open_number(dir / "current_now");
        auto voltage = open_number(dir / "voltage_now");
        if (current && voltage) {
          battery.quantity = SupplyQuantity::kCurrentTimesVoltage;
          battery.value = std::move(current).value();
          battery.voltage = std::move(voltage).value();
          detail = fmt::format("{} (µA) × {} (µV)", battery.value.path().string(),
                               battery.voltage.path().string());
        } else {
          notes.push_back(fmt::format(
              "{}: no usable power_now ({}) nor current_now × voltage_now "
              "({})",
              name, power.error().message(), (current ? voltage : current).error().message()));
        }
      }
      if (!detail.empty()) {
        power_id = fmt::format("power-supply:{}/power", name);
        channels_.push_back(make_channel(
            name, "power", ChannelKind::kPower,
            fmt::format("{}; magnitude with the sign from {}: power drawn from the battery, "
                        "negative while charging",
                        detail, battery.status.path().string()),
            ""));
        batteries_.push_back(std::move(battery));
      }
    } else {
      notes.push_back(status.error().message());
    }
    if (auto energy = open_number(dir / "energy_now")) {
      Battery battery;
      battery.name = name;
      battery.quantity = SupplyQuantity::kEnergyDrawn;
      battery.value = std::move(energy).value();
      channels_.push_back(make_channel(
          name, "energy-drawn", ChannelKind::kEnergyCounter,
          fmt::format("decreases of {} (stored µWh; increases while charging are not counted)",
                      battery.value.path().string()),
          power_id));
      batteries_.push_back(std::move(battery));
    }
  }

  void discover(const std::string& root) {
    const auto class_dir = sysfs::under_root(root, "/sys/class/power_supply");
    auto entries = sysfs::list_directory(class_dir);
    if (!entries) {
      availability_.reason = fmt::format("no power supplies: {}", entries.error().message());
      return;
    }
    std::vector<std::string> notes;
    std::vector<std::string> others;
    for (const std::string& entry : *entries) {
      auto type = sysfs::read_text(class_dir / entry / "type");
      if (!type || *type != "Battery") {
        others.push_back(fmt::format("{} ({})", entry, type ? *type : "no type"));
        continue;
      }
      discover_battery(class_dir / entry, entry, notes);
    }
    if (channels_.empty()) {
      availability_.reason =
          notes.empty() ? fmt::format("no battery (supplies found: {})",
                                      others.empty() ? std::string("none")
                                                     : fmt::format("{}", fmt::join(others, ", ")))
                        : fmt::format("no readable battery: {}", fmt::join(notes, "; "));
      return;
    }
    availability_.available = true;
    if (!notes.empty()) availability_.reason = fmt::format("{}", fmt::join(notes, "; "));
  }

  Availability availability_;
  std::vector<Battery> batteries_;
  std::vector<Channel> channels_;
};

}  // namespace

std::unique_ptr<Source> make_power_supply_source(const SourceOptions& options) {
  return std::make_unique<PowerSupplySource>(options);
}

}  // namespace jouleprof
