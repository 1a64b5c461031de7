// Read latency of each hardware backend on fake trees: the cost of one read() of every channel,
// which is what the sampler pays per poll. Fake sysfs files live in a temporary directory on the
// local disk (page cache), so these figures are the backend's own overhead plus one pread per
// file; real sysfs adds the driver's work (an MSR read, an IPI to another socket, the NVML
// driver round trip of ~4 ms for the H200 energy counter).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "sources/backends.hpp"
#include "sources/rapl_msr.hpp"
#include "sources/rapl_perf.hpp"

namespace jouleprof {
namespace {

class FakeTree {
 public:
  FakeTree() {
    std::random_device random;
    root_ =
        std::filesystem::temp_directory_path() / ("jouleprof-bench-" + std::to_string(random()));
    std::filesystem::create_directories(root_);
  }
  ~FakeTree() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  FakeTree(const FakeTree&) = delete;
  FakeTree& operator=(const FakeTree&) = delete;

  void write(const std::string& relative, const std::string& content) const {
    const auto path = root_ / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << content << "\n";
  }
  void write_register(int cpu, std::uint64_t offset, std::uint64_t value) const {
    const auto path = root_ / "dev/cpu" / std::to_string(cpu) / "msr";
    std::filesystem::create_directories(path.parent_path());
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 || ::pwrite(fd, &value, sizeof value, static_cast<off_t>(offset)) != sizeof value) {
      std::abort();
    }
    ::close(fd);
  }
  SourceOptions options() const {
    SourceOptions options;
    options.sysfs_root = root_.string();
    return options;
  }

 private:
  std::filesystem::path root_;
};

void read_loop(benchmark::State& state, Source& source) {
  if (!source.availability().available) {
    state.SkipWithError(source.availability().reason.c_str());
    return;
  }
  std::vector<Reading> readings(source.channels().size());
  for (auto _ : state) {
    source.read(readings);
    benchmark::DoNotOptimize(readings.data());
  }
  state.counters["channels"] = static_cast<double>(readings.size());
  state.counters["per_channel"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * static_cast<double>(readings.size()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_RaplPowercapRead(benchmark::State& state) {
  FakeTree tree;
  const auto zone = [&](const std::string& dir, const std::string& name) {
    tree.write("sys/class/powercap/" + dir + "/name", name);
    tree.write("sys/class/powercap/" + dir + "/energy_uj", "123456789");
    tree.write("sys/class/powercap/" + dir + "/max_energy_range_uj", "262143328850");
  };
  for (int socket = 0; socket < 2; ++socket) {
    const std::string package = "intel-rapl:" + std::to_string(socket);
    zone(package, "package-" + std::to_string(socket));
    zone(package + ":0", "core");
    zone(package + ":1", "dram");
  }
  zone("intel-rapl:2", "psys");
  auto source = make_rapl_powercap_source(tree.options());
  read_loop(state, *source);
}
BENCHMARK(BM_RaplPowercapRead);

// perf_event_open cannot run on a fake tree: this measures the backend's bookkeeping around a
// read() that a fake returns at once (the real read is one syscall per event).
class InstantPerfEvents final : public PerfEventSyscalls {
 public:
  int open_event(std::uint32_t, std::uint64_t, int) override { return next_fd_++; }
  int read_count(int, std::uint64_t* count) override {
    *count = count_ += 4096;
    return 0;
  }
  void close_event(int) override {}

 private:
  int next_fd_ = 100;
  std::uint64_t count_ = 0;
};

void BM_RaplPerfReadBookkeeping(benchmark::State& state) {
  FakeTree tree;
  const std::string pmu = "sys/bus/event_source/devices/power/";
  tree.write(pmu + "type", "21");
  tree.write(pmu + "cpumask", "0,18");
  tree.write(pmu + "format/event", "config:0-7");
  for (const auto& [name, config] :
       {std::pair{"energy-pkg", "event=0x02"}, std::pair{"energy-cores", "event=0x01"},
        std::pair{"energy-ram", "event=0x03"}}) {
    tree.write(pmu + "events/" + name, config);
    tree.write(pmu + "events/" + name + ".scale", "2.3283064365386962890625e-10");
    tree.write(pmu + "events/" + name + ".unit", "Joules");
  }
  auto source = make_rapl_perf_source(tree.options(), std::make_unique<InstantPerfEvents>());
  read_loop(state, *source);
}
BENCHMARK(BM_RaplPerfReadBookkeeping);

void BM_RaplMsrRead(benchmark::State& state) {
  FakeTree tree;
  constexpr std::uint64_t kStride = 8;  // see rapl_msr.hpp: fake files at stride 8
  tree.write("proc/cpuinfo", "vendor_id\t: GenuineIntel");
  for (int socket = 0; socket < 2; ++socket) {
    const int cpu = socket * 2;
    for (int thread = 0; thread < 2; ++thread) {
      const std::string topology =
          "sys/devices/system/cpu/cpu" + std::to_string(cpu + thread) + "/topology/";
      tree.write(topology + "physical_package_id", std::to_string(socket));
      tree.write(topology + "core_id", std::to_string(thread));
    }
    tree.write_register(cpu, 0x606 * kStride, 0xA0E03);
    tree.write_register(cpu, 0x611 * kStride, 1000);
    tree.write_register(cpu, 0x619 * kStride, 1000);
    tree.write_register(cpu, 0x639 * kStride, 1000);
  }
  auto source = make_rapl_msr_source(tree.options(), kStride);
  read_loop(state, *source);
}
BENCHMARK(BM_RaplMsrRead);

void BM_NvmlReadFakeLibrary(benchmark::State& state) {
#ifdef FAKE_NVML_PATH
  ::setenv("JOULEPROF_NVML_LIBRARY", FAKE_NVML_PATH, 1);
  ::setenv("FAKE_NVML_SCENARIO", "two_gpus", 1);
  auto source = make_nvml_source(SourceOptions{});
  read_loop(state, *source);
#else
  state.SkipWithError("fake NVML library not built (configure with JOULEPROF_BUILD_TESTS=ON)");
#endif
}
BENCHMARK(BM_NvmlReadFakeLibrary);

void BM_HwmonReadJetsonRails(benchmark::State& state) {
  FakeTree tree;
  const std::string chip = "sys/class/hwmon/hwmon1/";
  tree.write(chip + "name", "ina3221");
  const char* labels[] = {"VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"};
  for (int rail = 1; rail <= 3; ++rail) {
    const std::string n = std::to_string(rail);
    tree.write(chip + "in" + n + "_label", labels[rail - 1]);
    tree.write(chip + "in" + n + "_input", "5000");
    tree.write(chip + "curr" + n + "_input", "1200");
  }
  auto source = make_hwmon_source(tree.options());
  read_loop(state, *source);
}
BENCHMARK(BM_HwmonReadJetsonRails);

void BM_HwmonReadPowerInputs(benchmark::State& state) {
  FakeTree tree;
  const std::string chip = "sys/class/hwmon/hwmon3/";
  tree.write(chip + "name", "ina3221");
  for (int rail = 1; rail <= 3; ++rail) {
    tree.write(chip + "power" + std::to_string(rail) + "_input", "7250000");
  }
  auto source = make_hwmon_source(tree.options());
  read_loop(state, *source);
}
BENCHMARK(BM_HwmonReadPowerInputs);

void BM_PowerSupplyRead(benchmark::State& state) {
  FakeTree tree;
  const std::string battery = "sys/class/power_supply/BAT0/";
  tree.write(battery + "type", "Battery");
  tree.write(battery + "status", "Discharging");
  tree.write(battery + "power_now", "12500000");
  tree.write(battery + "energy_now", "50000000");
  auto source = make_power_supply_source(tree.options());
  read_loop(state, *source);
}
BENCHMARK(BM_PowerSupplyRead);

// The process source on a fake /proc of N processes without `children` files: every read scans
// them all (the fallback for kernels without CONFIG_PROC_CHILDREN); the observed tree is 4 of them.
void BM_ProcessSourceFullScan(benchmark::State& state) {
  FakeTree tree;
  tree.write("proc/stat", "cpu  100 0 0 900 0 0 0 0 0 0\ncpu0 100 0 0 900 0 0 0 0 0 0");
  const auto n = static_cast<int>(state.range(0));
  for (int pid = 100; pid < 100 + n; ++pid) {
    const int ppid = pid < 104 ? (pid == 100 ? 1 : 100) : 1;
    tree.write("proc/" + std::to_string(pid) + "/stat",
               std::to_string(pid) + " (worker) S " + std::to_string(ppid) +
                   " 1 1 0 -1 0 0 0 0 0 25 5 0 0 20 0 1 0 1000 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
                   "0 0 0 0 0 0 0 0 0 0 0 0 0 0");
  }
  SourceOptions options = tree.options();
  options.observed = ObservedProcesses::process_tree(100);
  auto source = make_process_activity_source(options);
  read_loop(state, *source);
}
BENCHMARK(BM_ProcessSourceFullScan)->Arg(100)->Arg(1000);

// The process source on this machine's real /proc, observing this benchmark's own process (its
// tree is found through the kernel's `children` files), with and without a channel per thread.
void BM_ProcessSourceRealProcSelf(benchmark::State& state) {
  SourceOptions options;
  options.observed = ObservedProcesses::process_tree(getpid());
  if (state.range(0) != 0) options.settings["processes.threads"] = "1";
  auto source = make_process_activity_source(options);
  read_loop(state, *source);
}
BENCHMARK(BM_ProcessSourceRealProcSelf)->Arg(0)->Arg(1);

}  // namespace
}  // namespace jouleprof

BENCHMARK_MAIN();
