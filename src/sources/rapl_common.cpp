#include "sources/rapl_common.hpp"

#include <fmt/format.h>

#include <utility>

namespace jouleprof::rapl {

std::string_view domain_name(Domain domain) {
  switch (domain) {
    case Domain::kPackage:
      return "package";
    case Domain::kCore:
      return "core";
    case Domain::kUncore:
      return "uncore";
    case Domain::kDram:
      return "dram";
    case Domain::kPsys:
      return "psys";
  }
  return "unknown";
}

std::string package_channel_id(std::string_view prefix, int socket) {
  return fmt::format("{}:package-{}", prefix, socket);
}

std::string sub_domain_channel_id(std::string_view prefix, int socket, Domain domain) {
  return fmt::format("{}:package-{}/{}", prefix, socket, domain_name(domain));
}

std::string device_name(int socket, Domain domain) {
  return domain == Domain::kPsys ? std::string("platform") : fmt::format("cpu{}", socket);
}

Channel make_channel(std::string id, std::string_view source, std::string device,
                     std::string_view domain, std::string provenance_detail,
                     std::string parent_id) {
  Channel channel;
  channel.id = std::move(id);
  channel.source = std::string(source);
  channel.device = std::move(device);
  channel.domain = std::string(domain);
  channel.kind = ChannelKind::kEnergyCounter;
  channel.provenance = Provenance::kMeasured;
  channel.provenance_detail = std::move(provenance_detail);
  channel.parent_id = std::move(parent_id);
  channel.nominal_period_ns = kNominalUpdatePeriodNs;
  return channel;
}

std::string powercap_permission_fix() {
  return "RAPL energy files are root-only since Linux 5.10 (the PLATYPUS fix). Either use the perf "
         "path (the rapl-perf source; needs kernel.perf_event_paranoid <= 0, e.g. `sudo sysctl "
         "kernel.perf_event_paranoid=0`), or give a group read access: until reboot `sudo chmod "
         "g+r /sys/class/powercap/intel-rapl:*/energy_uj && sudo chgrp power "
         "/sys/class/powercap/intel-rapl:*/energy_uj`; permanently a udev rule in "
         "/etc/udev/rules.d/70-jouleprof-rapl.rules: SUBSYSTEM==\"powercap\", ACTION==\"add\", "
         "RUN+=\"/bin/chgrp power /sys%p/energy_uj\", RUN+=\"/bin/chmod g+r /sys%p/energy_uj\" "
         "(see docs/sources.md)";
}

std::string perf_permission_fix() {
  return "RAPL perf events are system-wide (one per socket), which an unprivileged user may open "
         "only when kernel.perf_event_paranoid <= 0: `sudo sysctl kernel.perf_event_paranoid=0` "
         "(persist it in /etc/sysctl.d/), or grant CAP_PERFMON: `sudo setcap cap_perfmon=ep "
         "$(which jouleprof)`";
}

std::string msr_permission_fix() {
  return "/dev/cpu/N/msr needs root (CAP_SYS_RAWIO and read access to the device): run jouleprof "
         "as root, or prefer the rapl-powercap or rapl-perf source, which need less privilege";
}

}  // namespace jouleprof::rapl
