#include "sources/vendor_gpu_source.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

#include "jouleprof/observed_processes.hpp"

namespace jouleprof {
namespace {

// Polls further apart than this are not read as back to back (GpuProcessActivity): a longer
// silence is an idle GPU, not one long sample.
constexpr TimeNs kVendorGpuMaxProcessSamplePeriodNs = kNsPerS;

}  // namespace

VendorGpuSource::VendorGpuSource(const VendorGpuBackend& backend, const SourceOptions& options)
    : backend_(backend),
      library_(backend.library),
      first_gpu_index_(options.first_gpu_index),
      observed_(options.observed) {}

bool VendorGpuSource::load(const std::function<void(FunctionBinder&)>& bind_functions) {
  availability_ = library_.bind(bind_functions);
  // Available only once the discovery has found something to read.
  const bool bound = availability_.available;
  availability_.available = false;
  return bound;
}

void VendorGpuSource::fail(std::string reason, std::string fix) {
  availability_.available = false;
  availability_.reason = std::move(reason);
  availability_.fix = std::move(fix);
}

void VendorGpuSource::fail_call(std::string_view call, std::int64_t code) {
  fail(describe(call, code), std::string(describe_error(code).fix));
}

std::string VendorGpuSource::describe(std::string_view call, std::int64_t code) const {
  return fmt::format("{} failed: {}", call, explain(code));
}

std::string VendorGpuSource::describe(std::string_view call, std::size_t gpu,
                                      std::int64_t code) const {
  return fmt::format("{}({} {}) failed: {}", call, backend_.call_subject, gpu, explain(code));
}

void VendorGpuSource::note(std::string text) { notes_.push_back(std::move(text)); }

void VendorGpuSource::note_failure(std::string_view call, std::size_t gpu, std::int64_t code) {
  note(describe(call, gpu, code));
  if (discovery_fix_.empty()) discovery_fix_ = describe_error(code).fix;
}

bool VendorGpuSource::finish_discovery() {
  if (std::none_of(channels_.begin(), channels_.end(),
                   [](const Channel& c) { return c.carries_energy(); })) {
    channels_.clear();
    activities_.clear();
    fail(fmt::format("no GPU could be read: {}", fmt::join(notes_, "; ")), discovery_fix_);
    return false;
  }
  availability_.available = true;
  availability_.reason = fmt::format("{}", fmt::join(notes_, "; "));
  availability_.fix.clear();
  return true;
}

std::size_t VendorGpuSource::gpu_number(std::size_t gpu) const {
  const auto numbered = job_numbers_.find(gpu);
  return first_gpu_index_ + (numbered == job_numbers_.end() ? gpu : numbered->second);
}

std::string VendorGpuSource::device(std::size_t gpu) const {
  return fmt::format("gpu{}", gpu_number(gpu));
}

Channel VendorGpuSource::make_channel(std::size_t gpu, std::string_view suffix, ChannelKind kind,
                                      std::string detail, std::string parent_id,
                                      TimeNs nominal_period_ns) const {
  Channel channel;
  channel.id = fmt::format("{}:{}:{}", backend_.source_name, gpu, suffix);
  channel.source = std::string(backend_.source_name);
  channel.device = device(gpu);
  channel.domain = "gpu";
  channel.kind = kind;
  channel.provenance = Provenance::kMeasured;
  channel.provenance_detail = std::move(detail);
  channel.parent_id = std::move(parent_id);
  channel.nominal_period_ns = nominal_period_ns;
  return channel;
}

void VendorGpuSource::label_channels(std::size_t first_channel, std::string_view label) {
  for (std::size_t i = first_channel; i < channels_.size(); ++i) {
    channels_[i].label = std::string(label);
  }
}

std::vector<ActivityChannel> VendorGpuSource::start_activity(std::size_t gpu, std::string_view rule,
                                                             std::string_view how) {
  last_activity_poll_ns_ = monotonic_now_ns();
  activities_.push_back(
      {gpu, GpuProcessActivity(last_activity_poll_ns_, kVendorGpuMaxProcessSamplePeriodNs), ""});
  std::vector<ActivityChannel> channels;
  for (GpuActivityChannel& described : gpu_activity_channels(rule, how)) {
    Channel channel = make_channel(gpu, described.id_suffix, ChannelKind::kBusyTime,
                                   std::move(described.description), "", 0);
    channel.domain = std::move(described.domain);
    channels.push_back({std::move(channel), activities_.size() - 1, described.count});
  }
  return channels;
}

std::optional<ActivityPoll> VendorGpuSource::due_activity_poll(TimeNs period_ns) {
  if (activities_.empty()) return std::nullopt;
  const TimeNs now = monotonic_now_ns();
  if (now - last_activity_poll_ns_ < period_ns) return std::nullopt;
  const double elapsed_s = ns_to_s(now - last_activity_poll_ns_);
  last_activity_poll_ns_ = now;
  for (GpuActivity& activity : activities_) activity.error.clear();
  return ActivityPoll{now, elapsed_s, observed_->pids()};
}

bool VendorGpuSource::read_activity(std::size_t activity, GpuActivityCount count, Reading& reading,
                                    std::string& read_error) const {
  const GpuActivity& gpu = activities_[activity];
  reading.t_ns = gpu.counts.as_of_ns();
  if (!gpu.error.empty()) {
    read_error = gpu.error;
    return false;
  }
  reading.value = gpu.counts.count(count);
  return true;
}

Status check_vendor_backend(const VendorGpuSource* backend, const Source& source,
                            std::string_view backend_name, std::string_view offer) {
  if (backend == nullptr) {
    return Error(ErrorCode::kInvalidInput,
                 fmt::format("{} is not a {} source: {} come only from one", source.name(),
                             backend_name, offer));
  }
  if (!backend->availability().available) {
    return Error(ErrorCode::kUnavailable, fmt::format("{} is not available here: {}", backend_name,
                                                      backend->availability().reason));
  }
  return Status::Ok();
}

}  // namespace jouleprof
