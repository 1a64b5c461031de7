// The process source: CPU time of the observed processes (a process tree through /proc, or a
// cgroup-v2 group through its cpu.stat) and of all CPUs (/proc/stat), as busy-time channels.
#include "sources/process_activity.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "core/parse.hpp"
#include "jouleprof/source.hpp"
#include "sources/backends.hpp"
#include "sources/cpu_topology.hpp"
#include "sources/proc_stat.hpp"
#include "sources/setting_values.hpp"
#include "sources/sysfs_file.hpp"

namespace jouleprof {
namespace process_activity {

Result<TaskStat> parse_task_stat(std::string_view text, std::string_view path) {
  TaskStat stat;
  const std::size_t open = text.find('(');
  const std::size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return invalid_input(path, "comm", std::string(text.substr(0, 64)),
                         "no '(comm)' after the pid");
  }
  const auto number = [&](std::string_view token, std::string_view field, auto& out) -> Status {
    const auto value = to_integer<std::remove_reference_t<decltype(out)>>(token);
    if (!value) return invalid_input(path, field, std::string(token), "not a number");
    out = *value;
    return Status::Ok();
  };
  JP_RETURN_IF_ERROR(number(trim_ascii_space(text.substr(0, open)), "pid", stat.pid));

  // Fields after comm, numbered as in proc(5): 3 state, 4 ppid, 14 utime, 15 stime, 16 cutime,
  // 17 cstime, 22 starttime, 39 processor.
  std::vector<std::string_view> fields;
  std::size_t at = close + 1;
  while (at < text.size() && fields.size() < 37) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\n')) ++at;
    if (at >= text.size()) break;
    std::size_t end = text.find_first_of(" \n", at);
    if (end == std::string_view::npos) end = text.size();
    fields.push_back(text.substr(at, end - at));
    at = end;
  }
  const auto field = [&](std::size_t number_in_proc5) { return fields[number_in_proc5 - 3]; };
  if (fields.size() < 20) {
    return invalid_input(path, "fields", std::to_string(fields.size() + 2),
                         "fewer than the 22 fields up to starttime");
  }
  if (field(3).size() != 1)
    return invalid_input(path, "state", std::string(field(3)), "not one letter");
  stat.state = field(3)[0];
  JP_RETURN_IF_ERROR(number(field(4), "ppid", stat.ppid));
  JP_RETURN_IF_ERROR(number(field(14), "utime", stat.utime));
  JP_RETURN_IF_ERROR(number(field(15), "stime", stat.stime));
  JP_RETURN_IF_ERROR(number(field(16), "cutime", stat.cutime));
  JP_RETURN_IF_ERROR(number(field(17), "cstime", stat.cstime));
  JP_RETURN_IF_ERROR(number(field(22), "starttime", stat.start_time));
  if (fields.size() >= 37) JP_RETURN_IF_ERROR(number(field(39), "processor", stat.processor));
  return stat;
}

Result<std::uint64_t> parse_cgroup_usage_usec(std::string_view text, std::string_view path) {
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    constexpr std::string_view kKey = "usage_usec ";
    if (line.substr(0, kKey.size()) != kKey) continue;
    const std::string_view value = line.substr(kKey.size());
    if (const std::optional<std::uint64_t> usec = to_uint64(value)) return *usec;
    return invalid_input(path, "usage_usec", std::string(value), "not a number of µs");
  }
  return invalid_input(path, "usage_usec", "", "missing (not a cgroup-v2 cpu.stat?)");
}

std::uint64_t TreeCpuTime::update(pid_t root, const std::vector<TaskStat>& processes) {
  std::map<pid_t, const TaskStat*> now;
  for (const TaskStat& p : processes) now[p.pid] = &p;
  const auto alive = [&](pid_t pid, const Member& m) {
    const auto it = now.find(pid);
    return it != now.end() && it->second->start_time == m.start_time;
  };

  // Remembered members that still run, then every process whose parent is one (to a fixpoint:
  // children may be listed before their parents).
  std::set<pid_t> live;
  for (const auto& [pid, m] : members_) {
    if (alive(pid, m)) live.insert(pid);
  }
  if (root > 0 && members_.count(root) == 0 && now.count(root) > 0) {
    members_[root] = Member{now[root]->start_time, now[root]->ppid, 0};
    ever_.push_back(root);
    live.insert(root);
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (const TaskStat& p : processes) {
      if (live.count(p.pid) > 0 || live.count(p.ppid) == 0) continue;
      if (const auto old = members_.find(p.pid); old != members_.end()) {
        // A reused pid: the old member ended; handled with the vanished ones below.
        if (old->second.start_time != p.start_time) continue;
      }
      members_[p.pid] = Member{p.start_time, p.ppid, 0};
      ever_.push_back(p.pid);
      live.insert(p.pid);
      grew = true;
    }
  }

  // Members that ended: a live member reaped them (their ticks are in its cutime/cstime now), or
  // someone outside the tree did, and their last-seen ticks would be lost without `retired_`.
  for (auto it = members_.begin(); it != members_.end();) {
    if (live.count(it->first) > 0) {
      ++it;
      continue;
    }
    if (live.count(it->second.ppid) == 0) retired_ += it->second.ticks;
    it = members_.erase(it);
  }

  std::uint64_t total = retired_;
  for (pid_t pid : live) {
    Member& m = members_[pid];
    m.ppid = now[pid]->ppid;
    m.ticks = now[pid]->total_ticks();
    total += m.ticks;
  }
  std::sort(ever_.begin(), ever_.end());
  ever_.erase(std::unique(ever_.begin(), ever_.end()), ever_.end());
  last_ = std::max(last_, total);
  return last_;
}

std::vector<pid_t> TreeCpuTime::live_members() const {
  std::vector<pid_t> out;
  out.reserve(members_.size());
  for (const auto& [pid, m] : members_) out.push_back(pid);
  return out;
}

}  // namespace process_activity

namespace {

using process_activity::TaskStat;
using process_activity::TreeCpuTime;

constexpr std::string_view kProcessActivitySourceName = process_activity::kSourceName;
constexpr const char* kProcessesPollPeriodSetting = "processes.poll_period_ms";
constexpr const char* kProcessesThreadsSetting = "processes.threads";
constexpr TimeNs kProcessActivityDefaultPollPeriodNs = 100 * kNsPerMs;

bool is_pid_name(std::string_view name) {
  return !name.empty() && name.find_first_not_of("0123456789") == std::string_view::npos;
}

pid_t to_pid(std::string_view name) { return to_integer<pid_t>(name).value_or(0); }

// A stat file that vanished (the process ended between listing and reading) is no error.
Result<std::optional<TaskStat>> read_stat(const std::filesystem::path& path) {
  Result<std::string> text = sysfs::read_text(path);
  if (!text) {
    if (text.error().code() == ErrorCode::kNotFound) return std::optional<TaskStat>();
    return text.error();
  }
  JP_TRY(TaskStat stat, process_activity::parse_task_stat(*text, path.string()));
  return std::optional<TaskStat>(stat);
}

struct PackageTicks {
  int package = 0;
  double observed_s = 0.0;
  double busy_s = 0.0;
  double idle_s = 0.0;
};

struct ThreadState {
  std::uint64_t ticks = 0;
  int processor = -1;
  std::size_t channel = 0;  // 0: no channel of its own
};

class ProcessActivitySource final : public Source {
 public:
  ProcessActivitySource(std::string root, std::shared_ptr<ObservedProcesses> observed)
      : root_(std::move(root)), observed_(std::move(observed)) {}

  Status configure(const SourceOptions& options) {
    const long ticks_per_s = sysconf(_SC_CLK_TCK);
    ticks_per_s_ = ticks_per_s > 0 ? static_cast<double>(ticks_per_s) : 100.0;
    JP_TRY(const double poll_ms,
           setting_number(options.settings, kProcessesPollPeriodSetting,
                          ns_to_s(kProcessActivityDefaultPollPeriodNs) * 1e3, 1.0, 60000.0));
    JP_TRY(const double threads,
           setting_number(options.settings, kProcessesThreadsSetting, 0.0, 0.0, 1.0));
    period_ns_ = s_to_ns(poll_ms * 1e-3);
    threads_ = threads > 0.5;

    stat_path_ = sysfs::under_root(root_, "/proc/stat");
    JP_TRY(const std::string stat_text, sysfs::read_text(stat_path_));
    JP_TRY(const CpuTimes totals, parse_proc_stat(stat_text, stat_path_.string()));
    (void)totals;
    if (Result<std::vector<CpuTopology>> topology =
            read_cpu_topology(sysfs::under_root(root_, "/sys/devices/system/cpu"))) {
      for (const CpuTopology& cpu : *topology) {
        if (cpu.cpu >= static_cast<int>(package_of_cpu_.size()))
          package_of_cpu_.resize(static_cast<std::size_t>(cpu.cpu) + 1, -1);
        package_of_cpu_[static_cast<std::size_t>(cpu.cpu)] = cpu.package;
      }
    }
    std::set<int> packages(package_of_cpu_.begin(), package_of_cpu_.end());
    packages.erase(-1);
    const bool per_package = packages.size() > 1;

    if (observed_->kind() == ObservedProcesses::Kind::kCgroup) {
      std::string path = observed_->cgroup_path();
      if (path.rfind("/sys/fs/cgroup", 0) != 0) path = "/sys/fs/cgroup/" + path;
      cgroup_dir_ = sysfs::under_root(root_, path);
      JP_TRY(const std::string cpu_stat, sysfs::read_text(cgroup_dir_ / "cpu.stat"));
      JP_TRY(const std::uint64_t usec, process_activity::parse_cgroup_usage_usec(
                                           cpu_stat, (cgroup_dir_ / "cpu.stat").string()));
      (void)usec;
    }

    const std::string ticks = fmt::format("clock ticks of 1/{:g} s", ticks_per_s_);
    const std::string observed_detail =
        cgroup_dir_.empty()
            ? fmt::format(
                  "CPU time of the observed process tree: utime + stime + cutime + cstime of "
                  "every live member from /proc/<pid>/stat, plus the last-seen time of members "
                  "reaped outside the tree, in {}",
                  ticks)
            : fmt::format("CPU time of the observed cgroup: usage_usec of {}",
                          (cgroup_dir_ / "cpu.stat").string());
    const std::string busy_detail =
        fmt::format("busy time of all CPUs: user + nice + system + irq + softirq of {} in {}",
                    stat_path_.string(), ticks);
    const std::string idle_detail =
        fmt::format("idle time of all CPUs: idle + iowait of {} in {}", stat_path_.string(), ticks);
    add_triple("cpu", observed_detail, busy_detail, idle_detail);
    if (per_package) {
      for (int package : packages) {
        const std::string device = fmt::format("cpu{}", package);
        const std::string on = fmt::format(" (package {})", package);
        // A cgroup's usage is not split by CPU: its per-package shares fall back to the whole
        // CPU's (docs/sharing.md).
        add_triple(device,
                   cgroup_dir_.empty()
                       ? observed_detail + on +
                             "; each thread's time counts on the package of the CPU it last ran "
                             "on (task stat field 39), the time of ended threads and reaped "
                             "children in proportion"
                       : std::string(),
                   busy_detail + on, idle_detail + on);
        packages_.push_back(PackageTicks{package, 0.0, 0.0, 0.0});
      }
    }
    values_.assign(channels_.size(), 0.0);
    errors_.assign(channels_.size(), "");
    return Status::Ok();
  }

  std::string_view name() const override { return kProcessActivitySourceName; }
  Availability availability() const override { return availability_; }
  const std::vector<Channel>& channels() const override { return channels_; }
  TimeNs default_period_ns() const override { return period_ns_; }
  std::string read_error(std::size_t channel) const override {
    return channel < errors_.size() ? errors_[channel] : std::string();
  }

  void read(std::span<Reading> out) override {
    const TimeNs now = monotonic_now_ns();
    std::fill(errors_.begin(), errors_.end(), std::string());
    read_machine();
    read_observed();
    for (std::size_t i = 0; i < out.size() && i < values_.size(); ++i) {
      out[i] = Reading{now, values_[i], errors_[i].empty()};
    }
  }

  void fail(const Error& error) {
    channels_.clear();
    values_.clear();
    errors_.clear();
    availability_.available = false;
    availability_.reason = error.message();
    availability_.fix = observed_->kind() == ObservedProcesses::Kind::kCgroup
                            ? "name a cgroup-v2 group: its directory under /sys/fs/cgroup, or its "
                              "path as /proc/PID/cgroup shows it"
                            : "per-process figures need Linux's /proc";
  }

 private:
  void add_triple(const std::string& device, const std::string& observed_detail,
                  const std::string& busy_detail, const std::string& idle_detail) {
    const auto add = [&](std::string_view domain, const std::string& detail) {
      Channel c;
      c.id = fmt::format("{}:{}:{}", kProcessActivitySourceName, device, domain);
      c.source = std::string(kProcessActivitySourceName);
      c.device = device;
      c.domain = std::string(domain);
      c.kind = ChannelKind::kBusyTime;
      c.provenance = Provenance::kMeasured;
      c.provenance_detail = detail;
      c.nominal_period_ns = static_cast<TimeNs>(static_cast<double>(kNsPerS) / ticks_per_s_);
      channels_.push_back(std::move(c));
    };
    if (!observed_detail.empty()) add("cpu-time", observed_detail);
    add("busy", busy_detail);
    add("idle", idle_detail);
  }

  std::size_t index_of(std::string_view device, std::string_view domain) const {
    for (std::size_t i = 0; i < channels_.size(); ++i) {
      if (channels_[i].device == device && channels_[i].domain == domain) return i;
    }
    return channels_.size();
  }

  void set(std::string_view device, std::string_view domain, double value) {
    const std::size_t i = index_of(device, domain);
    if (i < values_.size()) values_[i] = value;
  }

  void set_error(std::string_view domain, const std::string& error) {
    for (std::size_t i = 0; i < channels_.size(); ++i) {
      if (channels_[i].domain == domain) errors_[i] = error;
    }
  }

  void read_machine() {
    Result<std::string> text = sysfs::read_text(stat_path_);
    Result<std::vector<CpuTicks>> cpus = text ? parse_proc_stat_per_cpu(*text, stat_path_.string())
                                              : Result<std::vector<CpuTicks>>(text.error());
    Result<CpuTimes> totals =
        text ? parse_proc_stat(*text, stat_path_.string()) : Result<CpuTimes>(text.error());
    if (!cpus || !totals) {
      const std::string why = !cpus ? cpus.error().message() : totals.error().message();
      set_error("busy", why);
      set_error("idle", why);
      return;
    }
    set("cpu", "busy", static_cast<double>(totals->busy) / ticks_per_s_);
    set("cpu", "idle", static_cast<double>(totals->idle) / ticks_per_s_);
    for (PackageTicks& p : packages_) {
      std::uint64_t busy = 0;
      std::uint64_t idle = 0;
      for (const CpuTicks& c : *cpus) {
        if (package_of(c.cpu) != p.package) continue;
        busy += c.busy;
        idle += c.idle;
      }
      const std::string device = fmt::format("cpu{}", p.package);
      set(device, "busy", static_cast<double>(busy) / ticks_per_s_);
      set(device, "idle", static_cast<double>(idle) / ticks_per_s_);
    }
  }

  int package_of(int cpu) const {
    return cpu >= 0 && cpu < static_cast<int>(package_of_cpu_.size())
               ? package_of_cpu_[static_cast<std::size_t>(cpu)]
               : -1;
  }

  void read_observed() {
    if (!cgroup_dir_.empty()) {
      read_cgroup();
      return;
    }
    const pid_t root = observed_->root();
    if (root <= 0) return;  // nothing started yet: nothing observed
    Result<std::vector<TaskStat>> candidates = tree_candidates(root);
    if (!candidates) {
      set_error("cpu-time", candidates.error().message());
      return;
    }
    const std::uint64_t before = tree_.ticks();
    const std::uint64_t after = tree_.update(root, *candidates);
    set("cpu", "cpu-time", static_cast<double>(after) / ticks_per_s_);
    observed_->publish(tree_.all_members());
    if (threads_ || !packages_.empty()) read_threads(after - before);
  }

  // The processes that may be in the tree: through the members' `children` files where the
  // kernel has them (cost grows with the tree, not the machine), else every process in /proc.
  Result<std::vector<TaskStat>> tree_candidates(pid_t root) {
    const std::filesystem::path proc = sysfs::under_root(root_, "/proc");
    std::vector<TaskStat> out;
    std::vector<pid_t> start = tree_.live_members();
    start.push_back(root);
    const auto children_file = [&](pid_t pid) {
      return proc / std::to_string(pid) / "task" / std::to_string(pid) / "children";
    };
    if (std::filesystem::exists(children_file(root))) {
      std::set<pid_t> seen;
      std::deque<pid_t> queue(start.begin(), start.end());
      while (!queue.empty()) {
        const pid_t pid = queue.front();
        queue.pop_front();
        if (!seen.insert(pid).second) continue;
        JP_TRY(const std::optional<TaskStat> stat, read_stat(proc / std::to_string(pid) / "stat"));
        if (!stat) continue;
        out.push_back(*stat);
        Result<std::vector<std::string>> tasks =
            sysfs::list_directory(proc / std::to_string(pid) / "task");
        if (!tasks) continue;
        for (const std::string& tid : *tasks) {
          Result<std::string> children =
              sysfs::read_text(proc / std::to_string(pid) / "task" / tid / "children");
          if (!children) continue;
          std::size_t at = 0;
          while (at < children->size()) {
            std::size_t end = children->find(' ', at);
            if (end == std::string::npos) end = children->size();
            const std::string_view child = std::string_view(*children).substr(at, end - at);
            if (is_pid_name(child)) queue.push_back(to_pid(child));
            at = end + 1;
          }
        }
      }
      std::sort(out.begin(), out.end(),
                [](const TaskStat& a, const TaskStat& b) { return a.pid < b.pid; });
      return out;
    }
    JP_TRY(const std::vector<std::string> entries, sysfs::list_directory(proc));
    for (const std::string& entry : entries) {
      if (!is_pid_name(entry)) continue;
      JP_TRY(const std::optional<TaskStat> stat, read_stat(proc / entry / "stat"));
      if (stat) out.push_back(*stat);
    }
    return out;
  }

  // Per-thread CPU time: channels of their own (processes.threads) and the per-package split.
  void read_threads(std::uint64_t tree_delta_ticks) {
    const std::filesystem::path proc = sysfs::under_root(root_, "/proc");
    std::map<int, std::uint64_t> package_delta;
    std::uint64_t placed = 0;
    std::map<pid_t, ThreadState> seen;
    for (pid_t pid : tree_.live_members()) {
      Result<std::vector<std::string>> tasks =
          sysfs::list_directory(proc / std::to_string(pid) / "task");
      if (!tasks) continue;
      for (const std::string& tid_name : *tasks) {
        if (!is_pid_name(tid_name)) continue;
        Result<std::optional<TaskStat>> stat =
            read_stat(proc / std::to_string(pid) / "task" / tid_name / "stat");
        if (!stat || !*stat) continue;
        const pid_t tid = to_pid(tid_name);
        ThreadState state;
        state.ticks = (*stat)->own_ticks();
        state.processor = (*stat)->processor;
        if (const auto old = threads_seen_.find(tid);
            old != threads_seen_.end() && package_of(state.processor) >= 0) {
          const std::uint64_t delta = state.ticks - std::min(state.ticks, old->second.ticks);
          package_delta[package_of(state.processor)] += delta;
          placed += delta;
        }
        if (const auto known = thread_channel_.find(tid); known != thread_channel_.end())
          state.channel = known->second;  // a thread id seen before keeps its channel
        if (threads_ && state.channel == 0 &&
            thread_channels_ < process_activity::kMaxThreadChannels)
          state.channel = add_thread_channel(tid);
        if (state.channel != 0)
          values_[state.channel] = static_cast<double>(state.ticks) / ticks_per_s_;
        seen[tid] = state;
      }
    }
    threads_seen_ = std::move(seen);
    if (packages_.empty()) return;
    // Ended threads and reaped children leave time no live thread accounts for: spread it like
    // the time that was placed (equally when none was).
    const double rest =
        tree_delta_ticks > placed ? static_cast<double>(tree_delta_ticks - placed) : 0.0;
    for (PackageTicks& p : packages_) {
      const double mine = static_cast<double>(package_delta[p.package]);
      const double share = placed > 0 ? mine / static_cast<double>(placed)
                                      : 1.0 / static_cast<double>(packages_.size());
      p.observed_s += (mine + rest * share) / ticks_per_s_;
      set(fmt::format("cpu{}", p.package), "cpu-time", p.observed_s);
    }
  }

  std::size_t add_thread_channel(pid_t tid) {
    Channel c;
    c.id = fmt::format("{}:thread:{}", kProcessActivitySourceName, tid);
    c.source = std::string(kProcessActivitySourceName);
    c.device = "cpu";
    c.domain = "thread";
    c.kind = ChannelKind::kBusyTime;
    c.provenance = Provenance::kMeasured;
    c.provenance_detail = fmt::format(
        "CPU time of thread {} of the observed processes: utime + stime of "
        "/proc/<pid>/task/{}/stat",
        tid, tid);
    c.nominal_period_ns = channels_.front().nominal_period_ns;
    channels_.push_back(std::move(c));
    values_.push_back(0.0);
    errors_.emplace_back();
    ++thread_channels_;
    thread_channel_[tid] = channels_.size() - 1;
    return channels_.size() - 1;
  }

  void read_cgroup() {
    const std::filesystem::path file = cgroup_dir_ / "cpu.stat";
    Result<std::string> text = sysfs::read_text(file);
    Result<std::uint64_t> usec =
        text ? process_activity::parse_cgroup_usage_usec(*text, file.string())
             : Result<std::uint64_t>(text.error());
    if (!usec) {
      set_error("cpu-time", usec.error().message() + " (was the group removed?)");
      return;
    }
    set("cpu", "cpu-time", static_cast<double>(*usec) * 1e-6);
    std::vector<pid_t> members;
    collect_cgroup_procs(cgroup_dir_, members, 0);
    observed_->publish(members);
  }

  // cgroup.procs of the group and its sub-groups (cgroup v2 keeps processes in the leaves).
  static void collect_cgroup_procs(const std::filesystem::path& dir, std::vector<pid_t>& out,
                                   int depth) {
    constexpr int kMaxDepth = 32;
    if (depth > kMaxDepth) return;
    if (Result<std::string> procs = sysfs::read_text(dir / "cgroup.procs")) {
      std::size_t at = 0;
      while (at < procs->size()) {
        std::size_t end = procs->find('\n', at);
        if (end == std::string::npos) end = procs->size();
        const std::string_view line = std::string_view(*procs).substr(at, end - at);
        if (is_pid_name(line)) out.push_back(to_pid(line));
        at = end + 1;
      }
    }
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.is_directory(ec)) collect_cgroup_procs(entry.path(), out, depth + 1);
    }
  }

  std::string root_;
  std::shared_ptr<ObservedProcesses> observed_;
  Availability availability_{true, "", ""};
  std::vector<Channel> channels_;
  std::vector<double> values_;
  std::vector<std::string> errors_;
  double ticks_per_s_ = 100.0;
  TimeNs period_ns_ = kProcessActivityDefaultPollPeriodNs;
  bool threads_ = false;
  std::filesystem::path stat_path_;
  std::filesystem::path cgroup_dir_;
  std::vector<int> package_of_cpu_;
  std::vector<PackageTicks> packages_;
  TreeCpuTime tree_;
  std::map<pid_t, ThreadState> threads_seen_;
  std::map<pid_t, std::size_t> thread_channel_;  // every thread that got a channel
  std::size_t thread_channels_ = 0;
};

}  // namespace

std::unique_ptr<Source> make_process_activity_source(const SourceOptions& options) {
  std::shared_ptr<ObservedProcesses> observed =
      options.observed ? options.observed : ObservedProcesses::process_tree(0);
  auto source = std::make_unique<ProcessActivitySource>(
      options.sysfs_root.empty() ? std::string("/") : options.sysfs_root, std::move(observed));
  if (Status configured = source->configure(options); !configured) source->fail(configured.error());
  return source;
}

std::span<const std::string_view> process_activity_settings() {
  static constexpr std::array<std::string_view, 2> kNames{kProcessesPollPeriodSetting,
                                                          kProcessesThreadsSetting};
  return kNames;
}

}  // namespace jouleprof
