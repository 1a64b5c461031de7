#include "jouleprof/profile.hpp"

namespace jouleprof {

const ProfileNode* ProfileNode::child(std::string_view child_name) const {
  for (const ProfileNode& c : children) {
    if (c.name == child_name) return &c;
  }
  return nullptr;
}

ProfileNode* ProfileNode::child(std::string_view child_name) {
  for (ProfileNode& c : children) {
    if (c.name == child_name) return &c;
  }
  return nullptr;
}

const Series* Profile::find_series(std::string_view channel_id) const {
  for (const Series& s : series) {
    if (s.channel().id == channel_id) return &s;
  }
  return nullptr;
}

double Profile::total_energy_j() const {
  double total = 0.0;
  for (const ChannelSummary& c : channels) {
    const Series* s = find_series(c.channel_id);
    const bool top_level = s == nullptr || s->channel().is_top_level();
    if (top_level) total += c.energy_j;
  }
  return total;
}

std::optional<double> Profile::total_process_energy_j() const {
  std::optional<double> total;
  for (const ChannelSummary& c : channels) {
    const Series* s = find_series(c.channel_id);
    const bool top_level = s == nullptr || s->channel().is_top_level();
    if (top_level && c.process) total = total.value_or(0.0) + c.process->energy_j;
  }
  return total;
}

Provenance Profile::total_provenance() const {
  std::optional<Provenance> least_direct;
  for (const ChannelSummary& c : channels) {
    const Series* s = find_series(c.channel_id);
    if (s != nullptr && !s->channel().is_top_level()) continue;
    least_direct = least_direct ? less_direct(*least_direct, c.provenance) : c.provenance;
  }
  if (least_direct) return *least_direct;
  return tree ? tree->provenance : Provenance::kMeasured;
}

}  // namespace jouleprof
