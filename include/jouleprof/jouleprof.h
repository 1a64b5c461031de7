/* jouleprof C API: a stable extern "C" surface for C, Python (ctypes) and other languages.
 *
 *   jp_recorder_start();
 *   jp_name_id step = jp_intern("train_step");     // once per name: takes a lock
 *   jp_begin(step, JP_CATEGORY_STEP);              // hot path: tens of nanoseconds
 *   ...
 *   jp_end();
 *   jp_epoch_end();
 *   if (jp_recorder_write_spans("spans.json") != JP_OK) fprintf(stderr, "%s\n", jp_last_error());
 *
 * No function throws or aborts on bad input; those that can fail return a jp_status and leave a
 * message for jp_last_error(). Enumerations have fixed values, the same as the C++ library's.
 * Sections: common (status and errors), recording.
 */
#ifndef JOULEPROF_JOULEPROF_H_
#define JOULEPROF_JOULEPROF_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Common: status codes and errors ------------------------------------------------------- */

/* 0 on success, else one of the jp_error values (= jouleprof::ErrorCode). */
typedef int jp_status;

enum jp_error {
  JP_OK = 0,
  JP_ERR_INVALID_INPUT = 1,
  JP_ERR_NOT_FOUND = 2,
  JP_ERR_PERMISSION_DENIED = 3,
  JP_ERR_UNAVAILABLE = 4,
  JP_ERR_IO = 5,
  JP_ERR_UNSUPPORTED = 6,
  JP_ERR_INTERNAL = 7,
  JP_ERR_INTERRUPTED = 8
};

/* The message of the last call that failed on this thread ("" if none). Valid until the next
 * failing call on this thread. */
const char* jp_last_error(void);

/* ---- Recording: spans from instrumented code ----------------------------------------------- */

typedef uint32_t jp_name_id;
#define JP_INVALID_NAME 0xFFFFFFFFu /* as a jp_name_id */

/* Span categories (= jouleprof::SpanCategory). */
enum jp_category {
  JP_CATEGORY_REGION = 0,
  JP_CATEGORY_MODEL = 1,
  JP_CATEGORY_LAYER = 2,
  JP_CATEGORY_OP = 3,
  JP_CATEGORY_KERNEL = 4,
  JP_CATEGORY_STEP = 5,
  JP_CATEGORY_EPOCH = 6,
  JP_CATEGORY_CALL = 7,
  JP_CATEGORY_MEMORY = 8
};

/* Training passes (= jouleprof::Pass). */
enum jp_pass { JP_PASS_NONE = 0, JP_PASS_FORWARD = 1, JP_PASS_BACKWARD = 2, JP_PASS_OPTIMIZER = 3 };

/* Interns a name once, up front (thread-safe; takes a lock). '/' in a name adds levels:
 * "encoder/layer_3". Returns JP_INVALID_NAME for a NULL name or when out of memory. */
jp_name_id jp_intern(const char* name);

/* Hot path: no locks, no allocation. When recording is off they cost one atomic load. An unknown
 * category counts as JP_CATEGORY_REGION, an unknown pass as JP_PASS_NONE. Nesting on a thread
 * builds the path; every jp_begin needs its jp_end on the same thread. */
void jp_begin(jp_name_id name, int category);
void jp_begin_pass(jp_name_id name, int category, int pass);
void jp_end(void);
void jp_mark(jp_name_id name);
void jp_epoch_end(void); /* a mark named "epoch_end" */

/* Convenience for scripting languages: interns `name` on every call (a lock and a hash lookup,
 * roughly ten times the cost of jp_begin), then begins a JP_CATEGORY_REGION span. */
void jp_begin_named(const char* name);

/* Off the hot path: attaches key=value (a shape, a byte count) to the innermost span open on this
 * thread. JP_ERR_INVALID_INPUT for a NULL key or value. */
jp_status jp_annotate(const char* key, const char* value);

/* Recording sessions. start clears earlier records. */
void jp_recorder_start(void);
void jp_recorder_stop(void);
int jp_recorder_enabled(void); /* 1 while recording, else 0 */
uint64_t jp_recorder_dropped(void); /* records lost to full per-thread buffers */

/* Collects everything recorded so far (it is not returned again) and writes it to `path` as a
 * jouleprof span dump (docs/timeline.md). */
jp_status jp_recorder_write_spans(const char* path);

#ifdef __cplusplus
}
#endif

#endif /* JOULEPROF_JOULEPROF_H_ */
