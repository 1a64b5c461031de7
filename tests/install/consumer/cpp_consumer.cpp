// Measures a span of busy work on jouleprof's simulated 40 W source through the installed C++
// library, attributes it, and prints what a user would check: the tree sums to the measured total.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <jouleprof/jouleprof.hpp>
#include <thread>

int main() {
  jouleprof::MonitorOptions options;
  options.sources.selected = {"simulated"};
  options.sources.settings["simulate.watts"] = "40";
  auto monitor = jouleprof::Monitor::open(options);
  if (!monitor) {
    std::fprintf(stderr, "open: %s\n", monitor.error().message().c_str());
    return 1;
  }
  if (jouleprof::Status s = (*monitor)->start(); !s) {
    std::fprintf(stderr, "start: %s\n", s.error().message().c_str());
    return 1;
  }
  jouleprof::Recorder::global().start();
  {
    JOULEPROF_SCOPE("consumer_work");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  jouleprof::Profile profile = (*monitor)->stop();
  profile.timeline = jouleprof::Recorder::global().collect();
  if (jouleprof::Status s = jouleprof::attribute_profile(profile, {}); !s) {
    std::fprintf(stderr, "attribute: %s\n", s.error().message().c_str());
    return 1;
  }
  const double total_j = profile.total_energy_j();
  const double tree_j = profile.tree ? profile.tree->energy_j : 0.0;
  const jouleprof::ProfileNode* work =
      profile.tree ? profile.tree->child("consumer_work") : nullptr;
  std::printf("total %.6f J, tree %.6f J, consumer_work %.6f J, jouleprof %s\n", total_j, tree_j,
              work ? work->energy_j : 0.0, JOULEPROF_VERSION);
  const bool sums = total_j > 0.0 && std::abs(tree_j - total_j) <= 1e-6 * total_j;
  return sums && work != nullptr && work->energy_j > 0.0 ? 0 : 2;
}
