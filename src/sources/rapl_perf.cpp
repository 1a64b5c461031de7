// RAPL through perf_event_open and the `power` PMU. The kernel widens RAPL's 32-bit registers
// into 64-bit counts, so no wrap handling is needed here; counts × the event's scale are joules.
// The events are system-wide (one per socket, on the CPU the PMU's cpumask names), which an
// unprivileged user may open only when kernel.perf_event_paranoid <= 0.
#include "sources/rapl_perf.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>

#include "core/parse.hpp"
#include "sources/backends.hpp"
#include "sources/rapl_common.hpp"
#include "sources/sysfs_file.hpp"

namespace jouleprof {
namespace {

constexpr std::string_view kRaplPerfSourceName = "rapl-perf";
constexpr std::string_view kRaplPerfChannelPrefix = "rapl-perf";
constexpr std::string_view kPmuPath = "/sys/bus/event_source/devices/power";
constexpr std::string_view kParanoidPath = "/proc/sys/kernel/perf_event_paranoid";

// perf's event names for RAPL domains: energy-gpu is RAPL's PP1 ("uncore" in powercap).
std::optional<rapl::Domain> domain_of_event(std::string_view event_name) {
  static const std::map<std::string_view, rapl::Domain> kDomains = {
      {"energy-pkg", rapl::Domain::kPackage},
      {"energy-cores", rapl::Domain::kCore},
      {"energy-gpu", rapl::Domain::kUncore},
      {"energy-ram", rapl::Domain::kDram},
      {"energy-psys", rapl::Domain::kPsys}};
  const auto it = kDomains.find(event_name);
  if (it == kDomains.end()) return std::nullopt;
  return it->second;
}

class LinuxPerfEventSyscalls final : public PerfEventSyscalls {
 public:
  int open_event(std::uint32_t pmu_type, std::uint64_t config, int cpu) override {
    perf_event_attr attr{};
    attr.type = pmu_type;
    attr.size = sizeof attr;
    attr.config = config;
    const long fd = ::syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    return fd < 0 ? -errno : static_cast<int>(fd);
  }
  int read_count(int fd, std::uint64_t* count) override {
    const ssize_t n = ::read(fd, count, sizeof *count);
    if (n < 0) return -errno;
    return n == sizeof *count ? 0 : -EIO;
  }
  void close_event(int fd) override { ::close(fd); }
};

struct OpenEvent {
  int fd = -1;
  double scale_j = 0.0;
  std::string description;  // "power/energy-pkg/ on cpu 0"
  bool has_baseline = false;
  std::uint64_t baseline = 0;
  std::string read_error;
};

class RaplPerfSource final : public Source {
 public:
  RaplPerfSource(const SourceOptions& options, std::unique_ptr<PerfEventSyscalls> syscalls)
      : syscalls_(std::move(syscalls)) {
    discover(options.sysfs_root);
  }
  ~RaplPerfSource() override {
    for (const OpenEvent& event : events_) syscalls_->close_event(event.fd);
  }
  RaplPerfSource(const RaplPerfSource&) = delete;
  RaplPerfSource& operator=(const RaplPerfSource&) = delete;

  std::string_view name() const override { return kRaplPerfSourceName; }
  Availability availability() const override { return availability_; }
  const std::vector<Channel>& channels() const override { return channels_; }
  TimeNs default_period_ns() const override { return rapl::kDefaultPollPeriodNs; }
  std::string read_error(std::size_t channel) const override {
    return channel < events_.size() ? events_[channel].read_error : std::string();
  }

  void read(std::span<Reading> out) override {
    for (std::size_t i = 0; i < events_.size() && i < out.size(); ++i) {
      OpenEvent& event = events_[i];
      Reading& reading = out[i];
      reading.t_ns = monotonic_now_ns();
      reading.ok = false;
      std::uint64_t count = 0;
      const int result = syscalls_->read_count(event.fd, &count);
      if (result != 0) {
        event.read_error =
            fmt::format("read of {} failed: {}", event.description, std::strerror(-result));
        continue;
      }
      if (!event.has_baseline) {
        event.has_baseline = true;
        event.baseline = count;
      }
      event.read_error.clear();
      // Signed: a count that went back is judged by the sampler.
      reading.value =
          (static_cast<double>(count) - static_cast<double>(event.baseline)) * event.scale_j;
      reading.ok = true;
    }
  }

 private:
  std::string paranoid_level(const std::string& root) const {
    auto level = sysfs::read_text(sysfs::under_root(root, kParanoidPath));
    return level ? *level : std::string("unknown");
  }

  void discover(const std::string& root) {
    const auto pmu_dir = sysfs::under_root(root, kPmuPath);
    auto type = sysfs::read_unsigned(pmu_dir / "type");
    if (!type) {
      availability_.reason =
          type.error().code() == ErrorCode::kNotFound
              ? fmt::format(
                    "no `power` PMU ({} is missing): this kernel or CPU does not offer "
                    "RAPL perf events (virtual machines usually hide them)",
                    pmu_dir.string())
              : type.error().message();
      availability_.fix = "try the rapl-powercap or rapl-msr source";
      return;
    }
    auto cpumask_text = sysfs::read_text(pmu_dir / "cpumask");
    if (!cpumask_text) {
      availability_.reason = cpumask_text.error().message();
      return;
    }
    auto cpus = parse_cpu_list(pmu_dir / "cpumask", *cpumask_text);
    if (!cpus) {
      availability_.reason = cpus.error().message();
      return;
    }
    std::vector<std::string> skipped;
    const std::vector<PerfEnergyEvent> energy_events =
        discover_perf_energy_events(pmu_dir, skipped);
    if (energy_events.empty()) {
      availability_.reason =
          fmt::format("the `power` PMU at {} has no usable energy-* events{}{}", pmu_dir.string(),
                      skipped.empty() ? "" : ": ", fmt::join(skipped, "; "));
      availability_.fix = "try the rapl-powercap or rapl-msr source";
      return;
    }

    bool permission_denied = false;
    const bool one_socket = cpus->size() == 1;
    const bool has_psys = [&] {
      for (const auto& event : energy_events) {
        if (domain_of_event(event.name) == rapl::Domain::kPsys) return true;
      }
      return false;
    }();
    for (std::size_t socket_index = 0; socket_index < cpus->size(); ++socket_index) {
      const int socket = static_cast<int>(socket_index);
      const int cpu = (*cpus)[socket_index];
      for (const PerfEnergyEvent& spec : energy_events) {
        const auto domain = domain_of_event(spec.name);
        // psys covers the platform, not a socket: count it once, on the first socket's CPU.
        if (domain == rapl::Domain::kPsys && socket_index != 0) continue;
        const std::string description = fmt::format("power/{}/ on cpu {}", spec.name, cpu);
        const int fd = syscalls_->open_event(static_cast<std::uint32_t>(*type), spec.config, cpu);
        if (fd < 0) {
          const int error_number = -fd;
          if (error_number == EACCES || error_number == EPERM) {
            permission_denied = true;
            skipped.push_back(fmt::format(
                "perf_event_open({}) denied: {} (kernel.perf_event_paranoid is {}; system-wide "
                "events need <= 0 without CAP_PERFMON)",
                description, std::strerror(error_number), paranoid_level(root)));
          } else {
            skipped.push_back(
                fmt::format("perf_event_open({}) failed: {} (event not supported "
                            "on this CPU?)",
                            description, std::strerror(error_number)));
          }
          continue;
        }
        std::string id;
        std::string parent_id;
        if (!domain) {
          id = fmt::format("{}:package-{}/{}", kRaplPerfChannelPrefix, socket, spec.name.substr(7));
          parent_id = rapl::package_channel_id(kRaplPerfChannelPrefix, socket);
        } else if (*domain == rapl::Domain::kPsys) {
          id = fmt::format("{}:psys", kRaplPerfChannelPrefix);
        } else if (*domain == rapl::Domain::kPackage) {
          id = rapl::package_channel_id(kRaplPerfChannelPrefix, socket);
          if (has_psys && one_socket) parent_id = fmt::format("{}:psys", kRaplPerfChannelPrefix);
        } else {
          id = rapl::sub_domain_channel_id(kRaplPerfChannelPrefix, socket, *domain);
          parent_id = rapl::package_channel_id(kRaplPerfChannelPrefix, socket);
        }
        const rapl::Domain device_domain = domain.value_or(rapl::Domain::kPackage);
        channels_.push_back(rapl::make_channel(
            std::move(id), kRaplPerfSourceName, rapl::device_name(socket, device_domain),
            domain ? rapl::domain_name(*domain) : std::string_view(spec.name).substr(7),
            fmt::format("perf_event_open {} (type {}, config {:#x}), counts × {} J", description,
                        *type, spec.config, spec.scale_j),
            std::move(parent_id)));
        OpenEvent event;
        event.fd = fd;
        event.scale_j = spec.scale_j;
        event.description = description;
        events_.push_back(std::move(event));
      }
    }
    if (events_.empty()) {
      availability_.reason = fmt::format("{}", fmt::join(skipped, "; "));
      availability_.fix = permission_denied ? rapl::perf_permission_fix()
                                            : "try the rapl-powercap or rapl-msr source";
      return;
    }
    availability_.available = true;
    if (!skipped.empty()) {
      availability_.reason = fmt::format("some events skipped: {}", fmt::join(skipped, "; "));
      if (permission_denied) availability_.fix = rapl::perf_permission_fix();
    }
  }

  std::unique_ptr<PerfEventSyscalls> syscalls_;
  Availability availability_;
  std::vector<OpenEvent> events_;
  std::vector<Channel> channels_;
};

// "config:0-7" -> {0, 7}; "config:3" -> {3, 3}.
Result<std::pair<int, int>> parse_format_bits(const std::filesystem::path& file,
                                              std::string_view text) {
  constexpr std::string_view kConfig = "config:";
  text = trim_ascii_space(text);
  if (text.substr(0, kConfig.size()) != kConfig) {
    return invalid_input(file.string(), "format", text,
                         "only fields of the `config` word are supported");
  }
  const std::string_view bits = text.substr(kConfig.size());
  const std::size_t dash = bits.find('-');
  int low = 0;
  int high = 0;
  const auto parse = [](std::string_view digits, int& value) {
    const std::optional<int> parsed = to_integer<int>(digits);
    if (parsed) value = *parsed;
    return parsed.has_value();
  };
  const bool ok = dash == std::string_view::npos
                      ? parse(bits, low) && parse(bits, high)
                      : parse(bits.substr(0, dash), low) && parse(bits.substr(dash + 1), high);
  if (!ok || low < 0 || high > 63 || low > high) {
    return invalid_input(file.string(), "format", text, "expected config:LOW-HIGH within 0-63");
  }
  return std::pair{low, high};
}

}  // namespace

std::unique_ptr<PerfEventSyscalls> make_linux_perf_event_syscalls() {
  return std::make_unique<LinuxPerfEventSyscalls>();
}

Result<std::uint64_t> parse_perf_event_config(const std::filesystem::path& pmu_dir,
                                              std::string_view event_string) {
  std::uint64_t config = 0;
  std::string_view rest = trim_ascii_space(event_string);
  if (rest.empty()) return invalid_input(pmu_dir.string(), "event", "", "empty event string");
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view term = trim_ascii_space(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const std::size_t equals = term.find('=');
    const std::string name(term.substr(0, equals));
    std::uint64_t value = 1;  // a bare term sets its field to 1
    if (equals != std::string_view::npos) {
      JP_TRY(value,
             sysfs::parse_unsigned_any_base(pmu_dir / "events", name, term.substr(equals + 1)));
    }
    const auto format_file = pmu_dir / "format" / name;
    JP_TRY(const std::string format_text, sysfs::read_text(format_file));
    JP_TRY(const auto bits, parse_format_bits(format_file, format_text));
    const int width = bits.second - bits.first + 1;
    const std::uint64_t mask = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
    if (value > mask) {
      return invalid_input(format_file.string(), name, std::to_string(value),
                           fmt::format("does not fit in {} bits", width));
    }
    config |= value << bits.first;
  }
  return config;
}

Result<std::vector<int>> parse_cpu_list(const std::filesystem::path& file, std::string_view text) {
  std::vector<int> cpus;
  std::string_view rest = trim_ascii_space(text);
  if (rest.empty()) return invalid_input(file.string(), "cpumask", "", "empty CPU list");
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view range = trim_ascii_space(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const std::size_t dash = range.find('-');
    JP_TRY(const std::int64_t first, sysfs::parse_signed(file, "cpumask", range.substr(0, dash)));
    std::int64_t last = first;
    if (dash != std::string_view::npos) {
      JP_TRY(last, sysfs::parse_signed(file, "cpumask", range.substr(dash + 1)));
    }
    if (first < 0 || last < first || last > 65535) {
      return invalid_input(file.string(), "cpumask", range, "not a CPU range");
    }
    for (std::int64_t cpu = first; cpu <= last; ++cpu) cpus.push_back(static_cast<int>(cpu));
  }
  return cpus;
}

std::vector<PerfEnergyEvent> discover_perf_energy_events(const std::filesystem::path& pmu_dir,
                                                         std::vector<std::string>& skipped) {
  std::vector<PerfEnergyEvent> events;
  const auto events_dir = pmu_dir / "events";
  auto names = sysfs::list_directory(events_dir);
  if (!names) {
    skipped.push_back(names.error().message());
    return events;
  }
  for (const std::string& name : *names) {
    if (name.substr(0, 7) != "energy-" || name.find('.') != std::string::npos) continue;
    auto event_string = sysfs::read_text(events_dir / name);
    if (!event_string) {
      skipped.push_back(event_string.error().message());
      continue;
    }
    auto config = parse_perf_event_config(pmu_dir, *event_string);
    if (!config) {
      skipped.push_back(config.error().message());
      continue;
    }
    const auto scale_file = events_dir / (name + ".scale");
    auto scale_text = sysfs::read_text(scale_file);
    if (!scale_text) {
      skipped.push_back(scale_text.error().message());
      continue;
    }
    const std::optional<double> scale_j = to_number(*scale_text);
    if (!scale_j || *scale_j <= 0.0) {
      skipped.push_back(invalid_input(scale_file.string(), "scale", *scale_text,
                                      "expected a positive number of joules per count")
                            .message());
      continue;
    }
    const auto unit_file = events_dir / (name + ".unit");
    auto unit = sysfs::read_text(unit_file);
    if (!unit || *unit != "Joules") {
      skipped.push_back(
          unit ? invalid_input(unit_file.string(), "unit", *unit, "only Joules is understood")
                     .message()
               : unit.error().message());
      continue;
    }
    events.push_back({name, *config, *scale_j});
  }
  return events;
}

std::unique_ptr<Source> make_rapl_perf_source(const SourceOptions& options,
                                              std::unique_ptr<PerfEventSyscalls> syscalls) {
  return std::make_unique<RaplPerfSource>(options, std::move(syscalls));
}

std::unique_ptr<Source> make_rapl_perf_source(const SourceOptions& options) {
  return make_rapl_perf_source(options, make_linux_perf_event_syscalls());
}

}  // namespace jouleprof
