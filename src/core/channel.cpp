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
namespace {

int indirectness(Provenance p) {
  switch (p) {
    case Provenance::kMeasured:
      return 0;
    case Provenance::kInterpolated:
      return 1;
    case Provenance::kImported:
      return 2;
    case Provenance::kEstimated:
      return 3;
    case Provenance::kPredicted:
      return 4;
    case Provenance::kSimulated:
      return 5;
    case Provenance::kAttributed:  // a measured figure split by a rule: one step further again
      return 6;
  }
  return 6;
}

}  // namespace

Provenance less_direct(Provenance a, Provenance b) {
  return indirectness(b) > indirectness(a) ? b : a;
}

bool is_modelled(Provenance p) {
  return p == Provenance::kEstimated || p == Provenance::kPredicted || p == Provenance::kSimulated;
}

std::string_view to_string(ChannelKind k) { return name_of(kKindNames, k); }
std::optional<ChannelKind> channel_kind_from_string(std::string_view s) {
  return parse(kKindNames, s);
}

}  // namespace jouleprof
