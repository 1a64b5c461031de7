// One profile as history rows: the same derivation for the SQLite and the PostgreSQL backend.
#include "store/stored_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

namespace jouleprof::detail {

StoredRun stored_run_of(const Profile& profile, const std::string& profile_path,
                        const RunTags& tags) {
  const RunMetadata& m = profile.meta;
  StoredRun run;
  run.run_key = run_key_of(profile);
  run.recorded_at_ns = realtime_now_ns();
  run.kind = m.kind;
  run.host = m.host;
  run.rank = m.rank;
  run.world_size = m.world_size;
  for (const std::string& a : m.command) run.command += (run.command.empty() ? "" : " ") + a;
  run.tool_version = m.tool_version;
  run.begin_ns = m.begin_ns;
  run.end_ns = m.end_ns;
  run.exit_code = m.exit_code;
  run.partial = m.partial;
  run.total_energy_j = energy_total_of(profile);
  if (!profile_path.empty()) {
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(profile_path, ec);
    run.profile_path = ec ? profile_path : absolute.lexically_normal().string();
  }
  run.warnings = static_cast<std::int64_t>(profile.warnings.size());
  run.process_energy_j = profile.total_process_energy_j();
  run.observed = m.options.process.observed.value_or(std::string());
  run.tags = tags;
  if (const std::optional<EnergyBand> band = profile.total_energy_band()) {
    run.total_energy_low_j = band->low_j;
    run.total_energy_high_j = band->high_j;
  }

  std::map<std::string, std::size_t> index_of_channel;
  for (const ChannelSummary& c : profile.channels) {
    const std::optional<double> process =
        c.process ? std::optional<double>(c.process->energy_j) : std::nullopt;
    auto [it, inserted] = index_of_channel.try_emplace(c.channel_id, run.channels.size());
    if (!inserted) {
      // A repeated id adds its energy; a process figure missing on either side leaves none, as
      // SQL's NULL + x would.
      StoredChannel& same = run.channels[it->second];
      same.energy_j += c.energy_j;
      same.process_energy_j = same.process_energy_j && process
                                  ? std::optional<double>(*same.process_energy_j + *process)
                                  : std::nullopt;
      continue;
    }
    const Series* series = profile.find_series(c.channel_id);
    const Channel info = series ? series->channel() : Channel{};
    run.channels.push_back(StoredChannel{c.channel_id, info.device, info.domain, info.parent_id,
                                         std::string(to_string(c.provenance)), c.energy_j,
                                         c.mean_power_w, process});
  }
  run.nodes = node_energies_of(profile);
  return run;
}

Provenance stored_provenance(const std::string& channels, const std::string& root) {
  std::optional<Provenance> least_direct;
  std::size_t begin = 0;
  while (begin < channels.size()) {
    const std::size_t end = std::min(channels.find(',', begin), channels.size());
    if (const auto p = provenance_from_string(channels.substr(begin, end - begin)))
      least_direct = least_direct ? less_direct(*least_direct, *p) : *p;
    begin = end + 1;
  }
  if (least_direct) return *least_direct;
  return provenance_from_string(root).value_or(Provenance::kMeasured);
}

std::string sorted_channels(const std::string& channels) {
  std::vector<std::string> ids;
  std::size_t begin = 0;
  while (begin < channels.size()) {
    const std::size_t end = std::min(channels.find(',', begin), channels.size());
    ids.push_back(channels.substr(begin, end - begin));
    begin = end + 1;
  }
  std::sort(ids.begin(), ids.end());
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "" : ",") + id;
  return out;
}

}  // namespace jouleprof::detail

namespace jouleprof {

std::string run_key_of(const Profile& profile) {
  const RunMetadata& m = profile.meta;
  if (m.anchor.realtime_ns == 0) return "";
  return fmt::format("{}/{}/{}/{}", m.host, m.anchor.monotonic_to_realtime(m.begin_ns),
                     m.rank ? std::to_string(*m.rank) : "-", m.kind);
}

}  // namespace jouleprof
