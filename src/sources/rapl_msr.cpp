// RAPL through the model-specific registers (<root>/dev/cpu/N/msr, read with pread at the
// register's address). Energy is a 32-bit field that wraps (every few minutes at full load on a
// big package), scaled by the energy-status unit of the unit register: 1 / 2^ESU joules.
//
// Intel: package 0x611, PP0 (cores) 0x639, PP1 (uncore/graphics) 0x641, DRAM 0x619; units 0x606.
// AMD (and Hygon): package 0xC001029B, core 0xC001029A, units 0xC0010299. AMD's core register
// is per physical core, so the "core" channel sums every core of the package.
// A register that the CPU does not implement reads as EIO: that domain simply does not exist.
#include "sources/rapl_msr.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/parse.hpp"
#include "sources/backends.hpp"
#include "sources/cpu_topology.hpp"
#include "sources/energy_accumulator.hpp"
#include "sources/rapl_common.hpp"
#include "sources/sysfs_file.hpp"

namespace jouleprof {
namespace {

constexpr std::string_view kRaplMsrSourceName = "rapl-msr";
constexpr std::string_view kRaplMsrChannelPrefix = "rapl-msr";
// Setting that overrides the DRAM energy unit (joules per count). Server parts from Haswell-EP
// on count DRAM energy in fixed 2^-16 J units that the unit register does not report; the
// kernel keeps a model table for this. jouleprof reads the unit register unless told otherwise.
constexpr std::string_view kDramUnitSetting = "rapl-msr.dram-energy-unit-j";

constexpr std::uint64_t kIntelUnitRegister = 0x606;
constexpr std::uint64_t kIntelPackageRegister = 0x611;
constexpr std::uint64_t kIntelPp0Register = 0x639;
constexpr std::uint64_t kIntelPp1Register = 0x641;
constexpr std::uint64_t kIntelDramRegister = 0x619;
constexpr std::uint64_t kAmdUnitRegister = 0xC0010299;
constexpr std::uint64_t kAmdPackageRegister = 0xC001029B;
constexpr std::uint64_t kAmdCoreRegister = 0xC001029A;

constexpr std::uint64_t kEnergyFieldMask = 0xFFFFFFFF;
constexpr std::uint64_t kEnergyFieldModulus = std::uint64_t{1} << 32;
// Bits 12:8 of the unit register: energy status unit (ESU), energy unit = 1 / 2^ESU J.
constexpr int kEnergyUnitShift = 8;
constexpr std::uint64_t kEnergyUnitMask = 0x1F;

enum class Vendor { kIntel, kAmd };

Result<Vendor> read_vendor(const std::filesystem::path& cpuinfo) {
  JP_TRY(const std::string text, sysfs::read_text(cpuinfo));
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + start, end - start);
    if (line.substr(0, 9) == "vendor_id") {
      const std::size_t colon = line.find(':');
      std::string_view vendor = colon == std::string_view::npos ? "" : line.substr(colon + 1);
      while (!vendor.empty() && vendor.front() == ' ') vendor.remove_prefix(1);
      if (vendor == "GenuineIntel") return Vendor::kIntel;
      if (vendor == "AuthenticAMD" || vendor == "HygonGenuine") return Vendor::kAmd;
      return Error(
          ErrorCode::kUnsupported,
          fmt::format("{}: vendor_id '{}' has no known RAPL registers", cpuinfo.string(), vendor));
    }
    start = end + 1;
  }
  return invalid_input(cpuinfo.string(), "vendor_id", "", "no vendor_id line");
}

struct Counter {
  sysfs::OpenFile* file = nullptr;
  std::uint64_t register_address = 0;
  std::uint64_t offset = 0;  // register_address × the layout stride
  EnergyAccumulator accumulator;
};

struct MsrChannel {
  std::vector<Counter> counters;  // one, except AMD core: one per physical core
  double unit_j = 0.0;
  std::string read_error;
};

class RaplMsrSource final : public Source {
 public:
  RaplMsrSource(const SourceOptions& options, std::uint64_t offset_stride)
      : offset_stride_(offset_stride) {
    discover(options);
  }

  std::string_view name() const override { return kRaplMsrSourceName; }
  Availability availability() const override { return availability_; }
  const std::vector<Channel>& channels() const override { return channels_; }
  TimeNs default_period_ns() const override { return rapl::kDefaultPollPeriodNs; }
  std::string read_error(std::size_t channel) const override {
    return channel < msr_channels_.size() ? msr_channels_[channel].read_error : std::string();
  }

  void read(std::span<Reading> out) override {
    for (std::size_t i = 0; i < msr_channels_.size() && i < out.size(); ++i) {
      MsrChannel& channel = msr_channels_[i];
      Reading& reading = out[i];
      reading.t_ns = monotonic_now_ns();
      reading.ok = false;
      channel.read_error.clear();
      std::int64_t total_counts = 0;
      for (Counter& counter : channel.counters) {
        std::uint64_t value = 0;
        const Status status = counter.file->read_at(counter.offset, &value, sizeof value);
        if (!status) {
          channel.read_error =
              fmt::format("register {:#x}: {}", counter.register_address, status.error().message());
          break;
        }
        counter.accumulator.add(value & kEnergyFieldMask, reading.t_ns);
        total_counts += counter.accumulator.total();
      }
      if (!channel.read_error.empty()) continue;
      reading.value = static_cast<double>(total_counts) * channel.unit_j;
      reading.ok = true;
    }
  }

 private:
  Result<sysfs::OpenFile*> msr_file(const std::string& root, int cpu) {
    auto& slot = files_[cpu];
    if (!slot) {
      JP_TRY(auto file,
             sysfs::OpenFile::open(sysfs::under_root(root, fmt::format("/dev/cpu/{}/msr", cpu))));
      slot = std::make_unique<sysfs::OpenFile>(std::move(file));
    }
    return slot.get();
  }

  // The energy unit in joules from a unit register.
  Result<double> read_unit_j(sysfs::OpenFile& file, std::uint64_t unit_register) const {
    std::uint64_t value = 0;
    JP_RETURN_IF_ERROR(file.read_at(unit_register * offset_stride_, &value, sizeof value));
    const auto esu = static_cast<int>((value >> kEnergyUnitShift) & kEnergyUnitMask);
    return 1.0 / static_cast<double>(std::uint64_t{1} << esu);
  }

  // True when the register exists (reads without EIO); errors other than "not implemented".
  Result<bool> register_exists(sysfs::OpenFile& file, std::uint64_t address) const {
    std::uint64_t value = 0;
    const Status status = file.read_at(address * offset_stride_, &value, sizeof value);
    if (status) return true;
    if (status.error().code() == ErrorCode::kIo) return false;
    return status.error();
  }

  void fail(std::string reason, std::string fix) {
    availability_.reason = std::move(reason);
    availability_.fix = std::move(fix);
    msr_channels_.clear();
    channels_.clear();
  }

  void fail_on(const Error& error) {
    if (error.code() == ErrorCode::kPermissionDenied) {
      fail(error.message(), rapl::msr_permission_fix());
    } else if (error.code() == ErrorCode::kNotFound) {
      fail(fmt::format("{} (the msr driver is not loaded)", error.message()),
           "`sudo modprobe msr` (and run as root), or use the rapl-powercap or rapl-perf source");
    } else if (error.code() == ErrorCode::kIo) {
      fail(fmt::format("{}: this CPU (or the hypervisor) does not expose the RAPL registers",
                       error.message()),
           "try the rapl-perf or rapl-powercap source; virtual machines usually hide RAPL");
    } else {
      fail(error.message(), "try the rapl-powercap or rapl-perf source");
    }
  }

  void discover(const SourceOptions& options) {
    const std::string& root = options.sysfs_root;
    auto vendor = read_vendor(sysfs::under_root(root, "/proc/cpuinfo"));
    if (!vendor) return fail(vendor.error().message(), "");
    auto topology = read_cpu_topology(sysfs::under_root(root, "/sys/devices/system/cpu"));
    if (!topology) return fail(topology.error().message(), "");

    std::optional<double> dram_unit_override;
    if (const auto it = options.settings.find(std::string(kDramUnitSetting));
        it != options.settings.end()) {
      const std::optional<double> unit = to_number(it->second);
      if (!unit || !(*unit > 0.0)) {
        return fail(invalid_input("settings", kDramUnitSetting, it->second,
                                  "expected a positive number of joules per count")
                        .message(),
                    "");
      }
      dram_unit_override = *unit;
    }

    // Lead CPU of each package (the lowest-numbered), and for AMD one CPU per physical core.
    std::map<int, int> lead_cpu;
    std::map<int, std::vector<int>> core_cpus;
    std::set<std::pair<int, int>> seen_cores;
    for (const CpuTopology& cpu : *topology) {
      if (!lead_cpu.count(cpu.package)) lead_cpu[cpu.package] = cpu.cpu;
      if (seen_cores.insert({cpu.package, cpu.core}).second)
        core_cpus[cpu.package].push_back(cpu.cpu);
    }

    const bool intel = *vendor == Vendor::kIntel;
    for (const auto& [package, cpu] : lead_cpu) {
      auto file = msr_file(root, cpu);
      if (!file) return fail_on(file.error());
      auto unit_j = read_unit_j(**file, intel ? kIntelUnitRegister : kAmdUnitRegister);
      if (!unit_j) return fail_on(unit_j.error());
      const std::string package_id = rapl::package_channel_id(kRaplMsrChannelPrefix, package);

      struct Register {
        rapl::Domain domain;
        std::uint64_t address;
      };
      std::vector<Register> registers;
      if (intel) {
        registers = {{rapl::Domain::kPackage, kIntelPackageRegister},
                     {rapl::Domain::kCore, kIntelPp0Register},
                     {rapl::Domain::kUncore, kIntelPp1Register},
                     {rapl::Domain::kDram, kIntelDramRegister}};
      } else {
        registers = {{rapl::Domain::kPackage, kAmdPackageRegister},
                     {rapl::Domain::kCore, kAmdCoreRegister}};
      }
      for (const Register& reg : registers) {
        auto exists = register_exists(**file, reg.address);
        if (!exists) return fail_on(exists.error());
        if (!*exists) {
          if (reg.domain == rapl::Domain::kPackage) {
            return fail_on(
                Error(ErrorCode::kIo, fmt::format("{}: package energy register {:#x} "
                                                  "cannot be read",
                                                  (*file)->path().string(), reg.address)));
          }
          continue;
        }
        MsrChannel channel;
        channel.unit_j =
            reg.domain == rapl::Domain::kDram && dram_unit_override ? *dram_unit_override : *unit_j;
        std::vector<int> counter_cpus{cpu};
        if (!intel && reg.domain == rapl::Domain::kCore) counter_cpus = core_cpus[package];
        for (int counter_cpu : counter_cpus) {
          auto counter_file = msr_file(root, counter_cpu);
          if (!counter_file) return fail_on(counter_file.error());
          Counter counter;
          counter.file = *counter_file;
          counter.register_address = reg.address;
          counter.offset = reg.address * offset_stride_;
          counter.accumulator = EnergyAccumulator(kEnergyFieldModulus, channel.unit_j,
                                                  power_ceiling(rapl::domain_name(reg.domain)));
          channel.counters.push_back(std::move(counter));
        }
        const bool is_package = reg.domain == rapl::Domain::kPackage;
        std::string detail = fmt::format(
            "MSR {:#x} on {} (32-bit counter × {} J{})", reg.address,
            counter_cpus.size() == 1
                ? fmt::format("cpu {}", cpu)
                : fmt::format("cpus {} (sum of every core)", fmt::join(counter_cpus, ",")),
            channel.unit_j,
            reg.domain == rapl::Domain::kDram && dram_unit_override
                ? ", unit from settings"
                : ", unit from the unit register");
        channels_.push_back(rapl::make_channel(
            is_package ? package_id
                       : rapl::sub_domain_channel_id(kRaplMsrChannelPrefix, package, reg.domain),
            kRaplMsrSourceName, rapl::device_name(package, reg.domain),
            rapl::domain_name(reg.domain), std::move(detail),
            is_package ? std::string() : package_id));
        msr_channels_.push_back(std::move(channel));
      }
    }
    availability_.available = true;
  }

  std::uint64_t offset_stride_;
  Availability availability_;
  std::map<int, std::unique_ptr<sysfs::OpenFile>> files_;
  std::vector<MsrChannel> msr_channels_;
  std::vector<Channel> channels_;
};

}  // namespace

std::unique_ptr<Source> make_rapl_msr_source(const SourceOptions& options,
                                             std::uint64_t offset_stride) {
  return std::make_unique<RaplMsrSource>(options, offset_stride);
}

std::unique_ptr<Source> make_rapl_msr_source(const SourceOptions& options) {
  return make_rapl_msr_source(options, kMsrDeviceOffsetStride);
}

std::span<const std::string_view> rapl_msr_settings() {
  static constexpr std::array<std::string_view, 1> kNames{kDramUnitSetting};
  return kNames;
}

}  // namespace jouleprof
