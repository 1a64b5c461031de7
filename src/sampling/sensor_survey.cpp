#include "jouleprof/sensor_survey.hpp"

#include <time.h>

#include <algorithm>

#include "sampling/sampler.hpp"

namespace jouleprof {

// Polling ten times per default period resolves update periods down to a tenth of it.
constexpr TimeNs kSurveyPollsPerPeriod = 10;
constexpr TimeNs kFinestSurveyPeriodNs = kNsPerMs;

Result<SensorSurvey> survey_sensors(const SourceOptions& options, TimeNs duration_ns) {
  JP_TRY(SourceDiscovery found, discover_sources(options));
  SensorSurvey survey;
  survey.duration_ns = duration_ns;
  survey.unavailable = std::move(found.unavailable);
  survey.notes = std::move(found.notes);

  std::vector<std::unique_ptr<Sampler>> samplers;
  for (std::unique_ptr<Source>& source : found.available) {
    SurveyedSource s;
    s.name = std::string(source->name());
    s.default_period_ns = source->default_period_ns();
    s.survey_period_ns =
        std::max(kFinestSurveyPeriodNs, s.default_period_ns / kSurveyPollsPerPeriod);
    std::vector<std::unique_ptr<Source>> one;
    one.push_back(std::move(source));
    samplers.push_back(
        std::make_unique<Sampler>(std::move(one), SamplerOptions{s.survey_period_ns}));
    survey.available.push_back(std::move(s));
  }
  for (auto& sampler : samplers) sampler->start();
  const timespec pause{static_cast<time_t>(duration_ns / kNsPerS),
                       static_cast<long>(duration_ns % kNsPerS)};
  nanosleep(&pause, nullptr);
  for (std::size_t i = 0; i < samplers.size(); ++i) {
    samplers[i]->stop();
    SurveyedSource& s = survey.available[i];
    s.warnings = samplers[i]->warnings();
    for (Series& series : samplers[i]->take_series()) {
      s.channels.push_back(series.channel());
      s.samples.push_back(series.size());
      s.last_values.push_back(series.empty() ? 0.0 : series.back().value);
    }
  }
  return survey;
}

}  // namespace jouleprof
