// What the history stores of one profile, derived once and written the same way by every backend:
// the runs row, one row per channel summary and one per tree path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jouleprof/history.hpp"

namespace jouleprof::detail {

struct StoredChannel {
  std::string channel_id;
  std::string device;
  std::string domain;
  std::string parent_id;
  std::string provenance;
  double energy_j = 0.0;
  double mean_power_w = 0.0;
  std::optional<double> process_energy_j;
};

struct StoredRun {
  std::string run_key;  // empty: no key (stored as NULL, never a conflict)
  TimeNs recorded_at_ns = 0;
  std::string kind;
  std::string host;
  std::optional<int> rank;
  std::optional<int> world_size;
  std::string command;  // arguments joined by spaces
  std::string tool_version;
  TimeNs begin_ns = 0;
  TimeNs end_ns = 0;
  std::optional<int> exit_code;
  bool partial = false;
  double total_energy_j = 0.0;
  std::string profile_path;  // absolute, normalised; empty when none was written
  std::int64_t warnings = 0;
  std::optional<double> process_energy_j;
  std::string observed;
  RunTags tags;
  std::optional<double> total_energy_low_j;
  std::optional<double> total_energy_high_j;
  // Summaries of one channel id are summed into one row (a merged profile repeats ids).
  std::vector<StoredChannel> channels;
  std::vector<NodeEnergy> nodes;
};

StoredRun stored_run_of(const Profile& profile, const std::string& profile_path,
                        const RunTags& tags);

// Profile::total_provenance over what a database holds: the least direct of the top-level
// channels' provenances (`channels`, comma-separated), else the tree root's, else measured.
Provenance stored_provenance(const std::string& channels, const std::string& root);
// The top-level channel ids as a database lists them (comma-separated, in any order), sorted.
std::string sorted_channels(const std::string& channels);

}  // namespace jouleprof::detail
