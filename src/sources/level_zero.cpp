// Intel GPUs through Level Zero Sysman, loaded with dlopen at run time (no link-time dependency):
// the loader is libze_loader.so.1, or the path in JOULEPROF_LEVEL_ZERO_LIBRARY.
//
// Sysman is enabled the way every loader version supports: ZES_ENABLE_SYSMAN=1 in the environment
// (set here unless the user set it) before zeInit, and a core device handle used as a Sysman one.
// Per GPU and per power domain: zesPowerGetEnergyCounter (µJ, with the µs timestamp of its capture,
// good only for differences within the domain: placed on the monotonic axis by an offset taken at
// the domain's first read, see device_clock.hpp), nested as the API declares them: the card
// (zesDeviceGetCardPowerDomain, or the extension's CARD domain) holds the device's package, which
// holds its stacks (domains on a sub-device). The temperature of the device's GPU sensor (or its
// global one). What the specification leaves open is a setting shown
// in every channel's detail (docs/sources.md):
//   level-zero.update_period_ms  how often the driver updates a counter; not specified, so
//                                unknown (0) unless given: the sampler measures it in a run.
//   level-zero.wrap_uj           the specification calls the counter monotonic, so by default a
//                                decrease is a reset (a failed read, never a negative energy);
//                                a driver whose counter wraps at a known value can be given it.
#include "sources/level_zero.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "sources/backends.hpp"
#include "sources/device_clock.hpp"
#include "sources/energy_accumulator.hpp"
#include "sources/gpu_process_activity.hpp"
#include "sources/level_zero_api.hpp"
#include "sources/setting_values.hpp"
#include "sources/unit_factors.hpp"
#include "sources/vendor_gpu_source.hpp"

namespace jouleprof {
namespace {

namespace lz = level_zero;

constexpr const char* kLevelZeroUpdatePeriodSetting = "level-zero.update_period_ms";
constexpr const char* kLevelZeroWrapSetting = "level-zero.wrap_uj";
constexpr TimeNs kLevelZeroDefaultPollPeriodNs = 20 * kNsPerMs;
constexpr VendorGpuBackend kLevelZeroBackend{
    "level-zero", "gpu", kLevelZeroDefaultPollPeriodNs,
    VendorLibrary{"JOULEPROF_LEVEL_ZERO_LIBRARY", "libze_loader.so.1",
                  "install the Level Zero loader (Debian: libze1) and Intel's GPU driver for it "
                  "(libze-intel-gpu1 or intel-level-zero-gpu)",
                  "the Level Zero loader is too old or this is not it",
                  "install a Level Zero loader with Sysman (Debian: libze1)"}};
constexpr std::uint32_t kMaxHandles = 64;  // per device: domains, sensors
// Sysman lists a device's processes from the driver's per-client files: every 100 ms is enough
// for shares of a run and keeps a 20 ms energy poll cheap.
constexpr TimeNs kLevelZeroProcessPollNs = 100 * kNsPerMs;

struct LevelZeroSymbols {
  lz::InitFn init = nullptr;
  lz::DriverGetFn driver_get = nullptr;
  lz::DeviceGetFn device_get = nullptr;
  lz::DeviceGetPropertiesFn device_properties = nullptr;
  lz::DeviceEnumPowerDomainsFn enum_power_domains = nullptr;
  lz::PowerGetPropertiesFn power_properties = nullptr;
  lz::PowerGetEnergyCounterFn energy_counter = nullptr;
  // Optional: the backend does without them.
  lz::DevicePciGetPropertiesFn pci_properties = nullptr;
  lz::DeviceGetCardPowerDomainFn card_power_domain = nullptr;
  lz::DeviceEnumTemperatureSensorsFn enum_temperature_sensors = nullptr;
  lz::TemperatureGetPropertiesFn temperature_properties = nullptr;
  lz::TemperatureGetStateFn temperature_state = nullptr;
  lz::DeviceProcessesGetStateFn processes_state = nullptr;
};

struct LevelZeroSlot {
  std::size_t gpu = 0;  // the backend's own GPU index
  lz::Power power = nullptr;
  lz::Temperature temperature = nullptr;
  EnergyAccumulator counter;
  DeviceClock clock{kNsPerUs};  // the domain's µs capture timestamps
  std::uint64_t previous_uj = 0;
  // What resets took off the accumulator's total: added back, so the count never goes down.
  std::int64_t reset_uj = 0;
  // A per-process busy-time count: the index into the source's activities_.
  std::optional<std::size_t> activity;
  GpuActivityCount activity_count = GpuActivityCount::kBusy;
  std::string read_error;
};

// One power domain of a device as the driver describes it.
struct Domain {
  lz::Power handle = nullptr;
  bool card = false;
  bool on_subdevice = false;
  std::uint32_t subdevice = 0;
};

class LevelZeroSource final : public VendorGpuSource {
 public:
  explicit LevelZeroSource(const SourceOptions& options)
      : VendorGpuSource(kLevelZeroBackend, options) {
    if (read_settings(options)) discover();
  }

  std::string read_error(std::size_t channel) const override {
    return channel < slots_.size() ? slots_[channel].read_error : std::string();
  }

  void read(std::span<Reading> out) override {
    update_activity();
    for (std::size_t i = 0; i < slots_.size() && i < out.size(); ++i) {
      LevelZeroSlot& slot = slots_[i];
      Reading& reading = out[i];
      reading.ok = false;
      if (slot.activity) {
        if (!read_activity(*slot.activity, slot.activity_count, reading, slot.read_error)) continue;
      } else if (slot.power != nullptr) {
        lz::EnergyCounter counter{};
        const lz::Result result = symbols_.energy_counter(slot.power, &counter);
        const TimeNs now = monotonic_now_ns();
        reading.t_ns = now;
        if (result != lz::kSuccess) {
          slot.read_error = describe("zesPowerGetEnergyCounter", slot.gpu, result);
          continue;
        }
        reading.t_ns = slot.clock.place(counter.timestamp, now);
        const std::uint64_t previous = slot.previous_uj;
        slot.previous_uj = counter.energy;
        const std::int64_t before = slot.counter.total();
        slot.counter.add(counter.energy, reading.t_ns);
        // A decrease the accumulator did not take for a wrap lowers its total: a reset.
        if (slot.counter.total() < before) {
          slot.reset_uj += before - slot.counter.total();
          slot.read_error = fmt::format(
              "zesPowerGetEnergyCounter(gpu {}) went back from {} µJ to {} µJ: the counter is "
              "monotonic, so it was reset (driver reloaded?){}",
              slot.gpu, previous, counter.energy,
              wrap_uj_ == 0 ? "; if this driver's counter wraps, give level-zero.wrap_uj" : "");
          continue;
        }
        reading.value =
            static_cast<double>(slot.counter.total() + slot.reset_uj) * kJoulesPerMicrojoule;
      } else {
        double celsius = 0.0;
        const lz::Result result = symbols_.temperature_state(slot.temperature, &celsius);
        reading.t_ns = monotonic_now_ns();
        if (result != lz::kSuccess) {
          slot.read_error = describe("zesTemperatureGetState", slot.gpu, result);
          continue;
        }
        reading.value = celsius;
      }
      slot.read_error.clear();
      reading.ok = true;
    }
  }

  // Asked of an available source only (level_zero_processes checks).
  Result<std::vector<LevelZeroProcess>> processes() const {
    if (symbols_.processes_state == nullptr) {
      return Error(ErrorCode::kUnsupported,
                   fmt::format("{} has no zesDeviceProcessesGetState: the Level Zero loader is "
                               "too old",
                               library().path()));
    }
    std::vector<LevelZeroProcess> processes;
    for (std::size_t gpu = 0; gpu < gpu_devices_.size(); ++gpu) {
      Result<std::vector<lz::ProcessState>> states = device_processes(gpu);
      if (!states) return states.error();
      for (const lz::ProcessState& state : *states) {
        auto same_pid = [&](const LevelZeroProcess& p) { return p.pid == state.processId; };
        auto found = std::find_if(processes.begin(), processes.end(), same_pid);
        if (found == processes.end()) {
          processes.push_back({state.processId, {}, 0, 0, 0});
          found = processes.end() - 1;
        }
        found->devices.push_back(device(gpu));
        found->memory_bytes += state.memSize;
        found->shared_bytes += state.sharedSize;
        found->engine_types |= state.engines;
      }
    }
    return processes;
  }

 private:
  // One GPU's processes. Their number can change between the call that counts them and the one
  // that lists them: the list gets room for a few more, and they are counted again if that was
  // not enough.
  Result<std::vector<lz::ProcessState>> device_processes(std::size_t gpu) const {
    constexpr std::uint32_t kSpare = 16;
    const lz::Device device = gpu_devices_[gpu];
    lz::Result result = lz::kSuccess;
    for (int attempt = 0; attempt < 3; ++attempt) {
      std::uint32_t count = 0;
      result = symbols_.processes_state(device, &count, nullptr);
      if (result != lz::kSuccess) break;
      lz::ProcessState blank{};
      blank.stype = lz::kStructureProcessState;
      std::vector<lz::ProcessState> states(count + kSpare, blank);
      count = static_cast<std::uint32_t>(states.size());
      result = symbols_.processes_state(device, &count, states.data());
      if (result == lz::kSuccess) {
        states.resize(std::min<std::size_t>(count, states.size()));
        return states;
      }
      if (result != lz::kErrorInvalidSize) break;
    }
    return Error(ErrorCode::kIo, describe("zesDeviceProcessesGetState", gpu, result));
  }

  // "ZE_RESULT_X (0x…): meaning".
  std::string explain(std::int64_t code) const override {
    const auto result = static_cast<lz::Result>(code);
    const VendorErrorDescription description = lz::describe_error(result);
    return fmt::format("{} (0x{:x}): {}", description.name, result, description.meaning);
  }

  VendorErrorDescription describe_error(std::int64_t code) const override {
    return lz::describe_error(static_cast<lz::Result>(code));
  }

  bool read_settings(const SourceOptions& options) {
    Result<double> period_ms =
        setting_number(options.settings, kLevelZeroUpdatePeriodSetting, 0.0, 0.0, 60'000.0);
    Result<double> wrap_uj =
        setting_number(options.settings, kLevelZeroWrapSetting, 0.0, 0.0, 1e19);
    for (const Result<double>* setting : {&period_ms, &wrap_uj}) {
      if (!*setting) {
        fail(setting->error().message(),
             "fix the setting (docs/sources.md, \"level-zero\"), or leave it out for the default");
        return false;
      }
    }
    update_period_ns_ = s_to_ns(*period_ms * 1e-3);
    wrap_uj_ = static_cast<std::uint64_t>(*wrap_uj);
    return true;
  }

  bool load_library() {
    return load([&](FunctionBinder& bind) {
      bind.required(symbols_.init, "zeInit");
      bind.required(symbols_.driver_get, "zeDriverGet");
      bind.required(symbols_.device_get, "zeDeviceGet");
      bind.required(symbols_.device_properties, "zeDeviceGetProperties");
      bind.required(symbols_.enum_power_domains, "zesDeviceEnumPowerDomains");
      bind.required(symbols_.power_properties, "zesPowerGetProperties");
      bind.required(symbols_.energy_counter, "zesPowerGetEnergyCounter");
      bind.optional(symbols_.pci_properties, "zesDevicePciGetProperties");
      bind.optional(symbols_.card_power_domain, "zesDeviceGetCardPowerDomain");
      bind.optional(symbols_.enum_temperature_sensors, "zesDeviceEnumTemperatureSensors");
      bind.optional(symbols_.temperature_properties, "zesTemperatureGetProperties");
      bind.optional(symbols_.temperature_state, "zesTemperatureGetState");
      bind.optional(symbols_.processes_state, "zesDeviceProcessesGetState");
    });
  }

  // Advances every GPU's busy-time counts from the processes holding it: Sysman says who holds a
  // device, not who works on it, so the whole time is busy while any process does (shares of 1
  // or 0, unknown when observed processes share it with others).
  void update_activity() {
    const std::optional<ActivityPoll> poll = due_activity_poll(kLevelZeroProcessPollNs);
    if (!poll) return;
    std::vector<pid_t> holders;
    for (GpuActivity& activity : activities_) {
      const Result<std::vector<lz::ProcessState>> states = device_processes(activity.gpu);
      if (!states) {
        activity.error = states.error().message();
        continue;
      }
      holders.clear();
      for (const lz::ProcessState& state : *states) {
        holders.push_back(static_cast<pid_t>(state.processId));
      }
      const std::vector<pid_t> others =
          activity.counts.add_holders(poll->now_ns, poll->elapsed_s, holders, poll->observed);
      if (!others.empty()) {
        activity.error = fmt::format(
            "gpu {} runs observed processes beside others (pids {}) and Sysman gives no "
            "per-process utilisation: their share of it is unknown",
            gpu_number(activity.gpu), fmt::join(others, ", "));
      }
    }
  }

  // The GPU's per-process activity channels when processes are observed, or a note why not.
  void discover_activity(std::size_t gpu, const std::string& who) {
    if (!observes_processes()) return;
    if (symbols_.processes_state == nullptr) {
      note(fmt::format(
          "{}: this Level Zero loader has no zesDeviceProcessesGetState, so its energy is not "
          "attributable per process",
          who));
      return;
    }
    const std::string how = fmt::format(
        "zesDeviceProcessesGetState on {} (every {} ms; Sysman gives no per-process "
        "utilisation): the whole time while processes hold the GPU; shares are 1 when only "
        "observed processes do, 0 when only others do, unknown when both do",
        who, kLevelZeroProcessPollNs / kNsPerMs);
    for (ActivityChannel& activity : start_activity(gpu, "gpu-sole-user", how)) {
      LevelZeroSlot slot;
      slot.gpu = gpu;
      slot.activity = activity.activity;
      slot.activity_count = activity.count;
      add(std::move(activity.channel), std::move(slot));
    }
  }

  void add(Channel channel, LevelZeroSlot slot) {
    channels_.push_back(std::move(channel));
    slots_.push_back(std::move(slot));
  }

  std::string counter_text() const {
    return fmt::format("{}; {}",
                       update_period_ns_ > 0
                           ? fmt::format("updates every {} ms (level-zero.update_period_ms)",
                                         ns_to_s(update_period_ns_) * 1e3)
                           : std::string("update period not specified: measured in a run (set "
                                         "level-zero.update_period_ms to declare it)"),
                       wrap_uj_ > 0 ? fmt::format("wraps at {} µJ (level-zero.wrap_uj)", wrap_uj_)
                                    : std::string("monotonic, a decrease is a reset"));
  }

  // The device's power domains as the driver declares them.
  std::vector<Domain> power_domains(lz::Device device, std::size_t gpu) {
    std::vector<Domain> domains;
    if (symbols_.card_power_domain != nullptr) {
      lz::Power card = nullptr;
      if (symbols_.card_power_domain(device, &card) == lz::kSuccess && card != nullptr) {
        domains.push_back({card, true, false, 0});
      }
    }
    std::uint32_t count = kMaxHandles;
    lz::Power handles[kMaxHandles] = {};
    const lz::Result listed = symbols_.enum_power_domains(device, &count, handles);
    if (listed != lz::kSuccess) {
      note_failure("zesDeviceEnumPowerDomains", gpu, listed);
      return domains;
    }
    for (std::uint32_t d = 0; d < std::min(count, kMaxHandles); ++d) {
      if (handles[d] == nullptr || (!domains.empty() && domains[0].handle == handles[d])) continue;
      lz::PowerExtProperties extension{lz::kStructurePowerExtProperties, nullptr,
                                       lz::kPowerDomainUnknown, nullptr};
      lz::PowerProperties properties{};
      properties.stype = lz::kStructurePowerProperties;
      properties.pNext = &extension;
      const lz::Result described = symbols_.power_properties(handles[d], &properties);
      if (described != lz::kSuccess) {
        note_failure("zesPowerGetProperties", gpu, described);
        continue;
      }
      const bool card = extension.domain == lz::kPowerDomainCard;
      if (card && !domains.empty() && domains[0].card) continue;  // the same card, listed again
      const Domain domain{handles[d], card,
                          properties.onSubdevice != 0 || extension.domain == lz::kPowerDomainStack,
                          properties.subdeviceId};
      domains.push_back(domain);
    }
    // The card, then the device's own domains, then its sub-devices': parents before children.
    std::stable_sort(domains.begin(), domains.end(), [](const Domain& a, const Domain& b) {
      const auto rank = [](const Domain& d) { return d.card ? 0 : d.on_subdevice ? 2 : 1; };
      return rank(a) < rank(b);
    });
    return domains;
  }

  // Channels of one GPU: an energy counter per power domain, nested card ⊃ package ⊃ stacks;
  // the temperature.
  void discover_gpu(lz::Device device, std::size_t gpu) {
    const std::size_t first_channel = channels_.size();
    lz::DeviceProperties properties{};
    properties.stype = lz::kStructureDeviceProperties;
    if (symbols_.device_properties(device, &properties) != lz::kSuccess) properties.name[0] = '\0';
    properties.name[lz::kMaxDeviceName - 1] = '\0';
    std::string pci;
    if (symbols_.pci_properties != nullptr) {
      lz::PciProperties pci_properties{};
      pci_properties.stype = lz::kStructurePciProperties;
      if (symbols_.pci_properties(device, &pci_properties) == lz::kSuccess) {
        const lz::PciAddress& a = pci_properties.address;
        pci = fmt::format(", PCI {:04x}:{:02x}:{:02x}.{:x}", a.domain, a.bus, a.device, a.function);
      }
    }
    const std::string who = fmt::format("Intel gpu {} ({}, device id 0x{:04x}{})", gpu,
                                        properties.name[0] != '\0' ? properties.name : "unnamed",
                                        properties.deviceId, pci);

    std::string card_id;
    std::string package_id;
    std::size_t counters = 0;
    for (const Domain& domain : power_domains(device, gpu)) {
      lz::EnergyCounter probe{};
      const lz::Result probed = symbols_.energy_counter(domain.handle, &probe);
      if (probed != lz::kSuccess) {
        note_failure("zesPowerGetEnergyCounter", gpu, probed);
        continue;
      }
      std::string suffix;
      std::string parent;
      std::string_view kind;
      if (domain.card) {
        suffix = "card";
        kind = "card";
        card_id = fmt::format("level-zero:{}:card", gpu);
      } else if (domain.on_subdevice) {
        suffix = fmt::format("stack-{}", domain.subdevice);
        kind = "stack";
        parent = !package_id.empty() ? package_id : card_id;
      } else if (package_id.empty()) {
        suffix = "package";
        kind = "package";
        parent = card_id;
        package_id = fmt::format("level-zero:{}:package", gpu);
      } else {
        // A second device-level domain: the API does not say what it holds, so it nests under
        // the first rather than being added to it.
        suffix = fmt::format("package-{}", counters);
        kind = "package";
        parent = package_id;
      }
      LevelZeroSlot slot;
      slot.gpu = gpu;
      slot.power = domain.handle;
      slot.counter = EnergyAccumulator(wrap_uj_, kJoulesPerMicrojoule, power_ceiling("gpu"));
      Channel channel = make_channel(
          gpu, suffix, ChannelKind::kEnergyCounter,
          fmt::format("zesPowerGetEnergyCounter ({} domain{}) on {}: µJ; {}", kind,
                      domain.on_subdevice ? fmt::format(" of sub-device {}", domain.subdevice) : "",
                      who, counter_text()),
          parent, update_period_ns_);
      channel.domain = std::string(kind);
      add(std::move(channel), std::move(slot));
      ++counters;
    }
    if (counters == 0) {
      note(fmt::format(
          "{} has no readable energy counter (Level Zero offers no power reading besides it)",
          who));
    } else {
      discover_activity(gpu, who);
    }
    add_temperature(device, gpu, who);
    label_channels(first_channel, properties.name);
  }

  void add_temperature(lz::Device device, std::size_t gpu, const std::string& who) {
    if (symbols_.enum_temperature_sensors == nullptr ||
        symbols_.temperature_properties == nullptr || symbols_.temperature_state == nullptr) {
      return;
    }
    std::uint32_t count = kMaxHandles;
    lz::Temperature sensors[kMaxHandles] = {};
    if (symbols_.enum_temperature_sensors(device, &count, sensors) != lz::kSuccess) return;
    // The device's GPU sensor, else its global one.
    lz::Temperature chosen = nullptr;
    std::uint32_t chosen_type = 0;
    for (std::uint32_t s = 0; s < std::min(count, kMaxHandles); ++s) {
      lz::TempProperties properties{};
      properties.stype = lz::kStructureTempProperties;
      if (symbols_.temperature_properties(sensors[s], &properties) != lz::kSuccess ||
          properties.onSubdevice != 0) {
        continue;
      }
      if (properties.type == lz::kTempSensorsGpu ||
          (properties.type == lz::kTempSensorsGlobal && chosen == nullptr)) {
        chosen = sensors[s];
        chosen_type = properties.type;
      }
    }
    double celsius = 0.0;
    if (chosen == nullptr || symbols_.temperature_state(chosen, &celsius) != lz::kSuccess) return;
    LevelZeroSlot slot;
    slot.gpu = gpu;
    slot.temperature = chosen;
    add(make_channel(gpu, "temperature", ChannelKind::kTemperature,
                     fmt::format("zesTemperatureGetState ({} sensor) on {}: °C",
                                 chosen_type == lz::kTempSensorsGpu ? "GPU" : "global", who),
                     "", 0),
        std::move(slot));
  }

  void discover() {
    if (!load_library()) return;
    // Sysman answers only when enabled before the first zeInit of the process.
    ::setenv("ZES_ENABLE_SYSMAN", "1", 0);
    const lz::Result init = symbols_.init(lz::kInitGpuOnly);
    if (init != lz::kSuccess) return fail_call("zeInit(ZE_INIT_FLAG_GPU_ONLY)", init);
    std::uint32_t driver_count = 0;
    lz::Result result = symbols_.driver_get(&driver_count, nullptr);
    if (result != lz::kSuccess) return fail_call("zeDriverGet", result);
    std::vector<lz::Driver> drivers(driver_count);
    if (driver_count > 0) {
      result = symbols_.driver_get(&driver_count, drivers.data());
      if (result != lz::kSuccess) return fail_call("zeDriverGet", result);
    }
    std::size_t gpus = 0;
    for (lz::Driver driver : drivers) {
      std::uint32_t device_count = 0;
      result = symbols_.device_get(driver, &device_count, nullptr);
      if (result != lz::kSuccess) {
        note(describe("zeDeviceGet", result));
        continue;
      }
      std::vector<lz::Device> devices(device_count);
      if (device_count == 0 ||
          symbols_.device_get(driver, &device_count, devices.data()) != lz::kSuccess) {
        continue;
      }
      for (lz::Device device : devices) {
        lz::DeviceProperties properties{};
        properties.stype = lz::kStructureDeviceProperties;
        if (symbols_.device_properties(device, &properties) != lz::kSuccess ||
            properties.type != lz::kDeviceTypeGpu) {
          continue;
        }
        gpu_devices_.push_back(device);
        discover_gpu(device, gpus++);
      }
    }
    if (gpus == 0) {
      return fail("Level Zero found no GPU",
                  "install Intel's GPU driver for Level Zero (Debian: libze-intel-gpu1 or "
                  "intel-level-zero-gpu) and check `ls /dev/dri`; in a container, pass /dev/dri");
    }
    if (!finish_discovery()) slots_.clear();
  }

  LevelZeroSymbols symbols_;
  std::vector<lz::Device> gpu_devices_;  // by the backend's own GPU index
  TimeNs update_period_ns_ = 0;
  std::uint64_t wrap_uj_ = 0;
  std::vector<LevelZeroSlot> slots_;
};

}  // namespace

namespace level_zero {

VendorErrorDescription describe_error(Result result) {
  switch (result) {
    case kSuccess:
      return {"ZE_RESULT_SUCCESS", "no error", ""};
    case kNotReady:
      return {"ZE_RESULT_NOT_READY", "not ready yet", "retry"};
    case kErrorDeviceLost:
      return {"ZE_RESULT_ERROR_DEVICE_LOST",
              "the device hung, was reset or removed, or its "
              "driver was updated",
              "check `dmesg`; the machine may need a reboot"};
    case kErrorOutOfHostMemory:
      return {"ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY", "not enough host memory",
              "free memory and retry"};
    case kErrorOutOfDeviceMemory:
      return {"ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY", "not enough device memory",
              "free device memory and retry"};
    case kErrorDeviceRequiresReset:
      return {"ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET", "the device needs a reset",
              "reset the GPU or reboot"};
    case kErrorDeviceInLowPowerState:
      return {"ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE", "the device is in a low-power state",
              "retry once the GPU is awake"};
    case kErrorInsufficientPermissions:
      return {"ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS",
              "access denied: reading the GPU's telemetry needs more privilege",
              "run as root, or let the user read the GPU's telemetry and energy files "
              "(/sys/class/intel_pmt/telem*/telem, /sys/class/drm/card*/device/hwmon/hwmon*/"
              "energy*_input) and add it to the render group for /dev/dri/renderD*"};
    case kErrorNotAvailable:
      return {"ZE_RESULT_ERROR_NOT_AVAILABLE",
              "the resource is in use and cannot be shared right now", "retry later"};
    case kErrorDependencyUnavailable:
      return {"ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE", "a library or service it needs is missing",
              "install Intel's GPU driver for Level Zero (libze-intel-gpu1)"};
    case kErrorUninitialized:
      return {"ZE_RESULT_ERROR_UNINITIALIZED",
              "no Level Zero driver initialised (no Intel GPU driver, or Sysman not enabled "
              "before this process first called zeInit)",
              "install Intel's GPU driver (libze-intel-gpu1) and check `ls /dev/dri`; when the "
              "program itself uses Level Zero, start it with ZES_ENABLE_SYSMAN=1"};
    case kErrorUnsupportedVersion:
      return {"ZE_RESULT_ERROR_UNSUPPORTED_VERSION", "the driver does not support this version",
              "update Intel's GPU driver"};
    case kErrorUnsupportedFeature:
      return {"ZE_RESULT_ERROR_UNSUPPORTED_FEATURE",
              "this GPU or driver does not support the "
              "query",
              ""};
    case kErrorInvalidArgument:
      return {"ZE_RESULT_ERROR_INVALID_ARGUMENT", "an argument was invalid",
              "this is a jouleprof bug; please report it"};
    case kErrorInvalidNullHandle:
      return {"ZE_RESULT_ERROR_INVALID_NULL_HANDLE", "a handle was invalid",
              "this is a jouleprof bug; please report it"};
    case kErrorInvalidNullPointer:
      return {"ZE_RESULT_ERROR_INVALID_NULL_POINTER", "a pointer was null",
              "this is a jouleprof bug; please report it"};
    case kErrorInvalidSize:
      return {"ZE_RESULT_ERROR_INVALID_SIZE", "a size was too small or invalid",
              "this is a jouleprof bug; please report it"};
    case kErrorInvalidEnumeration:
      return {"ZE_RESULT_ERROR_INVALID_ENUMERATION", "an enumerator was invalid",
              "this is a jouleprof bug; please report it"};
    case kErrorUnsupportedEnumeration:
      return {"ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION",
              "the device does not support an enumerator of the query", ""};
    case kErrorUnknown:
      return {"ZE_RESULT_ERROR_UNKNOWN", "an unknown or internal error",
              "check `dmesg` and the driver's logs"};
    default:
      return {"ZE_RESULT_(unrecognised code)",
              "a result this jouleprof does not know (newer driver?)", "update jouleprof"};
  }
}

}  // namespace level_zero

Result<std::vector<LevelZeroProcess>> level_zero_processes(Source& source) {
  const Result<const LevelZeroSource*> level_zero = as_vendor_backend<LevelZeroSource>(
      source, kLevelZeroBackend.source_name, "Level Zero's processes");
  if (!level_zero) return level_zero.error();
  return (*level_zero)->processes();
}

std::unique_ptr<Source> make_level_zero_source(const SourceOptions& options) {
  return std::make_unique<LevelZeroSource>(options);
}

std::span<const std::string_view> level_zero_settings() {
  static constexpr std::array<std::string_view, 2> kNames{kLevelZeroUpdatePeriodSetting,
                                                          kLevelZeroWrapSetting};
  return kNames;
}

}  // namespace jouleprof
