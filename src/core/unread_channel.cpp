#include "core/unread_channel.hpp"

namespace jouleprof {

bool has_no_reading(const Profile& profile, const ChannelSummary& channel) {
  const Series* s = profile.find_series(channel.channel_id);
  return s != nullptr && s->empty() && s->channel().carries_energy() && s->channel().is_top_level();
}

}  // namespace jouleprof
