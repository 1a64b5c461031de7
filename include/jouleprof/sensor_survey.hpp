// What `jouleprof sensors` shows: every source found, its channels, and the update period of each
// channel measured by polling it for a short while (by default one second).
#pragma once

#include <string>
#include <vector>

#include "jouleprof/channel.hpp"
#include "jouleprof/clock.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/sources.hpp"

namespace jouleprof {

struct SurveyedSource {
  std::string name;
  TimeNs default_period_ns = 0;   // how often a run polls it
  TimeNs survey_period_ns = 0;    // how often the survey polled it: the finest period it can see
  std::vector<Channel> channels;  // measured_period_ns filled in (0: fewer than two updates seen)
  std::vector<std::size_t> samples;   // readings taken per channel
  std::vector<double> last_values;    // last reading per channel (channel units)
  std::vector<std::string> warnings;  // failed reads during the survey
};

struct SensorSurvey {
  TimeNs duration_ns = 0;
  std::vector<SurveyedSource> available;
  std::vector<UnavailableSource> unavailable;
  std::vector<std::string> notes;
};

// Each available source is polled at a tenth of its default period (at least 1 ms) for
// duration_ns, all sources at once.
Result<SensorSurvey> survey_sensors(const SourceOptions& options, TimeNs duration_ns);

}  // namespace jouleprof
