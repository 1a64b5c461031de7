// Spans of several processes of one run: `jouleprof run --spans -- torchrun …` (or any
// launcher) starts ranks that each load libjouleprof and write a span dump of their own
// (spans-<pid>.json). Their spans are attributed together, against the run's one set of counters,
// so that an interval in which two ranks are busy is split between them by their threads' CPU
// time; each rank's spans sit under a `[rank N]` node of the run's tree. From that tree each rank
// gets a profile of its own (its subtree, its share of every channel), which `merge_profiles`
// joins as it joins the rank files of a job across hosts.
#pragma once

#include <string>
#include <vector>

#include "jouleprof/cluster.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/span_dump.hpp"

namespace jouleprof {

struct ChildDump {
  std::string path;
  SpanDump dump;
  ClusterIdentity identity;  // from the launcher's variables the process saw
};

// Every dump in `directory` (spans-*.json); one that cannot be read is a warning, not an error,
// since the run's measurement stands without it.
std::vector<ChildDump> read_child_dumps(const std::string& directory,
                                        std::vector<std::string>& warnings);

// The ranks among the dumps, ascending; empty when fewer than two distinct ranks wrote spans
// (one process, or several of one rank: their spans are one tree, as before).
std::vector<int> ranks_of(const std::vector<ChildDump>& dumps);

// The tree node that holds a rank's spans.
std::string rank_node_name(int rank);

// One dump of every process's spans, their tracks side by side. With `ranks`, every top-level
// span of a rank's process gets a `[rank N]` parent of its own extent, and each process's
// collectives are given to its own steps before the processes are put together (a gloo thread of
// rank 1 belongs to rank 1's step, not to whichever step was running on the machine).
SpanDump combine_child_dumps(const std::vector<ChildDump>& dumps, const std::vector<int>& ranks);

// Per rank: the run's profile (its channels and series, measured once for all ranks) with the
// rank's subtree as its tree, the rank's share of each channel as its observed-process figure,
// the rank's own spans as its timeline, and its identity in the metadata. The run's warnings go
// with the first rank only, so that a merge does not repeat them once per rank.
std::vector<Profile> rank_profiles(const Profile& run, const std::vector<ChildDump>& dumps,
                                   const std::vector<int>& ranks);

}  // namespace jouleprof
