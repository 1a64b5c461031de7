/* A small program instrumented through the C API, run by spans_file_hook_test with
 * JOULEPROF_SPANS_FILE set: it never starts the recorder or writes spans itself. */
#include <stdio.h>

#include "jouleprof/jouleprof.h"

int main(void) {
  if (!jp_recorder_enabled()) {
    fprintf(stderr, "spans_child: JOULEPROF_SPANS_FILE did not start the recorder\n");
    return 2;
  }
  const jp_name_id train = jp_intern("train");
  const jp_name_id step = jp_intern("model/step");
  for (int i = 0; i < 3; ++i) {
    jp_begin(train, JP_CATEGORY_EPOCH);
    jp_begin_pass(step, JP_CATEGORY_STEP, JP_PASS_FORWARD);
    jp_annotate("batch", "32");
    jp_end();
    jp_begin_named("evaluate");
    jp_end();
    jp_end();
    jp_epoch_end();
  }
  jp_begin_named("left open at exit");
  return 0;
}
