// jouleprof: where the energy of a deep-learning program goes. This umbrella header declares the
// whole C++ API of the installed library (jouleprof::jouleprof); docs/library.md is the guide.
//
//   #include <jouleprof/jouleprof.hpp>
//
//   jouleprof::MonitorOptions options;                   // the machine's best energy sources
//   JP_TRY(auto monitor, jouleprof::Monitor::open(options));
//   JP_RETURN_IF_ERROR(monitor->start());
//   jouleprof::Recorder::global().start();
//   {
//     JOULEPROF_SCOPE("train_step");                     // a span on this thread
//     train_step();
//   }
//   jouleprof::Profile profile = monitor->stop();        // measured series and channel summaries
//   profile.timeline = jouleprof::Recorder::global().collect();
//   JP_RETURN_IF_ERROR(jouleprof::attribute_profile(profile, {}));  // the energy tree
//   JP_RETURN_IF_ERROR(jouleprof::write_profile_json(profile, "profile.json"));
//
// The C API for other languages is <jouleprof/jouleprof.h> (libjouleprof.so, jouleprof::c_api).
// The libtorch adapter (jouleprof/torch*.hpp) is not part of the installed library.
#pragma once

#include "jouleprof/attribution.hpp"
#include "jouleprof/attribution_diagnostics.hpp"
#include "jouleprof/attribution_method.hpp"
#include "jouleprof/auto_window.hpp"
#include "jouleprof/calibration.hpp"
#include "jouleprof/call_energy.hpp"
#include "jouleprof/channel.hpp"
#include "jouleprof/channel_summary.hpp"
#include "jouleprof/child_process.hpp"
#include "jouleprof/clock.hpp"
#include "jouleprof/cluster.hpp"
#include "jouleprof/command_measurement.hpp"
#include "jouleprof/compare.hpp"
#include "jouleprof/device_kind.hpp"
#include "jouleprof/device_names.hpp"
#include "jouleprof/device_scores.hpp"
#include "jouleprof/epoch_file.hpp"
#include "jouleprof/epoch_summary.hpp"
#include "jouleprof/exporter.hpp"
#include "jouleprof/fecom_records.hpp"
#include "jouleprof/gated_measurement.hpp"
#include "jouleprof/history.hpp"
#include "jouleprof/history_import.hpp"
#include "jouleprof/interval_trace.hpp"
#include "jouleprof/live_epochs.hpp"
#include "jouleprof/measurement_json.hpp"
#include "jouleprof/monitor.hpp"
#include "jouleprof/noise_budget.hpp"
#include "jouleprof/pre.hpp"
#include "jouleprof/prediction.hpp"
#include "jouleprof/profile.hpp"
#include "jouleprof/progress.hpp"
#include "jouleprof/recorder.hpp"
#include "jouleprof/recording_attribution.hpp"
#include "jouleprof/report.hpp"
#include "jouleprof/result.hpp"
#include "jouleprof/run_measurement.hpp"
#include "jouleprof/samples_csv.hpp"
#include "jouleprof/sensor_survey.hpp"
#include "jouleprof/series.hpp"
#include "jouleprof/source.hpp"
#include "jouleprof/sources.hpp"
#include "jouleprof/span_dump.hpp"
#include "jouleprof/stability.hpp"
#include "jouleprof/statistics.hpp"
#include "jouleprof/step.hpp"
#include "jouleprof/timeline.hpp"
#include "jouleprof/trace_attach.hpp"
#include "jouleprof/trace_import.hpp"
