// AMD GPUs through ROCm SMI, loaded with dlopen at run time (no link-time dependency): the library
// is librocm_smi64.so.1, or the path in JOULEPROF_ROCM_SMI_LIBRARY.
//
// Per GPU: the energy accumulator (rsmi_dev_energy_count_get: counts × the resolution the call
// returns, 15.3 µJ in every ROCm SMI release, with the firmware's own nanosecond timestamp) where
// the GPU has it, otherwise the average power (rsmi_dev_power_ave_get, µW), which the sampler
// integrates with the trapezoid rule; the edge (or, without one, junction) temperature. What the
// documentation leaves open is a setting shown in every channel's detail (docs/sources.md):
//   rocm-smi.counter_bits       the accumulator's width. ROCm SMI hands out a 64-bit value, but
//                               the firmware of several GPU generations keeps a 32-bit counter
//                               (2^32 × 15.3 µJ ≈ 65.7 kJ: under four minutes at 300 W). Default
//                               32: a decrease from below 2^32 is undone as a wrap when the energy
//                               it implies is possible, and is a failed read otherwise.
//   rocm-smi.update_period_ms   how often the firmware updates the accumulator; not documented,
//                               so unknown (0) unless given: the sampler measures it in a run.
//   rocm-smi.resolution_uj      the energy of one count. ROCm SMI returns 15.3 µJ, hard-coded,
//                               while the amdgpu driver documents its accumulator in units of
//                               15.259 µJ (2^-16 J): by default the library's value is used (and
//                               named in the detail); a measured or documented one replaces it.
#include "sources/rocm_smi.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/silenced_output.hpp"
#include "sources/backends.hpp"
#include "sources/device_clock.hpp"
#include "sources/energy_accumulator.hpp"
#include "sources/gpu_process_activity.hpp"
#include "sources/rocm_smi_api.hpp"
#include "sources/setting_values.hpp"
#include "sources/unit_factors.hpp"
#include "sources/vendor_gpu_source.hpp"

namespace jouleprof {
namespace {

constexpr const char* kRocmSmiCounterBitsSetting = "rocm-smi.counter_bits";
constexpr const char* kRocmSmiUpdatePeriodSetting = "rocm-smi.update_period_ms";
constexpr const char* kRocmSmiResolutionSetting = "rocm-smi.resolution_uj";
// A read costs a sysfs read of the GPU's metrics table; 20 ms keeps the cost small while placing
// each update of a counter that changes every few ms within one poll.
constexpr TimeNs kRocmSmiDefaultPollPeriodNs = 20 * kNsPerMs;
constexpr VendorGpuBackend kRocmSmiBackend{
    "rocm-smi", "device", kRocmSmiDefaultPollPeriodNs,
    VendorLibrary{"JOULEPROF_ROCM_SMI_LIBRARY", "librocm_smi64.so.1",
                  "install ROCm SMI (Debian: librocm-smi64-1; ROCm: rocm-smi-lib)",
                  "ROCm SMI is too old or this is not ROCm SMI",
                  "install ROCm SMI 5 or newer (Debian: librocm-smi64-1)"}};
constexpr double kDefaultCounterBits = 32;
// No GPU draws more: a "wrap" implying more power than this over the read interval is a reset.
constexpr double kMaxPlausibleWatts = 5000.0;
// The energy of one count that every ROCm SMI release returns (the wrap judgement's unit).
constexpr double kRocmSmiResolutionJ = 15.3e-6;
constexpr double kCelsiusPerMillidegree = 1e-3;
constexpr std::size_t kNameBufferSize = 256;
// The compute-process list is read from the KFD's sysfs for every process: once per 100 ms is
// enough for shares of a run, and keeps a 20 ms energy poll cheap.
constexpr TimeNs kRocmSmiProcessPollNs = 100 * kNsPerMs;

enum class RocmSmiQuantity { kEnergy, kPower, kTemperature, kActivity };

struct RocmSmiSymbols {
  rocm_smi::InitFn init = nullptr;
  rocm_smi::ShutDownFn shut_down = nullptr;
  rocm_smi::StatusStringFn status_string = nullptr;
  rocm_smi::NumMonitorDevicesFn num_devices = nullptr;
  rocm_smi::DevNameGetFn name = nullptr;
  rocm_smi::DevPciIdGetFn pci_id = nullptr;
  rocm_smi::DevPowerAveGetFn power_ave = nullptr;
  // Optional: older libraries lack them, and the backend does without.
  rocm_smi::DevEnergyCountGetFn energy_count = nullptr;
  rocm_smi::DevTempMetricGetFn temperature = nullptr;
  rocm_smi::ComputeProcessInfoGetFn process_info = nullptr;
  rocm_smi::ComputeProcessGpusGetFn process_gpus = nullptr;
};

struct RocmSmiSlot {
  std::uint32_t gpu = 0;  // ROCm SMI's device index
  RocmSmiQuantity quantity = RocmSmiQuantity::kEnergy;
  std::uint32_t temperature_sensor = rocm_smi::kTemperatureTypeEdge;
  EnergyAccumulator counter;
  double total_j = 0.0;  // since the first read
  std::uint64_t previous_counts = 0;
  DeviceClock clock;         // the driver's ns timestamps of the energy counter
  std::size_t activity = 0;  // kActivity: the index into the source's activities_
  GpuActivityCount activity_count = GpuActivityCount::kBusy;
  std::string read_error;
};

// "0000:03:00.0" from ROCm SMI's BDF id (domain in bits 32–63, bus 8–15, device 3–7, function 0–2).
std::string pci_address(std::uint64_t bdfid) {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", bdfid >> 32, (bdfid >> 8) & 0xff,
                     (bdfid >> 3) & 0x1f, bdfid & 0x7);
}

class RocmSmiSource final : public VendorGpuSource {
 public:
  explicit RocmSmiSource(const SourceOptions& options) : VendorGpuSource(kRocmSmiBackend, options) {
    if (read_settings(options)) discover();
  }
  ~RocmSmiSource() override {
    if (initialised_) symbols_.shut_down();  // before the library closes
  }

  std::string read_error(std::size_t channel) const override {
    return channel < slots_.size() ? slots_[channel].read_error : std::string();
  }

  void read(std::span<Reading> out) override {
    update_activity();
    for (std::size_t i = 0; i < slots_.size() && i < out.size(); ++i) read_slot(slots_[i], out[i]);
  }

  // Asked of an available source only: rocm_compute_processes checks, and the activity polls
  // exist only after a discovery that found GPUs.
  Result<std::vector<RocmComputeProcess>> compute_processes() const {
    if (symbols_.process_info == nullptr || symbols_.process_gpus == nullptr) {
      return Error(ErrorCode::kUnsupported,
                   fmt::format("{} has no rsmi_compute_process_info_get or "
                               "rsmi_compute_process_gpus_get: ROCm SMI is too old",
                               library().path()));
    }
    std::uint32_t count = 0;
    rocm_smi::Status status = symbols_.process_info(nullptr, &count);
    std::vector<rocm_smi::ProcessInfo> found(count);
    if (status == rocm_smi::kSuccess && count > 0) {
      status = symbols_.process_info(found.data(), &count);
      found.resize(std::min<std::size_t>(count, found.size()));  // processes that ended meanwhile
    }
    if (status != rocm_smi::kSuccess && status != rocm_smi::kInsufficientSize) {
      return Error(ErrorCode::kIo, describe("rsmi_compute_process_info_get", status));
    }
    std::vector<RocmComputeProcess> processes;
    for (const rocm_smi::ProcessInfo& info : found) {
      RocmComputeProcess process;
      process.pid = info.process_id;
      process.cu_occupancy = std::clamp(info.cu_occupancy / 100.0, 0.0, 1.0);
      process.vram_bytes = info.vram_usage;
      process.sdma_busy_us = info.sdma_usage;
      std::uint32_t gpus[64] = {};
      std::uint32_t gpu_count = 64;
      status = symbols_.process_gpus(info.process_id, gpus, &gpu_count);
      if (status == rocm_smi::kNotFound) continue;  // it ended between the two calls
      if (status != rocm_smi::kSuccess && status != rocm_smi::kInsufficientSize) {
        return Error(ErrorCode::kIo,
                     describe(fmt::format("rsmi_compute_process_gpus_get(pid {})", info.process_id),
                              status));
      }
      for (std::uint32_t g = 0; g < std::min<std::uint32_t>(gpu_count, 64); ++g) {
        process.devices.push_back(device(gpus[g]));
      }
      processes.push_back(std::move(process));
    }
    return processes;
  }

 private:
  // "RSMI_STATUS_X (code 4): meaning (library: '<rsmi_status_string>')".
  std::string explain(std::int64_t code) const override {
    const auto status = static_cast<rocm_smi::Status>(code);
    const VendorErrorDescription description = rocm_smi::describe_error(status);
    // The library sets a text even for codes it does not know (and then returns an error).
    const char* library_text = nullptr;
    if (symbols_.status_string != nullptr) symbols_.status_string(status, &library_text);
    return fmt::format("{} (code {}): {}{}", description.name, status, description.meaning,
                       library_text != nullptr && *library_text != '\0'
                           ? fmt::format(" (library: '{}')", library_text)
                           : std::string());
  }

  VendorErrorDescription describe_error(std::int64_t code) const override {
    return rocm_smi::describe_error(static_cast<rocm_smi::Status>(code));
  }

  void read_energy(RocmSmiSlot& slot, Reading& reading) {
    std::uint64_t counts = 0;
    float resolution_uj = 0.0F;
    std::uint64_t timestamp_ns = 0;
    const rocm_smi::Status status =
        symbols_.energy_count(slot.gpu, &counts, &resolution_uj, &timestamp_ns);
    const TimeNs now = monotonic_now_ns();
    if (status != rocm_smi::kSuccess) {
      reading.t_ns = now;
      slot.read_error = describe("rsmi_dev_energy_count_get", slot.gpu, status);
      return;
    }
    if (resolution_override_uj_ <= 0 &&
        (!(resolution_uj > 0.0F) || !std::isfinite(resolution_uj))) {
      reading.t_ns = now;
      slot.read_error = fmt::format(
          "rsmi_dev_energy_count_get(device {}) returned the resolution {} µJ: not a positive "
          "number",
          slot.gpu, resolution_uj);
      return;
    }
    const TimeNs previous_t = slot.clock.previous_ns();
    reading.t_ns = slot.clock.place(timestamp_ns, now);
    const double joules_per_count =
        (resolution_override_uj_ > 0 ? resolution_override_uj_
                                     : static_cast<double>(resolution_uj)) *
        kJoulesPerMicrojoule;
    if (slot.counter.has_baseline() && counts < slot.previous_counts && counter_modulus_ != 0) {
      const double wrapped_j =
          static_cast<double>(counter_modulus_ - slot.previous_counts + counts) * joules_per_count;
      const double seconds = std::max(ns_to_s(reading.t_ns - previous_t), 1e-3);
      if (wrapped_j > kMaxPlausibleWatts * seconds) {
        slot.read_error = fmt::format(
            "rsmi_dev_energy_count_get(device {}) went back from {} to {} counts: not a wrap of "
            "the {}-bit counter ({:.0f} J in {:.3f} s is beyond any GPU), so a reset (driver "
            "reloaded?)",
            slot.gpu, slot.previous_counts, counts, counter_bits_, wrapped_j, seconds);
        slot.counter.rebase(counts);
        slot.previous_counts = counts;
        return;
      }
    }
    const std::int64_t before = slot.counter.total();
    slot.counter.add(counts, reading.t_ns);
    // A decrease the accumulator did not take for a wrap lowers its total: a reset.
    const bool consistent = slot.counter.total() >= before;
    const std::uint64_t previous = slot.previous_counts;
    slot.previous_counts = counts;
    if (!consistent) {
      slot.read_error = fmt::format(
          "rsmi_dev_energy_count_get(device {}) went back from {} to {} counts, beyond the "
          "{}-bit counter's range: a reset (driver reloaded?)",
          slot.gpu, previous, counts, counter_bits_);
      return;
    }
    // Resolution is applied per step, so a resolution that changed mid-run scales only new counts.
    slot.total_j += static_cast<double>(slot.counter.total() - before) * joules_per_count;
    reading.value = slot.total_j;
    slot.read_error.clear();
    reading.ok = true;
  }

  void read_slot(RocmSmiSlot& slot, Reading& reading) {
    reading.ok = false;
    switch (slot.quantity) {
      case RocmSmiQuantity::kEnergy:
        read_energy(slot, reading);
        return;
      case RocmSmiQuantity::kPower: {
        std::uint64_t power_uw = 0;
        const rocm_smi::Status status = symbols_.power_ave(slot.gpu, 0, &power_uw);
        reading.t_ns = monotonic_now_ns();
        if (status != rocm_smi::kSuccess) {
          slot.read_error = describe("rsmi_dev_power_ave_get", slot.gpu, status);
          return;
        }
        reading.value = static_cast<double>(power_uw) * kWattsPerMicrowatt;
        break;
      }
      case RocmSmiQuantity::kActivity:
        if (!read_activity(slot.activity, slot.activity_count, reading, slot.read_error)) return;
        break;
      case RocmSmiQuantity::kTemperature: {
        std::int64_t millidegrees = 0;
        const rocm_smi::Status status = symbols_.temperature(
            slot.gpu, slot.temperature_sensor, rocm_smi::kTemperatureCurrent, &millidegrees);
        reading.t_ns = monotonic_now_ns();
        if (status != rocm_smi::kSuccess) {
          slot.read_error = describe("rsmi_dev_temp_metric_get", slot.gpu, status);
          return;
        }
        reading.value = static_cast<double>(millidegrees) * kCelsiusPerMillidegree;
        break;
      }
    }
    slot.read_error.clear();
    reading.ok = true;
  }

  bool read_settings(const SourceOptions& options) {
    Result<double> bits =
        setting_number(options.settings, kRocmSmiCounterBitsSetting, kDefaultCounterBits, 32, 64);
    Result<double> period_ms =
        setting_number(options.settings, kRocmSmiUpdatePeriodSetting, 0.0, 0.0, 60'000.0);
    Result<double> resolution_uj =
        setting_number(options.settings, kRocmSmiResolutionSetting, 0.0, 0.0, 1e6);
    for (const Result<double>* setting : {&bits, &period_ms, &resolution_uj}) {
      if (!*setting) {
        fail(setting->error().message(),
             "fix the setting (docs/sources.md, \"rocm-smi\"), or leave it out for the default");
        return false;
      }
    }
    if (*bits != 32 && *bits != 64) {
      fail(fmt::format("settings: rocm-smi.counter_bits is {}: must be 32 or 64", *bits),
           "give 32 (the default) or 64");
      return false;
    }
    counter_bits_ = static_cast<int>(*bits);
    counter_modulus_ = counter_bits_ == 64 ? 0 : std::uint64_t{1} << 32;
    update_period_ns_ = s_to_ns(*period_ms * 1e-3);
    resolution_override_uj_ = *resolution_uj;
    return true;
  }

  bool load_library() {
    return load([&](FunctionBinder& bind) {
      bind.required(symbols_.init, "rsmi_init");
      bind.required(symbols_.shut_down, "rsmi_shut_down");
      bind.required(symbols_.status_string, "rsmi_status_string");
      bind.required(symbols_.num_devices, "rsmi_num_monitor_devices");
      bind.required(symbols_.name, "rsmi_dev_name_get");
      bind.required(symbols_.pci_id, "rsmi_dev_pci_id_get");
      bind.required(symbols_.power_ave, "rsmi_dev_power_ave_get");
      bind.optional(symbols_.energy_count, "rsmi_dev_energy_count_get");
      bind.optional(symbols_.temperature, "rsmi_dev_temp_metric_get");
      bind.optional(symbols_.process_info, "rsmi_compute_process_info_get");
      bind.optional(symbols_.process_gpus, "rsmi_compute_process_gpus_get");
    });
  }

  void add(Channel channel, RocmSmiSlot slot) {
    channels_.push_back(std::move(channel));
    slots_.push_back(std::move(slot));
  }

  // Advances every GPU's busy-time counts from one compute-process list: each process's CU
  // occupancy at the call, held over the time since the previous call.
  void update_activity() {
    const std::optional<ActivityPoll> poll = due_activity_poll(kRocmSmiProcessPollNs);
    if (!poll) return;
    const Result<std::vector<RocmComputeProcess>> processes = compute_processes();
    std::vector<ProcessUtilisation> on_gpu;
    for (GpuActivity& activity : activities_) {
      if (!processes) {
        activity.error = processes.error().message();
        continue;
      }
      const std::string gpu_device = device(activity.gpu);
      on_gpu.clear();
      for (const RocmComputeProcess& process : *processes) {
        if (std::find(process.devices.begin(), process.devices.end(), gpu_device) !=
            process.devices.end()) {
          on_gpu.push_back({static_cast<pid_t>(process.pid), process.cu_occupancy});
        }
      }
      activity.counts.add_utilisation(poll->now_ns, poll->elapsed_s, on_gpu, poll->observed);
    }
  }

  // The GPU's per-process activity channels when processes are observed, or a note why not.
  void discover_activity(std::uint32_t gpu, const std::string& who) {
    if (!observes_processes()) return;
    if (symbols_.process_info == nullptr || symbols_.process_gpus == nullptr) {
      note(fmt::format(
          "{}: this ROCm SMI has no rsmi_compute_process_info_get or "
          "rsmi_compute_process_gpus_get, so its energy is not attributable per process",
          who));
      return;
    }
    const std::string how = fmt::format(
        "rsmi_compute_process_info_get on {}: each compute process's CU occupancy at a poll "
        "(every {} ms) × the time since the previous poll — a share of the compute units at the "
        "call, held over the interval, and a process on several GPUs counts its occupancy on "
        "each: an approximation",
        who, kRocmSmiProcessPollNs / kNsPerMs);
    for (ActivityChannel& activity : start_activity(gpu, "gpu-cu-occupancy", how)) {
      RocmSmiSlot slot;
      slot.gpu = gpu;
      slot.quantity = RocmSmiQuantity::kActivity;
      slot.activity = activity.activity;
      slot.activity_count = activity.count;
      add(std::move(activity.channel), std::move(slot));
    }
  }

  std::string update_period_text() const {
    return update_period_ns_ > 0
               ? fmt::format("updates every {} ms (rocm-smi.update_period_ms)",
                             ns_to_s(update_period_ns_) * 1e3)
               : "update period not documented: measured in a run (set rocm-smi.update_period_ms "
                 "to declare it)";
  }

  // Channels of one GPU: the energy counter, or the average power where there is no counter (the
  // top-level channel that totals use, the power nesting under the counter when both exist);
  // the temperature.
  void discover_gpu(std::uint32_t gpu) {
    const std::size_t first_channel = channels_.size();
    char name[kNameBufferSize] = {};
    if (symbols_.name(gpu, name, sizeof name) != rocm_smi::kSuccess) name[0] = '\0';
    std::uint64_t bdfid = 0;
    const bool has_pci = symbols_.pci_id(gpu, &bdfid) == rocm_smi::kSuccess;
    const std::string who =
        fmt::format("AMD device {} ({}{}{})", gpu, name[0] != '\0' ? name : "unnamed",
                    has_pci ? ", PCI " : "", has_pci ? pci_address(bdfid) : "");

    std::string top_id;
    if (symbols_.energy_count != nullptr) {
      std::uint64_t counts = 0;
      float resolution_uj = 0.0F;
      std::uint64_t timestamp_ns = 0;
      const rocm_smi::Status status =
          symbols_.energy_count(gpu, &counts, &resolution_uj, &timestamp_ns);
      if (status == rocm_smi::kSuccess) {
        top_id = fmt::format("rocm-smi:{}:energy", gpu);
        RocmSmiSlot slot;
        slot.gpu = gpu;
        slot.quantity = RocmSmiQuantity::kEnergy;
        // Wraps are judged again here by the 5 kW rule above, per call's resolution.
        slot.counter = EnergyAccumulator(counter_modulus_, kRocmSmiResolutionJ,
                                         PowerCeiling{kMaxPlausibleWatts, "GPU"});
        add(make_channel(
                gpu, "energy", ChannelKind::kEnergyCounter,
                fmt::format("rsmi_dev_energy_count_get on {}: counts × {} µJ ({}), stamped "
                            "with the driver's timestamp of the GPU metrics; {}; {}",
                            who,
                            resolution_override_uj_ > 0 ? fmt::format("{}", resolution_override_uj_)
                                                        : fmt::format("{}", resolution_uj),
                            resolution_override_uj_ > 0
                                ? fmt::format("rocm-smi.resolution_uj; the library returns {} µJ",
                                              resolution_uj)
                                : std::string("the library's resolution; rocm-smi.resolution_uj "
                                              "replaces it"),
                            counter_modulus_ != 0 ? "a 32-bit counter that wraps after 2^32 counts "
                                                    "(rocm-smi.counter_bits = 32)"
                                                  : "a 64-bit counter (rocm-smi.counter_bits = 64)",
                            update_period_text()),
                "", update_period_ns_),
            std::move(slot));
      } else if (status != rocm_smi::kNotSupported) {
        note_failure("rsmi_dev_energy_count_get", gpu, status);
      }
    }
    std::uint64_t power_uw = 0;
    const rocm_smi::Status power = symbols_.power_ave(gpu, 0, &power_uw);
    if (power == rocm_smi::kSuccess) {
      const bool fallback = top_id.empty();
      RocmSmiSlot slot;
      slot.gpu = gpu;
      slot.quantity = RocmSmiQuantity::kPower;
      add(make_channel(
              gpu, "power", ChannelKind::kPower,
              fmt::format("rsmi_dev_power_ave_get on {}: µW, the driver's short average{}", who,
                          fallback ? "; this GPU has no energy counter, so its energy is "
                                     "this power integrated with the trapezoid rule"
                                   : ""),
              top_id, 0),
          std::move(slot));
      if (fallback) top_id = fmt::format("rocm-smi:{}:power", gpu);
    } else if (power != rocm_smi::kNotSupported) {
      note_failure("rsmi_dev_power_ave_get", gpu, power);
    }
    if (top_id.empty()) {
      note(fmt::format("{} reports neither energy nor power", who));
    } else {
      discover_activity(gpu, who);
    }

    if (symbols_.temperature != nullptr) {
      // MI300 has no edge sensor; its junction temperature stands in.
      for (const std::uint32_t sensor :
           {rocm_smi::kTemperatureTypeEdge, rocm_smi::kTemperatureTypeJunction}) {
        std::int64_t millidegrees = 0;
        if (symbols_.temperature(gpu, sensor, rocm_smi::kTemperatureCurrent, &millidegrees) !=
            rocm_smi::kSuccess) {
          continue;
        }
        RocmSmiSlot slot;
        slot.gpu = gpu;
        slot.quantity = RocmSmiQuantity::kTemperature;
        slot.temperature_sensor = sensor;
        add(make_channel(
                gpu, "temperature", ChannelKind::kTemperature,
                fmt::format("rsmi_dev_temp_metric_get({}, current) on {}: m°C",
                            sensor == rocm_smi::kTemperatureTypeEdge ? "edge" : "junction", who),
                "", 0),
            std::move(slot));
        break;
      }
    }
    label_channels(first_channel, name);
  }

  void discover() {
    if (!load_library()) return;
    const rocm_smi::Status init = [&] {
      const SilencedOutput quiet;
      return symbols_.init(0);
    }();
    if (init != rocm_smi::kSuccess) return fail_call("rsmi_init", init);
    initialised_ = true;
    std::uint32_t count = 0;
    const rocm_smi::Status counted = symbols_.num_devices(&count);
    if (counted != rocm_smi::kSuccess) return fail_call("rsmi_num_monitor_devices", counted);
    if (count == 0) {
      return fail("ROCm SMI found no AMD GPU",
                  "check that the amdgpu driver is loaded (`lsmod | grep amdgpu`, `rocm-smi`); in "
                  "a container, pass /dev/kfd and /dev/dri (docker --device=/dev/kfd "
                  "--device=/dev/dri)");
    }
    for (std::uint32_t gpu = 0; gpu < count; ++gpu) discover_gpu(gpu);
    if (!finish_discovery()) slots_.clear();
  }

  RocmSmiSymbols symbols_;
  bool initialised_ = false;
  int counter_bits_ = 32;
  std::uint64_t counter_modulus_ = 0;
  TimeNs update_period_ns_ = 0;
  double resolution_override_uj_ = 0.0;  // 0: the resolution each call returns
  std::vector<RocmSmiSlot> slots_;
};

constexpr std::string_view kGroupsFix =
    "add the user to the render and video groups (`sudo usermod -aG render,video $USER`, then "
    "log in again), or run as root";

}  // namespace

namespace rocm_smi {

VendorErrorDescription describe_error(Status status) {
  switch (status) {
    case kSuccess:
      return {"RSMI_STATUS_SUCCESS", "no error", ""};
    case kInvalidArgs:
      return {"RSMI_STATUS_INVALID_ARGS", "an argument was invalid",
              "this is a jouleprof bug; please report it"};
    case kNotSupported:
      return {"RSMI_STATUS_NOT_SUPPORTED", "this GPU or driver does not support the query", ""};
    case kFileError:
      return {"RSMI_STATUS_FILE_ERROR",
              "a sysfs file the query needs could not be read (the kernel may not offer it)",
              "update the kernel or the amdgpu driver; check `dmesg`"};
    case kPermission:
      return {"RSMI_STATUS_PERMISSION", "permission denied on a file the query needs", kGroupsFix};
    case kOutOfResources:
      return {"RSMI_STATUS_OUT_OF_RESOURCES", "ROCm SMI ran out of memory or another resource",
              "free memory and retry"};
    case kInternalException:
      return {"RSMI_STATUS_INTERNAL_EXCEPTION", "ROCm SMI caught an internal exception",
              "update ROCm SMI; check `rocm-smi` on its own"};
    case kInputOutOfBounds:
      return {"RSMI_STATUS_INPUT_OUT_OF_BOUNDS", "an input was out of the allowed range",
              "this is a jouleprof bug; please report it"};
    case kInitError:
      return {"RSMI_STATUS_INIT_ERROR", "ROCm SMI could not initialise (no amdgpu driver?)",
              "load the amdgpu driver (`sudo modprobe amdgpu`); in a container, pass /dev/kfd "
              "and /dev/dri"};
    case kNotYetImplemented:
      return {"RSMI_STATUS_NOT_YET_IMPLEMENTED",
              "the query is not implemented for this GPU or system", ""};
    case kNotFound:
      return {"RSMI_STATUS_NOT_FOUND", "the item asked for was not found", ""};
    case kInsufficientSize:
      return {"RSMI_STATUS_INSUFFICIENT_SIZE", "a buffer was too small",
              "this is a jouleprof bug; please report it"};
    case kInterrupt:
      return {"RSMI_STATUS_INTERRUPT", "an interrupt occurred during the call", "retry"};
    case kUnexpectedSize:
      return {"RSMI_STATUS_UNEXPECTED_SIZE", "the driver returned data of an unexpected size",
              "update ROCm SMI to match the kernel's amdgpu driver"};
    case kNoData:
      return {"RSMI_STATUS_NO_DATA", "no data was found for the query",
              "retry after the GPU has run for a moment"};
    case kUnexpectedData:
      return {"RSMI_STATUS_UNEXPECTED_DATA", "the driver returned data ROCm SMI did not expect",
              "update ROCm SMI to match the kernel's amdgpu driver"};
    case kBusy:
      return {"RSMI_STATUS_BUSY", "a resource or lock is held by someone else", "retry"};
    case kRefcountOverflow:
      return {"RSMI_STATUS_REFCOUNT_OVERFLOW", "ROCm SMI was initialised too many times",
              "this is a jouleprof bug; please report it"};
    case kUnknownError:
      return {"RSMI_STATUS_UNKNOWN_ERROR", "an unknown error", "check `rocm-smi` and `dmesg`"};
    default:
      return {"RSMI_STATUS_(unrecognised code)",
              "a status this jouleprof does not know (newer ROCm SMI?)", "update jouleprof"};
  }
}

}  // namespace rocm_smi

Result<std::vector<RocmComputeProcess>> rocm_compute_processes(Source& source) {
  const Result<const RocmSmiSource*> rocm = as_vendor_backend<RocmSmiSource>(
      source, kRocmSmiBackend.source_name, "ROCm SMI's compute processes");
  if (!rocm) return rocm.error();
  return (*rocm)->compute_processes();
}

std::unique_ptr<Source> make_rocm_smi_source(const SourceOptions& options) {
  return std::make_unique<RocmSmiSource>(options);
}

std::span<const std::string_view> rocm_smi_settings() {
  static constexpr std::array<std::string_view, 3> kNames{
      kRocmSmiCounterBitsSetting, kRocmSmiUpdatePeriodSetting, kRocmSmiResolutionSetting};
  return kNames;
}

}  // namespace jouleprof
