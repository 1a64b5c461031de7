/* A small program instrumented through the C API, run by spans_file_hook_test with
 * JOULEPROF_SPANS_FILE set: it never starts the recorder or writes spans itself. With the argument
 * "flush-then-sigint" it writes its spans with jp_recorder_flush_spans_file and then dies by
 * SIGINT, as Python does after an unhandled KeyboardInterrupt. With "fork" it forks a child that
 * records a span of its own and exits normally. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jouleprof/jouleprof.h"

int main(int argc, char** argv) {
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
  if (argc > 1 && strcmp(argv[1], "flush-then-sigint") == 0) {
    if (jp_recorder_flush_spans_file() != JP_OK) return 3;
    jp_begin_named("after the flush");
    signal(SIGINT, SIG_DFL);
    raise(SIGINT);
  }
  if (argc > 1 && strcmp(argv[1], "fork") == 0) {
    const pid_t child = fork();
    if (child < 0) return 4;
    if (child == 0) {
      jp_begin_named("in the forked child");
      jp_end();
      return 0;
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) return 5;
  }
  jp_begin_named("left open at exit");
  return 0;
}
