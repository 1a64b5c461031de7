// The `trace` report: Chrome trace-event JSON, loadable in the Perfetto UI (ui.perfetto.dev) and
// chrome://tracing. Each device becomes a process and each track a thread in it, holding the
// spans as complete ("X") events and the marks as instant ("i") events; the energy channels form
// one more process with a power counter ("C") per channel, labelled with its provenance, and the
// recorded gaps as slices. Times are microseconds from the run's start (otherData says which
// monotonic nanosecond that is).
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "report/power_points.hpp"
#include "report/writers.hpp"

namespace jouleprof::report {
namespace {

using nlohmann::json;

TimeNs time_origin(const Profile& p) {
  if (p.meta.begin_ns != 0 || p.meta.end_ns != 0) return p.meta.begin_ns;
  TimeNs origin = p.timeline.spans().empty() ? 0 : p.timeline.extent().first;
  for (const Series& s : p.series) {
    if (!s.empty()) origin = std::min(origin, s.begin_ns());
  }
  return origin;
}

json metadata(std::string_view what, int pid, int tid, json args) {
  json e{{"ph", "M"}, {"name", what}, {"pid", pid}, {"args", std::move(args)}};
  if (tid >= 0) e["tid"] = tid;
  return e;
}

std::string counter_name(const Channel& c) {
  switch (c.kind) {
    case ChannelKind::kEnergyCounter:
    case ChannelKind::kPower:
      return "power " + c.id + " (W, " + std::string(to_string(c.provenance)) + ")";
    case ChannelKind::kTemperature:
      return "temperature " + c.id + " (°C)";
    case ChannelKind::kUtilisation:
      return "utilisation " + c.id + " (0..1)";
    case ChannelKind::kBusyTime:
      return "busy time " + c.id + " (s, cumulative)";
  }
  return c.id;
}

}  // namespace

Result<std::string> write_trace(const Profile& profile, const ReportOptions& options) {
  const TimeNs origin = time_origin(profile);
  auto us = [origin](TimeNs t) { return static_cast<double>(t - origin) / 1e3; };
  json events = json::array();

  // One process per device, one thread per track.
  std::map<std::string, int> pid_of_device;
  const Timeline& tl = profile.timeline;
  for (std::size_t i = 0; i < tl.tracks().size(); ++i) {
    const Track& track = tl.tracks()[i];
    const std::string device = track.device.empty() ? "(no device)" : track.device;
    auto [it, inserted] =
        pid_of_device.try_emplace(device, static_cast<int>(pid_of_device.size()) + 1);
    if (inserted) {
      events.push_back(metadata("process_name", it->second, -1, {{"name", "device " + device}}));
      events.push_back(
          metadata("process_sort_index", it->second, -1, {{"sort_index", it->second}}));
    }
    const int tid = static_cast<int>(i) + 1;
    events.push_back(metadata("thread_name", it->second, tid,
                              {{"name", std::string(to_string(track.kind)) + ": " + track.name}}));
    events.push_back(metadata("thread_sort_index", it->second, tid, {{"sort_index", tid}}));
  }
  auto pid_of_track = [&](std::uint32_t track) {
    const Track& t = tl.tracks().at(track);
    return pid_of_device.at(t.device.empty() ? "(no device)" : t.device);
  };

  for (std::uint32_t i = 0; i < tl.spans().size(); ++i) {
    const Span& s = tl.spans()[i];
    if (s.track >= tl.tracks().size() || s.name >= tl.names().size()) {
      return invalid_input("profile", "timeline.spans[" + std::to_string(i) + "]",
                           std::to_string(s.track) + "/" + std::to_string(s.name),
                           "refers to a track or name that does not exist");
    }
    json args{{"path", tl.path_of(i)}, {"category", to_string(s.category)}};
    if (s.pass != Pass::kNone) args["pass"] = to_string(s.pass);
    if (s.attributes != kNoIndex && s.attributes < tl.attributes().size()) {
      for (const auto& [key, value] : tl.attributes()[s.attributes]) args[std::string(key)] = value;
    }
    events.push_back(json{{"ph", "X"},
                          {"name", tl.name(s.name)},
                          {"cat", to_string(s.category)},
                          {"pid", pid_of_track(s.track)},
                          {"tid", static_cast<int>(s.track) + 1},
                          {"ts", us(s.begin_ns)},
                          {"dur", static_cast<double>(s.duration_ns()) / 1e3},
                          {"args", std::move(args)}});
  }
  for (const Mark& m : tl.marks()) {
    if (m.track >= tl.tracks().size() || m.name >= tl.names().size()) continue;
    events.push_back(json{{"ph", "i"},
                          {"s", "t"},
                          {"name", tl.name(m.name)},
                          {"pid", pid_of_track(m.track)},
                          {"tid", static_cast<int>(m.track) + 1},
                          {"ts", us(m.t_ns)}});
  }

  // Energy channels: one counter per channel, gaps as slices on a thread per channel.
  if (!profile.series.empty()) {
    const int pid = static_cast<int>(pid_of_device.size()) + 1;
    events.push_back(metadata("process_name", pid, -1, {{"name", "energy channels"}}));
    events.push_back(metadata("process_sort_index", pid, -1, {{"sort_index", pid}}));
    int tid = 0;
    for (const Series& s : profile.series) {
      const Channel& c = s.channel();
      const std::string name = counter_name(c);
      const json label_args{{"provenance", to_string(c.provenance)},
                            {"detail", c.provenance_detail}};
      if (c.carries_energy()) {
        for (const PowerInterval& iv : power_intervals(s, options.trace_power_points)) {
          events.push_back(json{{"ph", "C"},
                                {"name", name},
                                {"pid", pid},
                                {"ts", us(iv.begin_ns)},
                                {"args", {{"W", iv.power_w}}}});
        }
      } else {
        for (std::size_t i = 0; i < s.size(); ++i) {
          events.push_back(json{{"ph", "C"},
                                {"name", name},
                                {"pid", pid},
                                {"ts", us(s[i].t_ns)},
                                {"args", {{"value", s[i].value}}}});
        }
      }
      if (s.gaps().empty()) continue;
      ++tid;
      events.push_back(metadata("thread_name", pid, tid, {{"name", "gaps " + c.id}}));
      for (const Gap& g : s.gaps()) {
        events.push_back(json{{"ph", "X"},
                              {"name", "gap: " + g.reason},
                              {"cat", "gap"},
                              {"pid", pid},
                              {"tid", tid},
                              {"ts", us(g.begin_ns)},
                              {"dur", static_cast<double>(g.end_ns - g.begin_ns) / 1e3},
                              {"args", label_args}});
      }
    }
  }

  json doc{{"traceEvents", std::move(events)},
           {"displayTimeUnit", "ms"},
           {"otherData",
            {{"producer", "jouleprof " + profile.meta.tool_version},
             {"profile_schema_version", profile.schema_version},
             {"kind", profile.meta.kind},
             {"host", profile.meta.host},
             {"time_origin_monotonic_ns", origin},
             {"time_origin_realtime_ns", profile.meta.anchor.monotonic_to_realtime(origin)},
             {"total_energy_j", profile.total_energy_j()},
             {"warnings", profile.warnings}}}};
  return doc.dump() + "\n";
}

}  // namespace jouleprof::report
