// NVIDIA GPUs through NVML, loaded with dlopen at run time (no link-time dependency): the
// library is libnvidia-ml.so.1, or the path in JOULEPROF_NVML_LIBRARY.
//
// Per GPU: the total-energy counter (mJ since driver load; Volta and newer) where the GPU has it,
// otherwise the board power (nvmlDeviceGetPowerUsage), which the sampler integrates with the
// trapezoid rule; the instant and average power fields; the die temperature. The energy counter
// changes only every ~100 ms and one read costs ~4 ms of CPU on an H200 (METHODS.md §1), so the
// default poll is tens of milliseconds, never faster.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <time.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sources/backends.hpp"
#include "sources/gpu_process_activity.hpp"
#include "sources/nvml_api.hpp"
#include "sources/setting_values.hpp"
#include "sources/unit_factors.hpp"
#include "sources/vendor_gpu_source.hpp"
#include "sources/visible_gpus.hpp"

namespace jouleprof {
namespace {

// The variable the CUDA runtime reads the job's GPUs from (sources/visible_gpus.hpp).
constexpr const char* kCudaVisibleDevicesEnv = "CUDA_VISIBLE_DEVICES";

constexpr const char* kNvmlProcessPollSetting = "nvml.process_poll_ms";
// The total-energy counter, the power reading and the power fields change about every 100 ms
// (measured on an H200: 97–103 ms).
constexpr TimeNs kNvmlUpdatePeriodNs = 100 * kNsPerMs;
// Default poll (issue 2: "NVML 20 ms"): 5 reads per counter update place each update within
// 20 ms, at ~4 ms of CPU per energy read on an H200 (about 20 % of one core per GPU).
constexpr TimeNs kNvmlDefaultPollPeriodNs = 20 * kNsPerMs;
constexpr VendorGpuBackend kNvmlBackend{
    "nvml", "gpu", kNvmlDefaultPollPeriodNs,
    VendorLibrary{"JOULEPROF_NVML_LIBRARY", "libnvidia-ml.so.1",
                  "install the NVIDIA driver (it provides libnvidia-ml.so.1)",
                  "the NVIDIA driver is too old or this is not NVML", "update the NVIDIA driver"}};

// The driver's process samples come every ~100-200 ms: asking more often only costs (setting
// nvml.process_poll_ms).
constexpr TimeNs kProcessActivityPeriodNs = 100 * kNsPerMs;

enum class NvmlQuantity {
  kEnergy,
  kPower,
  kPowerInstant,
  kPowerAverage,
  kTemperature,
  kActivity,  // a per-process busy-time count (NvmlSlot::activity_count)
};

// How a GPU's busy time is split among processes (docs/sharing.md).
enum class ProcessActivity {
  kNone,
  kUtilisationSamples,  // nvmlDeviceGetProcessUtilization: each process's SM utilisation
  kSoleUser,            // only the running-process list: shares of 1 or 0, unknown when mixed
};

struct NvmlSymbols {
  nvml::InitFn init = nullptr;
  nvml::ShutdownFn shutdown = nullptr;
  nvml::ErrorStringFn error_string = nullptr;
  nvml::DeviceGetCountFn get_count = nullptr;
  nvml::DeviceGetHandleByIndexFn get_handle = nullptr;
  nvml::DeviceGetNameFn get_name = nullptr;
  nvml::DeviceGetUuidFn get_uuid = nullptr;
  nvml::DeviceGetPowerUsageFn get_power = nullptr;
  // Optional: older drivers lack them, and the backend does without.
  nvml::DeviceGetTotalEnergyConsumptionFn get_energy = nullptr;
  nvml::DeviceGetFieldValuesFn get_field_values = nullptr;
  nvml::DeviceGetTemperatureFn get_temperature = nullptr;
  nvml::DeviceGetProcessUtilizationFn get_process_utilization = nullptr;
  nvml::DeviceGetComputeRunningProcessesFn get_compute_processes = nullptr;
  nvml::DeviceGetMigModeFn get_mig_mode = nullptr;
  nvml::DeviceGetArchitectureFn get_architecture = nullptr;
};

struct Gpu {
  unsigned index = 0;
  nvml::Device handle = nullptr;
  std::vector<unsigned> field_ids;  // fields this GPU answers, read together in one call
  std::vector<nvml::FieldValue> field_values;
  // Per-process activity (with observed processes).
  ProcessActivity activity = ProcessActivity::kNone;
  std::size_t activity_counts = 0;        // its busy-time counts: the index into activities_
  unsigned long long last_sample_us = 0;  // newest process-utilisation sample seen
  std::vector<nvml::ProcessUtilizationSample> samples;
  std::vector<nvml::ProcessInfoV2> processes;
  std::vector<ProcessUtilisation> utilisation;  // of one sample time
  std::vector<pid_t> holders;
};

unsigned long long realtime_now_us() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<unsigned long long>(ts.tv_sec) * 1'000'000ull +
         static_cast<unsigned long long>(ts.tv_nsec) / 1000ull;
}

struct NvmlSlot {
  std::size_t gpu = 0;  // index into gpus_
  NvmlQuantity quantity = NvmlQuantity::kEnergy;
  unsigned field_id = 0;
  std::size_t activity = 0;  // kActivity: the index into the source's activities_
  GpuActivityCount activity_count = GpuActivityCount::kBusy;
  bool has_baseline = false;
  unsigned long long baseline_mj = 0;
  std::string read_error;
};

// Whether a board name is one of the GA100's (A100, A800, A30), whose power reading is an
// instant's although it is an Ampere. "A30" must not be the start of "A3000" (a GA104).
bool names_ga100(std::string_view name) {
  for (const std::string_view board : {"A100", "A800", "A30"}) {
    for (std::size_t at = name.find(board); at != std::string_view::npos;
         at = name.find(board, at + 1)) {
      const std::size_t after = at + board.size();
      if (after == name.size() || !std::isdigit(static_cast<unsigned char>(name[after])))
        return true;
    }
  }
  return false;
}

// nvmlDeviceGetPowerUsage "on Ampere (except GA100) or newer GPUs ... returns power averaged over
// 1 sec interval"; on GA100 and older it is an instant's (NVIDIA's NVML API reference).
constexpr TimeNs kNvmlPowerAveragingNs = kNsPerS;

std::string field_name(unsigned field_id) {
  return field_id == nvml::kFieldPowerInstant ? "NVML_FI_DEV_POWER_INSTANT (186)"
                                              : "NVML_FI_DEV_POWER_AVERAGE (185)";
}

std::optional<double> field_as_double(const nvml::FieldValue& field) {
  switch (field.valueType) {
    case nvml::kValueDouble:
      return field.value.dVal;
    case nvml::kValueUnsignedInt:
      return static_cast<double>(field.value.uiVal);
    case nvml::kValueUnsignedLong:
      return static_cast<double>(field.value.ulVal);
    case nvml::kValueUnsignedLongLong:
      return static_cast<double>(field.value.ullVal);
    case nvml::kValueSignedLongLong:
      return static_cast<double>(field.value.sllVal);
    case nvml::kValueSignedInt:
      return static_cast<double>(field.value.siVal);
    case nvml::kValueUnsignedShort:
      return static_cast<double>(field.value.usVal);
    default:
      return std::nullopt;
  }
}

class NvmlSource final : public VendorGpuSource {
 public:
  explicit NvmlSource(const SourceOptions& options) : VendorGpuSource(kNvmlBackend, options) {
    const Result<double> process_poll_ms =
        setting_number(options.settings, kNvmlProcessPollSetting,
                       ns_to_s(kProcessActivityPeriodNs) * 1e3, 0.0, 60000.0);
    if (!process_poll_ms) {
      fail(process_poll_ms.error().message(), "fix the setting's value");
      return;
    }
    process_poll_ns_ = s_to_ns(*process_poll_ms * 1e-3);
    discover();
  }
  ~NvmlSource() override {
    if (initialised_) symbols_.shutdown();  // before the library closes
  }

  std::string read_error(std::size_t channel) const override {
    return channel < slots_.size() ? slots_[channel].read_error : std::string();
  }

  void read(std::span<Reading> out) override {
    // One field-value call per GPU serves all of its field channels.
    std::vector<nvml::Return> field_call_result(gpus_.size(), nvml::kSuccess);
    std::vector<TimeNs> field_call_time(gpus_.size(), 0);
    for (std::size_t g = 0; g < gpus_.size(); ++g) {
      Gpu& gpu = gpus_[g];
      if (gpu.field_ids.empty()) continue;
      for (std::size_t f = 0; f < gpu.field_ids.size(); ++f) {
        gpu.field_values[f] = nvml::FieldValue{};
        gpu.field_values[f].fieldId = gpu.field_ids[f];
      }
      field_call_result[g] = symbols_.get_field_values(
          gpu.handle, static_cast<int>(gpu.field_values.size()), gpu.field_values.data());
      field_call_time[g] = monotonic_now_ns();
    }
    update_activity();
    for (std::size_t i = 0; i < slots_.size() && i < out.size(); ++i) {
      read_slot(slots_[i], out[i], field_call_result, field_call_time);
    }
  }

 private:
  // "NVML_ERROR_X (code 3): meaning (driver: '<nvmlErrorString>')".
  std::string explain(std::int64_t code) const override {
    const auto nvml_code = static_cast<nvml::Return>(code);
    const VendorErrorDescription description = nvml::describe_error(nvml_code);
    const char* driver_text =
        symbols_.error_string != nullptr ? symbols_.error_string(nvml_code) : nullptr;
    return fmt::format("{} (code {}): {} (driver: '{}')", description.name, nvml_code,
                       description.meaning, driver_text != nullptr ? driver_text : "");
  }

  VendorErrorDescription describe_error(std::int64_t code) const override {
    return nvml::describe_error(static_cast<nvml::Return>(code));
  }

  void read_slot(NvmlSlot& slot, Reading& reading,
                 const std::vector<nvml::Return>& field_call_result,
                 const std::vector<TimeNs>& field_call_time) {
    Gpu& gpu = gpus_[slot.gpu];
    reading.ok = false;
    nvml::Return code = nvml::kSuccess;
    switch (slot.quantity) {
      case NvmlQuantity::kEnergy: {
        unsigned long long energy_mj = 0;
        code = symbols_.get_energy(gpu.handle, &energy_mj);
        reading.t_ns = monotonic_now_ns();
        if (code != nvml::kSuccess) {
          slot.read_error = describe("nvmlDeviceGetTotalEnergyConsumption", gpu.index, code);
          return;
        }
        if (!slot.has_baseline) {
          slot.has_baseline = true;
          slot.baseline_mj = energy_mj;
        }
        // Signed: a counter that went back (driver reloaded) is judged by the sampler.
        reading.value = (static_cast<double>(energy_mj) - static_cast<double>(slot.baseline_mj)) *
                        kJoulesPerMillijoule;
        break;
      }
      case NvmlQuantity::kPower: {
        unsigned int power_mw = 0;
        code = symbols_.get_power(gpu.handle, &power_mw);
        reading.t_ns = monotonic_now_ns();
        if (code != nvml::kSuccess) {
          slot.read_error = describe("nvmlDeviceGetPowerUsage", gpu.index, code);
          return;
        }
        reading.value = static_cast<double>(power_mw) * kWattsPerMilliwatt;
        break;
      }
      case NvmlQuantity::kPowerInstant:
      case NvmlQuantity::kPowerAverage: {
        reading.t_ns = field_call_time[slot.gpu];
        if (field_call_result[slot.gpu] != nvml::kSuccess) {
          slot.read_error =
              describe("nvmlDeviceGetFieldValues", gpu.index, field_call_result[slot.gpu]);
          return;
        }
        const nvml::FieldValue* field = nullptr;
        for (std::size_t f = 0; f < gpu.field_ids.size(); ++f) {
          if (gpu.field_ids[f] == slot.field_id) field = &gpu.field_values[f];
        }
        if (field == nullptr) return;
        if (field->nvmlReturn != nvml::kSuccess) {
          slot.read_error = describe("nvmlDeviceGetFieldValues " + field_name(slot.field_id),
                                     gpu.index, field->nvmlReturn);
          return;
        }
        const auto milliwatts = field_as_double(*field);
        if (!milliwatts) {
          slot.read_error = fmt::format("{} on gpu {}: unknown value type {}",
                                        field_name(slot.field_id), gpu.index, field->valueType);
          return;
        }
        reading.value = *milliwatts * kWattsPerMilliwatt;
        break;
      }
      case NvmlQuantity::kTemperature: {
        unsigned int celsius = 0;
        code = symbols_.get_temperature(gpu.handle, nvml::kTemperatureGpu, &celsius);
        reading.t_ns = monotonic_now_ns();
        if (code != nvml::kSuccess) {
          slot.read_error = describe("nvmlDeviceGetTemperature", gpu.index, code);
          return;
        }
        reading.value = static_cast<double>(celsius);
        break;
      }
      case NvmlQuantity::kActivity:
        if (!read_activity(slot.activity, slot.activity_count, reading, slot.read_error)) return;
        break;
    }
    slot.read_error.clear();
    reading.ok = true;
  }

  void update_activity() {
    const std::optional<ActivityPoll> poll = due_activity_poll(process_poll_ns_);
    if (!poll) return;
    for (Gpu& gpu : gpus_) {
      if (gpu.activity != ProcessActivity::kNone) {
        update_activity(gpu, activities_[gpu.activity_counts], *poll);
      }
    }
  }

  // Advances the GPU's busy-time counts from the per-process data NVML has. Utilisation samples
  // are placed at their own time (each covers the driver's sample period before it), so that the
  // counts line up with the energy of the same period; they arrive late, and a share is only
  // known up to the newest one.
  void update_activity(Gpu& gpu, GpuActivity& activity, const ActivityPoll& poll) {
    const std::vector<pid_t>& observed = poll.observed;
    if (gpu.activity == ProcessActivity::kUtilisationSamples) {
      unsigned int count = 0;
      nvml::Return code =
          symbols_.get_process_utilization(gpu.handle, nullptr, &count, gpu.last_sample_us);
      if (code == nvml::kErrorNotFound || (code == nvml::kSuccess && count == 0)) return;
      if (code != nvml::kSuccess && code != nvml::kErrorInsufficientSize) {
        activity.error = describe("nvmlDeviceGetProcessUtilization", gpu.index, code);
        return;
      }
      gpu.samples.assign(count, nvml::ProcessUtilizationSample{});
      code = symbols_.get_process_utilization(gpu.handle, gpu.samples.data(), &count,
                                              gpu.last_sample_us);
      if (code == nvml::kErrorNotFound) count = 0;
      if (code != nvml::kSuccess && code != nvml::kErrorNotFound) {
        activity.error = describe("nvmlDeviceGetProcessUtilization", gpu.index, code);
        return;
      }
      gpu.samples.resize(std::min<std::size_t>(count, gpu.samples.size()));
      std::sort(gpu.samples.begin(), gpu.samples.end(),
                [](const auto& a, const auto& b) { return a.timeStamp < b.timeStamp; });
      // Samples taken together share a timestamp; each covers the time since the one before.
      const TimeNs realtime_minus_monotonic =
          static_cast<TimeNs>(realtime_now_us()) * kNsPerUs - monotonic_now_ns();
      for (std::size_t i = 0; i < gpu.samples.size();) {
        const unsigned long long t = gpu.samples[i].timeStamp;
        if (t <= gpu.last_sample_us) {
          ++i;
          continue;
        }
        gpu.utilisation.clear();
        for (; i < gpu.samples.size() && gpu.samples[i].timeStamp == t; ++i) {
          gpu.utilisation.push_back({static_cast<pid_t>(gpu.samples[i].pid),
                                     static_cast<double>(gpu.samples[i].smUtil) * 0.01});
        }
        activity.counts.add_utilisation(
            static_cast<TimeNs>(t) * kNsPerUs - realtime_minus_monotonic,
            static_cast<double>(t - gpu.last_sample_us) * 1e-6, gpu.utilisation, observed);
        gpu.last_sample_us = t;
      }
      return;
    }
    // The running-process list says who holds the GPU, not who works on it: a share of 1 or 0.
    unsigned int count = 0;
    nvml::Return code = symbols_.get_compute_processes(gpu.handle, &count, nullptr);
    if (code == nvml::kSuccess && count == 0) {
      activity.counts.add_holders(poll.now_ns, poll.elapsed_s, {}, observed);
      return;
    }
    if (code != nvml::kSuccess && code != nvml::kErrorInsufficientSize) {
      activity.error = describe("nvmlDeviceGetComputeRunningProcesses", gpu.index, code);
      return;
    }
    gpu.processes.assign(count + 4, nvml::ProcessInfoV2{});  // room for processes starting now
    count = static_cast<unsigned int>(gpu.processes.size());
    code = symbols_.get_compute_processes(gpu.handle, &count, gpu.processes.data());
    if (code != nvml::kSuccess) {
      activity.error = describe("nvmlDeviceGetComputeRunningProcesses", gpu.index, code);
      return;
    }
    gpu.holders.clear();
    for (unsigned int i = 0; i < count && i < gpu.processes.size(); ++i) {
      gpu.holders.push_back(static_cast<pid_t>(gpu.processes[i].pid));
    }
    const std::vector<pid_t> others =
        activity.counts.add_holders(poll.now_ns, poll.elapsed_s, gpu.holders, observed);
    if (!others.empty()) {
      activity.error = fmt::format(
          "gpu {} runs observed processes beside others (pids {}) and gives no per-process "
          "utilisation (nvmlDeviceGetProcessUtilization is not supported): their shares are "
          "unknown",
          gpu.index, fmt::join(others, ", "));
    }
  }

  // The GPU's per-process activity channels when processes are observed, or a note why not.
  void discover_activity(Gpu& gpu, std::size_t gpu_slot, const std::string& who) {
    if (!observes_processes()) return;
    if (symbols_.get_mig_mode != nullptr) {
      unsigned int current = 0;
      unsigned int pending = 0;
      if (symbols_.get_mig_mode(gpu.handle, &current, &pending) == nvml::kSuccess &&
          current == nvml::kMigEnabled) {
        note(fmt::format(
            "{}: MIG is enabled, so its energy is not attributable per process (the energy "
            "counter covers the whole board, every MIG instance together, and NVML gives no "
            "per-process utilisation under MIG)",
            who));
        return;
      }
    }
    std::string rule;
    std::string detail;
    if (symbols_.get_process_utilization != nullptr) {
      unsigned int count = 0;
      const nvml::Return code =
          symbols_.get_process_utilization(gpu.handle, nullptr, &count, realtime_now_us());
      if (code == nvml::kSuccess || code == nvml::kErrorInsufficientSize ||
          code == nvml::kErrorNotFound) {
        gpu.activity = ProcessActivity::kUtilisationSamples;
        rule = "gpu-utilisation";
        detail = fmt::format(
            "nvmlDeviceGetProcessUtilization on {}: each process's SM utilisation × the time "
            "since the previous sample",
            who);
      }
    }
    if (gpu.activity == ProcessActivity::kNone && symbols_.get_compute_processes != nullptr) {
      gpu.activity = ProcessActivity::kSoleUser;
      rule = "gpu-sole-user";
      detail = fmt::format(
          "nvmlDeviceGetComputeRunningProcesses on {} (no per-process utilisation here): the "
          "whole time while compute processes hold the GPU; shares are 1 when only observed "
          "processes do, 0 when only others do, unknown when both do",
          who);
    }
    if (gpu.activity == ProcessActivity::kNone) {
      note(fmt::format(
          "{}: NVML lists neither per-process utilisation nor running processes, so its energy "
          "is not attributable per process",
          who));
      return;
    }
    gpu.last_sample_us = realtime_now_us();
    for (ActivityChannel& activity : start_activity(gpu.index, rule, detail)) {
      gpu.activity_counts = activity.activity;
      add(std::move(activity.channel), gpu_slot, NvmlQuantity::kActivity);
      slots_.back().activity = activity.activity;
      slots_.back().activity_count = activity.count;
    }
  }

  bool load_library() {
    return load([&](FunctionBinder& bind) {
      bind.required(symbols_.init, "nvmlInit_v2");
      bind.required(symbols_.shutdown, "nvmlShutdown");
      bind.required(symbols_.error_string, "nvmlErrorString");
      bind.required(symbols_.get_count, "nvmlDeviceGetCount_v2");
      bind.required(symbols_.get_handle, "nvmlDeviceGetHandleByIndex_v2");
      bind.required(symbols_.get_name, "nvmlDeviceGetName");
      bind.required(symbols_.get_uuid, "nvmlDeviceGetUUID");
      bind.required(symbols_.get_power, "nvmlDeviceGetPowerUsage");
      bind.optional(symbols_.get_energy, "nvmlDeviceGetTotalEnergyConsumption");
      bind.optional(symbols_.get_field_values, "nvmlDeviceGetFieldValues");
      bind.optional(symbols_.get_temperature, "nvmlDeviceGetTemperature");
      bind.optional(symbols_.get_process_utilization, "nvmlDeviceGetProcessUtilization");
      bind.optional(symbols_.get_compute_processes, "nvmlDeviceGetComputeRunningProcesses_v2");
      bind.optional(symbols_.get_mig_mode, "nvmlDeviceGetMigMode");
      bind.optional(symbols_.get_architecture, "nvmlDeviceGetArchitecture");
    });
  }

  void add(Channel channel, std::size_t gpu, NvmlQuantity quantity, unsigned field_id = 0) {
    channels_.push_back(std::move(channel));
    NvmlSlot slot;
    slot.gpu = gpu;
    slot.quantity = quantity;
    slot.field_id = field_id;
    slots_.push_back(std::move(slot));
  }

  // How long the board power reading averages over; 0 where it is an instant's or the
  // architecture is not known (a driver without nvmlDeviceGetArchitecture).
  TimeNs power_usage_averaging_ns(nvml::Device handle, std::string_view name) const {
    if (symbols_.get_architecture == nullptr) return 0;
    unsigned architecture = nvml::kDeviceArchUnknown;
    if (symbols_.get_architecture(handle, &architecture) != nvml::kSuccess) return 0;
    const bool ampere_or_newer =
        architecture >= nvml::kDeviceArchAmpere && architecture != nvml::kDeviceArchUnknown;
    return ampere_or_newer && !names_ga100(name) ? kNvmlPowerAveragingNs : 0;
  }

  // Channels of one GPU: the energy counter, or the board power where there is no counter (the
  // top-level channel that totals use); the other power readings nest under it because they
  // measure the same board and must never be added to it.
  void discover_gpu(unsigned index, nvml::Device handle, const std::string& uuid) {
    nvml::Return code = nvml::kSuccess;
    char name[nvml::kDeviceNameBufferSize] = {};
    if (symbols_.get_name(handle, name, sizeof name) != nvml::kSuccess) name[0] = '\0';
    const std::string who = fmt::format("NVIDIA gpu {} ({}{}{})", index, name[0] ? name : "unnamed",
                                        uuid.empty() ? "" : ", ", uuid);
    const std::size_t gpu_slot = gpus_.size();
    const std::size_t first_channel = channels_.size();
    Gpu gpu;
    gpu.index = index;
    gpu.handle = handle;

    std::string top_id;
    if (symbols_.get_energy != nullptr) {
      unsigned long long energy_mj = 0;
      code = symbols_.get_energy(handle, &energy_mj);
      if (code == nvml::kSuccess) {
        top_id = fmt::format("nvml:{}:energy", index);
        add(make_channel(index, "energy", ChannelKind::kEnergyCounter,
                         fmt::format("nvmlDeviceGetTotalEnergyConsumption on {}: mJ since driver "
                                     "load, updates every ~100 ms",
                                     who),
                         "", kNvmlUpdatePeriodNs),
            gpu_slot, NvmlQuantity::kEnergy);
      } else if (code != nvml::kErrorNotSupported) {
        note_failure("nvmlDeviceGetTotalEnergyConsumption", index, code);
      }
    }
    unsigned int power_mw = 0;
    code = symbols_.get_power(handle, &power_mw);
    if (code == nvml::kSuccess) {
      const bool fallback = top_id.empty();
      add(make_channel(index, "power", ChannelKind::kPower,
                       fmt::format("nvmlDeviceGetPowerUsage on {}: mW, a 1 s moving average on "
                                   "Ampere and newer{}",
                                   who,
                                   fallback ? "; this GPU has no energy counter, so its energy is "
                                              "this power integrated with the trapezoid rule"
                                            : ""),
                       top_id, kNvmlUpdatePeriodNs),
          gpu_slot, NvmlQuantity::kPower);
      channels_.back().averaging_ns = power_usage_averaging_ns(handle, name);
      if (fallback) top_id = fmt::format("nvml:{}:power", index);
    } else if (code != nvml::kErrorNotSupported) {
      note_failure("nvmlDeviceGetPowerUsage", index, code);
    }
    if (top_id.empty()) note(fmt::format("{} reports neither energy nor power", who));

    if (symbols_.get_field_values != nullptr) {
      nvml::FieldValue probe[2] = {};
      probe[0].fieldId = nvml::kFieldPowerInstant;
      probe[1].fieldId = nvml::kFieldPowerAverage;
      code = symbols_.get_field_values(handle, 2, probe);
      for (const nvml::FieldValue& field : probe) {
        if (code != nvml::kSuccess || field.nvmlReturn != nvml::kSuccess) continue;
        const bool instant = field.fieldId == nvml::kFieldPowerInstant;
        gpu.field_ids.push_back(field.fieldId);
        add(make_channel(index, instant ? "power-instant" : "power-average", ChannelKind::kPower,
                         fmt::format("nvmlDeviceGetFieldValues {} on {}: mW{}",
                                     field_name(field.fieldId), who,
                                     instant ? ", noisy; prefer the energy counter for energy"
                                             : ", averaged by the driver"),
                         top_id, kNvmlUpdatePeriodNs),
            gpu_slot, instant ? NvmlQuantity::kPowerInstant : NvmlQuantity::kPowerAverage,
            field.fieldId);
      }
      gpu.field_values.resize(gpu.field_ids.size());
    }
    if (symbols_.get_temperature != nullptr) {
      unsigned int celsius = 0;
      if (symbols_.get_temperature(handle, nvml::kTemperatureGpu, &celsius) == nvml::kSuccess) {
        add(make_channel(
                index, "temperature", ChannelKind::kTemperature,
                fmt::format("nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU) on {}: °C", who), "",
                0),
            gpu_slot, NvmlQuantity::kTemperature);
      }
    }
    discover_activity(gpu, gpu_slot, who);
    label_channels(first_channel, name);
    gpus_.push_back(std::move(gpu));
  }

  void discover() {
    if (!load_library()) return;
    const nvml::Return init = symbols_.init();
    if (init != nvml::kSuccess) return fail_call("nvmlInit_v2", init);
    initialised_ = true;
    unsigned int count = 0;
    const nvml::Return counted = symbols_.get_count(&count);
    if (counted != nvml::kSuccess) return fail_call("nvmlDeviceGetCount_v2", counted);
    if (count == 0) {
      return fail("NVML found no NVIDIA GPU",
                  "check `nvidia-smi`; in a container, expose the GPUs "
                  "(e.g. docker --gpus all)");
    }
    // Every GPU's handle and UUID first: CUDA_VISIBLE_DEVICES may name them by either.
    std::vector<nvml::Device> handles;
    std::vector<GpuIdentity> gpus;
    for (unsigned index = 0; index < count; ++index) {
      nvml::Device handle = nullptr;
      const nvml::Return code = symbols_.get_handle(index, &handle);
      if (code != nvml::kSuccess) {
        note_failure("nvmlDeviceGetHandleByIndex_v2", index, code);
        continue;
      }
      char uuid[nvml::kDeviceUuidBufferSize] = {};
      if (symbols_.get_uuid(handle, uuid, sizeof uuid) != nvml::kSuccess) uuid[0] = '\0';
      handles.push_back(handle);
      gpus.push_back({index, uuid});
    }
    const GpuVisibility visible =
        resolve_visible_gpus(kCudaVisibleDevicesEnv, std::getenv(kCudaVisibleDevicesEnv), gpus);
    if (!visible.note.empty()) note(visible.note);
    if (!gpus.empty() && visible.visible() == 0) {
      return fail(visible.note, "list the job's GPUs in CUDA_VISIBLE_DEVICES, or unset it");
    }
    for (std::size_t g = 0; g < gpus.size(); ++g) {
      if (!visible.number[g]) continue;
      const auto index = static_cast<unsigned>(gpus[g].index);
      number_gpu(index, *visible.number[g]);
      discover_gpu(index, handles[g], gpus[g].uuid);
    }
    if (!finish_discovery()) {
      gpus_.clear();
      slots_.clear();
    }
  }

  TimeNs process_poll_ns_ = kProcessActivityPeriodNs;
  NvmlSymbols symbols_;
  bool initialised_ = false;
  std::vector<Gpu> gpus_;
  std::vector<NvmlSlot> slots_;
};

}  // namespace

namespace nvml {

VendorErrorDescription describe_error(Return code) {
  switch (code) {
    case kSuccess:
      return {"NVML_SUCCESS", "no error", ""};
    case kErrorUninitialized:
      return {"NVML_ERROR_UNINITIALIZED", "NVML was not initialised",
              "this is a jouleprof bug; please report it"};
    case kErrorInvalidArgument:
      return {"NVML_ERROR_INVALID_ARGUMENT", "an argument was invalid",
              "this is a jouleprof bug; please report it"};
    case kErrorNotSupported:
      return {"NVML_ERROR_NOT_SUPPORTED", "this GPU does not support the query", ""};
    case kErrorNoPermission:
      return {"NVML_ERROR_NO_PERMISSION", "the user may not perform the query",
              "run as a user with access to /dev/nvidia* (e.g. in the video group) or as root"};
    case kErrorAlreadyInitialized:
      return {"NVML_ERROR_ALREADY_INITIALIZED", "NVML was already initialised", ""};
    case kErrorNotFound:
      return {"NVML_ERROR_NOT_FOUND", "the GPU or object was not found", "check `nvidia-smi -L`"};
    case kErrorInsufficientSize:
      return {"NVML_ERROR_INSUFFICIENT_SIZE", "a buffer was too small",
              "this is a jouleprof bug; please report it"};
    case kErrorInsufficientPower:
      return {"NVML_ERROR_INSUFFICIENT_POWER",
              "the GPU's external power cables are not attached properly",
              "check the GPU's power connectors"};
    case kErrorDriverNotLoaded:
      return {"NVML_ERROR_DRIVER_NOT_LOADED", "the NVIDIA kernel driver is not loaded",
              "load it (`sudo modprobe nvidia`) or install the NVIDIA driver; in a container, run "
              "with the NVIDIA runtime"};
    case kErrorTimeout:
      return {"NVML_ERROR_TIMEOUT", "the driver timed out",
              "retry; if it persists check `dmesg` for GPU errors"};
    case kErrorIrqIssue:
      return {"NVML_ERROR_IRQ_ISSUE",
              "the kernel driver detected an interrupt problem with the GPU",
              "check `dmesg`; the GPU may need a reset"};
    case kErrorLibraryNotFound:
      return {"NVML_ERROR_LIBRARY_NOT_FOUND", "a library NVML needs was not found",
              "reinstall the NVIDIA driver"};
    case kErrorFunctionNotFound:
      return {"NVML_ERROR_FUNCTION_NOT_FOUND", "the driver does not implement this function",
              "update the NVIDIA driver"};
    case kErrorCorruptedInforom:
      return {"NVML_ERROR_CORRUPTED_INFOROM", "the GPU's infoROM is corrupted",
              "contact the GPU vendor; the board needs service"};
    case kErrorGpuIsLost:
      return {"NVML_ERROR_GPU_IS_LOST",
              "the GPU has fallen off the bus or is otherwise inaccessible",
              "check `dmesg` (Xid errors); the machine may need a reboot"};
    case kErrorResetRequired:
      return {"NVML_ERROR_RESET_REQUIRED", "the GPU needs a reset before it can be used again",
              "reset it (`nvidia-smi -r`) or reboot"};
    case kErrorOperatingSystem:
      return {"NVML_ERROR_OPERATING_SYSTEM", "the operating system blocked the call",
              "check permissions on /dev/nvidia* and `dmesg`"};
    case kErrorLibRmVersionMismatch:
      return {"NVML_ERROR_LIB_RM_VERSION_MISMATCH",
              "the NVML library and the kernel driver versions differ",
              "reboot after a driver update, or reinstall the driver so both match"};
    case kErrorInUse:
      return {"NVML_ERROR_IN_USE", "the GPU is in use and the operation is not possible now",
              "retry when the GPU is idle"};
    case kErrorMemory:
      return {"NVML_ERROR_MEMORY", "NVML ran out of memory", "free memory and retry"};
    case kErrorNoData:
      return {"NVML_ERROR_NO_DATA", "no data is available yet",
              "retry after the GPU has run for a moment"};
    case kErrorVgpuEccNotEnabled:
      return {"NVML_ERROR_VGPU_ECC_NOT_ENABLED", "ECC is not enabled on this vGPU", ""};
    case kErrorInsufficientResources:
      return {"NVML_ERROR_INSUFFICIENT_RESOURCES", "not enough resources for the request",
              "retry later"};
    case kErrorFreqNotSupported:
      return {"NVML_ERROR_FREQ_NOT_SUPPORTED", "the frequency is not supported", ""};
    case kErrorArgumentVersionMismatch:
      return {"NVML_ERROR_ARGUMENT_VERSION_MISMATCH",
              "the driver expects a different structure version", "update the NVIDIA driver"};
    case kErrorDeprecated:
      return {"NVML_ERROR_DEPRECATED", "the function is deprecated in this driver",
              "update jouleprof"};
    case kErrorNotReady:
      return {"NVML_ERROR_NOT_READY", "the system is not ready for the request",
              "retry in a moment"};
    case kErrorGpuNotFound:
      return {"NVML_ERROR_GPU_NOT_FOUND", "the GPU could not be found", "check `nvidia-smi -L`"};
    case kErrorInvalidState:
      return {"NVML_ERROR_INVALID_STATE", "the GPU is in an invalid state for the request",
              "retry; reset the GPU if it persists"};
    case kErrorUnknown:
      return {"NVML_ERROR_UNKNOWN", "an unknown internal NVML error",
              "check `dmesg` and `nvidia-smi`"};
    default:
      return {"NVML_ERROR_(unrecognised code)",
              "an error code this jouleprof does not know (newer driver?)", "update jouleprof"};
  }
}

}  // namespace nvml

std::unique_ptr<Source> make_nvml_source(const SourceOptions& options) {
  return std::make_unique<NvmlSource>(options);
}

std::span<const std::string_view> nvml_settings() {
  static constexpr std::array<std::string_view, 1> kNames{kNvmlProcessPollSetting};
  return kNames;
}

}  // namespace jouleprof
