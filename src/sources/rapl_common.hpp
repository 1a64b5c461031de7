// What the three RAPL backends (powercap sysfs, perf `power` PMU, MSR) share: the domain names,
// channel naming and nesting, the documented timing constants, and the advice given when RAPL
// cannot be read.
#pragma once

#include <string>
#include <string_view>

#include "jouleprof/channel.hpp"
#include "jouleprof/clock.hpp"

namespace jouleprof::rapl {

// RAPL hardware updates its energy counters about every millisecond (METHODS.md §1).
inline constexpr TimeNs kNominalUpdatePeriodNs = 1 * kNsPerMs;
// Default polling period of every RAPL backend (issue 2: "RAPL 10 ms"); --interval overrides it.
inline constexpr TimeNs kDefaultPollPeriodNs = 10 * kNsPerMs;

enum class Domain { kPackage, kCore, kUncore, kDram, kPsys };

std::string_view domain_name(Domain domain);  // "package", "core", "uncore", "dram", "psys"

// Channel ids: "<prefix>:package-<S>" for a package, "<prefix>:package-<S>/<domain>" for a
// domain inside it, "<prefix>:psys" for the platform (psys-<S> when several sockets report one).
std::string package_channel_id(std::string_view prefix, int socket);
std::string sub_domain_channel_id(std::string_view prefix, int socket, Domain domain);

// "cpu<S>" for a socket, "platform" for psys.
std::string device_name(int socket, Domain domain);

// A cumulative-joules RAPL channel with the nominal update period filled in.
Channel make_channel(std::string id, std::string_view source, std::string device,
                     std::string_view domain, std::string provenance_detail, std::string parent_id);

// What to tell a user who may not read the powercap files (root-only since the 2020 PLATYPUS
// fix): the perf path and the group-permission rule.
std::string powercap_permission_fix();
// What to tell a user whose perf_event_paranoid forbids system-wide events.
std::string perf_permission_fix();
// What to tell a user who cannot open /dev/cpu/N/msr.
std::string msr_permission_fix();

}  // namespace jouleprof::rapl
