/* The C API from C11, linked against libjouleprof.so: a monitored run with regions from the
 * simulated source, its profile attributed again, and the error paths. Exits non-zero on the
 * first failed check, naming it. Usage: capi_c_test WORK_DIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jouleprof/jouleprof.h"

static int failures = 0;

#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond, \
              jp_last_error());                                                                \
      ++failures;                                                                              \
    }                                                                                          \
  } while (0)

static void busy_for_ms(long ms) {
  const int64_t until = jp_now_ns() + ms * 1000000L;
  volatile double sink = 0.0;
  while (jp_now_ns() < until) sink += 1.0;
}

static int file_contains(const char* path, const char* needle) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return 0;
  static char text[1 << 22];
  const size_t n = fread(text, 1, sizeof(text) - 1, f);
  fclose(f);
  text[n] = '\0';
  return strstr(text, needle) != NULL;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s WORK_DIR\n", argv[0]);
    return 2;
  }
  char profile[4096], attributed[4096];
  snprintf(profile, sizeof(profile), "%s/c_profile.json", argv[1]);
  snprintf(attributed, sizeof(attributed), "%s/c_attributed.json", argv[1]);

  /* A monitored run: 40 W simulated, two regions and an epoch mark. */
  jp_monitor* monitor = NULL;
  CHECK(jp_monitor_start("simulated",
                         "{\"settings\": {\"simulate.watts\": 40}, \"interval_ms\": 2}",
                         &monitor) == JP_OK);
  CHECK(monitor != NULL);
  CHECK(jp_recorder_enabled() == 1);
  const jp_name_id load = jp_intern("load");
  const jp_name_id train = jp_intern("train");
  jp_begin(load, JP_CATEGORY_REGION);
  busy_for_ms(40);
  jp_end();
  jp_begin(train, JP_CATEGORY_STEP);
  busy_for_ms(80);
  jp_end();
  jp_epoch_end();
  jp_totals totals = JP_TOTALS_INIT;
  CHECK(jp_monitor_stop(monitor, profile, &totals) == JP_OK);
  CHECK(totals.spans == 2);
  /* The interval holds the figure; the simulated source has no gain error, so what it holds is the
   * window's edges and read delay: well under the figure even on a loaded machine. */
  CHECK(totals.energy_low_j <= totals.energy_j && totals.energy_j <= totals.energy_high_j);
  CHECK(totals.energy_high_j - totals.energy_low_j < 0.5 * totals.energy_j);
  CHECK(totals.uncertainty_dominant != NULL && totals.uncertainty_dominant[0] != '\0');
  CHECK(totals.duration_s > 0.1);
  /* The simulated counter updates every 1 ms: the mean power is 40 W to well within 10 %. */
  CHECK(fabs(totals.mean_power_w - 40.0) < 4.0);
  CHECK(fabs(totals.energy_j - 40.0 * totals.duration_s) < 0.1 * 40.0 * totals.duration_s);
  CHECK(file_contains(profile, "\"train\""));
  CHECK(file_contains(profile, "\"load\""));

  /* Attributing the written profile again (interpolation over its own spans). */
  CHECK(jp_attribute(profile, NULL, attributed, "{\"method\": \"interpolate\"}") == JP_OK);
  CHECK(file_contains(attributed, "\"train\""));
  CHECK(file_contains(attributed, "interpolate"));

  /* Errors: fixed codes and a message on this thread. */
  CHECK(jp_monitor_start("simulated", "{not json", &monitor) == JP_ERR_INVALID_INPUT);
  CHECK(monitor == NULL);
  CHECK(strstr(jp_last_error(), "options_json") != NULL);
  CHECK(jp_monitor_start("simulated", "{\"colour\": 1}", &monitor) == JP_ERR_INVALID_INPUT);
  CHECK(strstr(jp_last_error(), "colour") != NULL);
  CHECK(jp_monitor_start("no-such-source", NULL, &monitor) == JP_ERR_INVALID_INPUT);
  CHECK(jp_monitor_start("simulated", NULL, NULL) == JP_ERR_INVALID_INPUT);
  CHECK(jp_monitor_stop(NULL, NULL, NULL) == JP_ERR_INVALID_INPUT);
  CHECK(jp_attribute("/nonexistent/profile.json", NULL, attributed, NULL) != JP_OK);
  CHECK(strstr(jp_last_error(), "/nonexistent/profile.json") != NULL);
  CHECK(jp_attribute(profile, NULL, attributed, "{\"method\": \"guess\"}") == JP_ERR_INVALID_INPUT);
  CHECK(jp_add_span(NULL, NULL, train, 0, 1, JP_CATEGORY_REGION) == JP_ERR_INVALID_INPUT);

  if (failures == 0) printf("capi_c_test: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
