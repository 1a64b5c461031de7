#include "jouleprof/channel.hpp"

#include <array>
#include <utility>

namespace jouleprof {
namespace {

constexpr std::array<std::pair<Provenance, std::string_view>, 7> kProvenanceNames{{
    {Provenance::kMeasured, "measured"},
    {Provenance::kInterpolated, "interpolated"},
    {Provenance::kEstimated, "estimated"},
    {Provenance::kSimulated, "simulated"},
    {Provenance::kPredicted, "predicted"},
    {Provenance::kImported, "imported"},
    {Provenance::kAttributed, "attributed"},
}};

constexpr std::array<std::pair<ChannelKind, std::string_view>, 5> kKindNames{{
    {ChannelKind::kEnergyCounter, "energy_j"},
    {ChannelKind::kPower, "power_w"},
    {ChannelKind::kTemperature, "temperature_c"},
    {ChannelKind::kUtilisation, "utilisation"},
    {ChannelKind::kBusyTime, "busy_s"},
}};

template <typename Enum, std::size_t N>
std::string_view name_of(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum e) {
  for (const auto& [value, name] : table) {
    if (value == e) return name;
  }
  return "unknown";
}

template <typename Enum, std::size_t N>
std::optional<Enum> parse(const std::array<std::pair<Enum, std::string_view>, N>& table,
                          std::string_view s) {
  for (const auto& [value, name] : table) {
    if (name == s) return value;
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(Provenance p) { return name_of(kProvenanceNames, p); }
std::optional<Provenance> provenance_from_string(std::string_view s) {
  return parse(kProvenanceNames, s);
}
std::string_view to_string(ChannelKind k) { return name_of(kKindNames, k); }
std::optional<ChannelKind> channel_kind_from_string(std::string_view s) {
  return parse(kKindNames, s);
}

}  // namespace jouleprof
