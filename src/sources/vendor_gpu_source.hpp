// The base of the GPU backends that read a vendor's library (nvml, rocm-smi, level-zero): the
// library, the availability that says why the source cannot work, the notes and the fix the
// discovery collects, the channels of the backend's GPU N ("<source>:N:<suffix>" on the device
// gpu<first_gpu_index + N>), and, with observed processes, each GPU's busy-time counts and when
// to poll them. A backend keeps only its vendor's calls:
//
//   class NvmlSource final : public VendorGpuSource {
//     explicit NvmlSource(const SourceOptions& options) : VendorGpuSource(kNvml, options) {
//       if (!load([&](FunctionBinder& bind) { bind.required(symbols_.init, "nvmlInit_v2"); …}))
//         return;
//       if (const nvml::Return init = symbols_.init(); init != nvml::kSuccess)
//         return fail_call("nvmlInit_v2", init);
//       … channels_.push_back(make_channel(gpu, "energy", …)); note_failure(call, gpu, code); …
//       finish_discovery();
//     }
//     std::string explain(std::int64_t code) const override;  // "NVML_ERROR_X (code 3): …"
//     VendorErrorDescription describe_error(std::int64_t code) const override;
//   };
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jouleprof/clock.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/source.hpp"
#include "sources/gpu_process_activity.hpp"
#include "sources/vendor_error.hpp"
#include "sources/vendor_gpu_library.hpp"

namespace jouleprof {

// What sets one vendor's backend apart from the others', besides its calls.
struct VendorGpuBackend {
  std::string_view source_name;  // "nvml": the source's name and its channels' id prefix
  // How a failed call names the GPU: "gpu" ("nvmlDeviceGetPowerUsage(gpu 0) failed: …").
  std::string_view call_subject;
  TimeNs default_period_ns;
  VendorLibrary library;
};

// One GPU's busy-time counts from its vendor's per-process data.
struct GpuActivity {
  std::size_t gpu = 0;  // the backend's own GPU index
  GpuProcessActivity counts;
  std::string error;  // why the last poll gave no count
};

// A poll of the GPUs' per-process data that is due now.
struct ActivityPoll {
  TimeNs now_ns = 0;
  double elapsed_s = 0.0;  // since the previous poll
  std::vector<pid_t> observed;
};

// A busy-time channel of a GPU, and what it reads: activities_[activity]'s `count`.
struct ActivityChannel {
  Channel channel;
  std::size_t activity = 0;
  GpuActivityCount count = GpuActivityCount::kBusy;
};

class VendorGpuSource : public Source {
 public:
  VendorGpuSource(const VendorGpuSource&) = delete;
  VendorGpuSource& operator=(const VendorGpuSource&) = delete;

  std::string_view name() const final { return backend_.source_name; }
  Availability availability() const final { return availability_; }
  const std::vector<Channel>& channels() const final { return channels_; }
  TimeNs default_period_ns() const final { return backend_.default_period_ns; }

 protected:
  // Opens the vendor's library; the backend's constructor then discovers its GPUs.
  VendorGpuSource(const VendorGpuBackend& backend, const SourceOptions& options);

  // The vendor's words for a status code its library returned, e.g.
  // "NVML_ERROR_NO_PERMISSION (code 4): the user may not perform the query (driver: '…')".
  virtual std::string explain(std::int64_t code) const = 0;
  // The vendor's description of a status code (its fix is what the user can do).
  virtual VendorErrorDescription describe_error(std::int64_t code) const = 0;

  // Binds the functions the backend calls; false, with the source unavailable saying why, when
  // the library did not load or lacks a required one.
  bool load(const std::function<void(FunctionBinder&)>& bind_functions);

  void fail(std::string reason, std::string fix);
  // Unavailable because `call` failed: "<call> failed: <explain>", with the code's fix.
  void fail_call(std::string_view call, std::int64_t code);
  std::string describe(std::string_view call, std::int64_t code) const;  // "<call> failed: …"
  // "<call>(gpu N) failed: …", N being the backend's own index of the GPU.
  std::string describe(std::string_view call, std::size_t gpu, std::int64_t code) const;

  // Something the discovery passed over, for the availability's reason.
  void note(std::string text);
  // A call that failed during discovery: a note, and its fix kept for when nothing can be read.
  void note_failure(std::string_view call, std::size_t gpu, std::int64_t code);
  // Ends the discovery: available, the notes being its reason. Unavailable when no channel
  // carries energy (a temperature alone would only report 0 J): the reason names the notes, the
  // fix is the first failed call's, and the channels and activities are dropped; false then, so
  // that the backend drops its own state of the channels.
  bool finish_discovery();

  // The GPU's number on the device names: first_gpu_index + the job's number for it (its
  // position in CUDA_VISIBLE_DEVICES, visible_gpus.hpp; by default the backend's own index).
  std::size_t gpu_number(std::size_t gpu) const;
  void number_gpu(std::size_t gpu, std::size_t job_number) { job_numbers_[gpu] = job_number; }
  std::string device(std::size_t gpu) const;  // "gpu<gpu_number(gpu)>"
  // A measured channel of the GPU: id "<source>:<gpu>:<suffix>", domain "gpu".
  Channel make_channel(std::size_t gpu, std::string_view suffix, ChannelKind kind,
                       std::string detail, std::string parent_id, TimeNs nominal_period_ns) const;
  // Labels the channels from `first_channel` on with the GPU's name.
  void label_channels(std::size_t first_channel, std::string_view label);

  bool observes_processes() const { return observed_ != nullptr; }
  // Starts the GPU's busy-time counts now (with observed processes only): its three busy-time
  // channels, as gpu_activity_channels(rule, how) describes them.
  std::vector<ActivityChannel> start_activity(std::size_t gpu, std::string_view rule,
                                              std::string_view how);
  // The poll of the per-process data when one is due (`period_ns` after the previous one), the
  // activities' errors cleared; nullopt when not, or when no GPU counts activity.
  std::optional<ActivityPoll> due_activity_poll(TimeNs period_ns);
  // A busy-time channel's reading at its counts' time; false with `read_error` set to the poll's
  // error when the last poll gave no count.
  bool read_activity(std::size_t activity, GpuActivityCount count, Reading& reading,
                     std::string& read_error) const;

  const VendorGpuLibrary& library() const { return library_; }

  std::vector<Channel> channels_;
  std::vector<GpuActivity> activities_;

 private:
  VendorGpuBackend backend_;
  VendorGpuLibrary library_;
  std::size_t first_gpu_index_;
  std::map<std::size_t, std::size_t> job_numbers_;  // backend index -> the job's number
  std::shared_ptr<ObservedProcesses> observed_;     // null: no per-process channels
  TimeNs last_activity_poll_ns_ = 0;
  Availability availability_;
  std::vector<std::string> notes_;
  std::string discovery_fix_;  // what to do about the first failed call of the discovery
};

// What only one backend offers beyond Source (rocm_compute_processes, level_zero_processes)
// needs `source` to be that backend, available here: else an error says which it is not
// ("cpu-estimate is not a rocm-smi source: ROCm SMI's compute processes come only from one").
Status check_vendor_backend(const VendorGpuSource* backend, const Source& source,
                            std::string_view backend_name, std::string_view offer);

template <typename Backend>
Result<const Backend*> as_vendor_backend(const Source& source, std::string_view backend_name,
                                         std::string_view offer) {
  const auto* backend = dynamic_cast<const Backend*>(&source);
  const Status usable = check_vendor_backend(backend, source, backend_name, offer);
  if (!usable) return usable.error();
  return backend;
}

}  // namespace jouleprof
