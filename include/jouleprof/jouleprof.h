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
 * Sections: common (status and errors), recording, clock and external spans, monitor,
 * attribution, reports, progress and gated measurement. docs/capi.md describes the library as a
 * whole.
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
enum jp_pass {
  JP_PASS_NONE = 0,
  JP_PASS_FORWARD = 1,
  JP_PASS_BACKWARD = 2,
  JP_PASS_OPTIMIZER = 3,
  JP_PASS_COMMUNICATION = 4 /* collectives and the waiting at them */
};

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
/* Training epochs (= jouleprof::epoch_begin / epoch_end): marks named "epoch_begin" and
 * "epoch_end", and under `jouleprof run --epochs` the run's per-epoch figures. Epoch 1 starts at
 * the first jp_epoch_begin; without one, at the first step, else at the start of the run. */
void jp_epoch_begin(void);
void jp_epoch_end(void);

/* Convenience for scripting languages: interns `name` on every call (a lock and a hash lookup,
 * roughly ten times the cost of jp_begin), then begins a JP_CATEGORY_REGION span. */
void jp_begin_named(const char* name);

/* Off the hot path: attaches key=value (a shape, a byte count) to the innermost span open on this
 * thread. JP_ERR_INVALID_INPUT for a NULL key or value. */
jp_status jp_annotate(const char* key, const char* value);

/* Recording sessions. start clears earlier records. */
void jp_recorder_start(void);
void jp_recorder_stop(void);
int jp_recorder_enabled(void);      /* 1 while recording, else 0 */
uint64_t jp_recorder_dropped(void); /* records lost to full per-thread buffers */

/* Collects everything recorded so far (it is not returned again) and writes it to `path` as a
 * jouleprof span dump (docs/timeline.md). */
jp_status jp_recorder_write_spans(const char* path);

/* ---- Export macro ----------------------------------------------------------------------------
 * libjouleprof.so is built with hidden visibility and a linker version script that exports only
 * the jp_* symbols; JP_API marks the declarations below as part of that surface. */
#if defined(__GNUC__)
#define JP_API __attribute__((visibility("default")))
#else
#define JP_API
#endif

/* The version of the loaded libjouleprof.so ("0.2.0"); a static string. */
JP_API const char* jp_version(void);

/* ---- Clock and external spans -------------------------------------------------------------- */

/* Now on jouleprof's one clock: CLOCK_MONOTONIC nanoseconds. Thread-safe. */
JP_API int64_t jp_now_ns(void);

/* Off the hot path (allocates, takes a lock): a span with explicit times on its own CPU track
 * named `track` (e.g. "nvtx ranges"), consuming the channels of `device` ("cpu0" when NULL).
 * For spans that begin on one thread and end on another. Parents come from containment on that
 * track. Accepted whether or not recording is on; jp_recorder_start discards earlier ones.
 * JP_ERR_INVALID_INPUT for a NULL track, JP_INVALID_NAME or end_ns < begin_ns. Thread-safe. */
JP_API jp_status jp_add_span(const char* track, const char* device, jp_name_id name,
                             int64_t begin_ns, int64_t end_ns, int category);

/* Off the hot path: imports a trace (as jp_attribute reads one: torch.profiler, any Chrome trace;
 * backward nodes linked to their modules, the clock mapped from its jouleprof::clock_sync scope or
 * its realtime base) and adds its spans to the recorder, each trace track as a track of its own
 * named "trace: <track>", so that they are in what the next collect returns (a
 * JOULEPROF_SPANS_FILE dump: a process under `jouleprof run --spans` adds its torch.profiler trace
 * to the run this way). JP_ERR_NOT_FOUND for a missing file; JP_ERR_INVALID_INPUT when the
 * trace cannot be read or its times have no known clock. Thread-safe. */
JP_API jp_status jp_recorder_add_trace(const char* trace_path);

/* Under JOULEPROF_SPANS_FILE (`jouleprof run --spans`): writes the span dump now instead of at
 * exit, and only once (the exit handler then writes nothing; what is recorded after this call is
 * not in it). For a process that may not exit normally: Python re-raises SIGINT after an unhandled
 * KeyboardInterrupt, so C exit handlers never run there (the jouleprof package calls this from
 * its own atexit handler). JP_OK, writing nothing, when the variable is not set. */
JP_API jp_status jp_recorder_flush_spans_file(void);

/* ---- Monitor: measure energy around any piece of work --------------------------------------
 *
 *   jp_monitor* m = NULL;
 *   if (jp_monitor_start("simulated", "{\"settings\": {\"simulate.watts\": 40}}", &m) != JP_OK)
 *     fprintf(stderr, "%s\n", jp_last_error());
 *   ... work, with jp_begin/jp_end regions ...
 *   jp_totals totals = JP_TOTALS_INIT;
 *   jp_monitor_stop(m, "profile.json", &totals);   // m is released here, whatever the result
 *
 * `sources`: comma-separated source names as `jouleprof sensors` lists them, NULL or "" for the
 * default set (every measured source found here, else the CPU estimate).
 * `options_json`: NULL or a JSON object, every key optional:
 *   "interval_ms"   number   poll period of every source (default: each source's own)
 *   "sysfs_root"    string   prefix for /sys, /proc, /dev (tests use fake trees)
 *   "settings"      object   backend settings, e.g. {"simulate.watts": 40, "simulate.seed": 3}
 *                            (numbers are passed on as text; docs/sources.md lists the keys)
 *   "record_spans"  bool     start the recorder with the monitor and put its spans into the
 *                            profile (default true; it clears earlier records)
 *   "attribute"     bool     attribute the samples to those spans when the monitor stops
 *                            (default true; needs at least one span)
 *   "observe"       "self" (default: this process and its descendants), "none", {"pid": N} or
 *                   {"cgroup": "PATH"}: whose attributed share of every counter the profile's
 *                   channels carry beside the machine's (process_energy_j; docs/sharing.md)
 *   "static_share"  string   "cpu-time" (default), "none" or "all": how the observed processes
 *                            get the idle part of a shared counter (none/all need a baseline)
 * Errors: JP_ERR_INVALID_INPUT (bad JSON, unknown key or source name), JP_ERR_UNAVAILABLE (no
 * source available: the message says why each is not).
 *
 * Ownership: jp_monitor_start allocates the monitor; jp_monitor_stop stops it, writes the profile
 * and releases it (also when it fails), so every started monitor is stopped exactly once.
 * Thread safety: a monitor is used by one thread at a time; several monitors may run at once, but
 * only one should record spans (the recorder is process-wide). */
typedef struct jp_monitor jp_monitor;

/* What one monitored run measured (top-level channels only, nested ones are never added). The
 * observed processes' share is in the profile (channels[].process_energy_j).
 * Versioned by size: set `size` to sizeof(jp_totals) before the call (JP_TOTALS_INIT does); the
 * library fills only the fields that fit in it, so a program built against an older header keeps
 * working with a newer library, and an older library leaves the newer fields as they were.
 * `size` below the first version's (the fields up to `spans`) is JP_ERR_INVALID_INPUT. */
typedef struct jp_totals {
  uint32_t size;       /* sizeof(jp_totals), set by the caller */
  double energy_j;     /* gross energy over the run window: the machine's */
  double duration_s;   /* run window */
  double mean_power_w; /* energy_j / duration_s */
  uint64_t spans;      /* spans recorded into the profile */
  /* since 0.2: energy_j's 95 % interval (docs/uncertainty.md) and the term that dominates it
   * ("gain", "window-edges", …; a static string) */
  double energy_low_j;
  double energy_high_j;
  const char* uncertainty_dominant;
  /* with profile schema 5: the steps (spans of JP_CATEGORY_STEP, attributed; 0 when fewer than
   * two, and then the rest is 0 too), one step's mean energy and its 95 % interval: the Student-t
   * interval over the steps with the attribution's terms (docs/uncertainty.md, "Repetition") */
  uint64_t steps;
  double step_energy_j;
  double step_low_j;
  double step_high_j;
} jp_totals;
/* Every field named, so that -Wextra stays quiet in C and C++; keep in step with the struct. */
#define JP_TOTALS_INIT \
  { sizeof(jp_totals), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }

JP_API jp_status jp_monitor_start(const char* sources, const char* options_json,
                                  jp_monitor** out_monitor);

/* Since 0.2: what the measured program knows of its run and the samples cannot show, kept for the
 * profile jp_monitor_stop writes. jp_monitor_warn adds `warning` to the profile's warnings.
 * jp_monitor_cut_short marks the profile partial (meta.partial: the work ended early, by an
 * exception or an interrupt, so the figures cover it until then) and adds `reason` to its
 * warnings. A NULL argument is JP_ERR_INVALID_INPUT. */
JP_API jp_status jp_monitor_warn(jp_monitor* monitor, const char* warning);
JP_API jp_status jp_monitor_cut_short(jp_monitor* monitor, const char* reason);

/* Stops sampling (and the recorder when the monitor started it), builds the profile, attributes
 * it when asked and writes it to `profile_path` (docs/schema.md; NULL: not written). `out_totals`
 * may be NULL. An attribution that fails leaves a warning in the profile instead of failing the
 * call (the measurement is kept). */
JP_API jp_status jp_monitor_stop(jp_monitor* monitor, const char* profile_path,
                                 jp_totals* out_totals);

/* ---- Attribution: a recording's samples → energy per span ------------------------------------
 *
 * The `jouleprof attribute` job (the library's attribute_recording_files; the same recording gives
 * the same profile through the command line, this call and Python). Reads the energy readings at
 * `samples_path` — a profile (docs/schema.md: its series, run window, clock anchor and, when
 * `trace_path` is NULL, its spans), a jouleprof samples.csv or an NVML poll log — takes the
 * timeline imported from `trace_path` when it is not NULL (PyTorch profiler / Kineto,
 * TensorFlow, any Chrome trace, a jouleprof span dump; docs/timeline.md), attributes the samples
 * to it and writes the resulting profile (tree, per-channel records, epochs, warnings) to
 * `output_profile_path`.
 * `options_json`: NULL or a JSON object, every key optional:
 *   "method"        string  auto | interpolate | hold | regress | calibrated | time-split
 *   "classes"       string  span classes for regress/calibrated: "name" (default) or "kernel"
 *   "calibration"   string  a calibration JSON (per-class power weights, docs/attribution.md)
 *   "idle_power_w"  number  measured baseline of every top-level channel, or an object of them
 *                           per channel id (static/dynamic split)
 *   "window"        string  "run" (default: the recording's first and last mark, else the
 *                           profile's run window, so that the tree sums to the measured total)
 *                           or "timeline" (the spans' extent)
 *   "meta"          string  recording metadata JSON (anchor_realtime_ns, anchor_monotonic_ns,
 *                           marks), as `jouleprof attribute --meta` reads it
 *   "channel_devices" object channel id → device whose tracks consume it
 *   "split_passes"  bool    insert [forward]/[backward]/[optimizer] nodes (default true)
 *   "trace_offset_ns" int   monotonic_ns = trace time (ns) + this, for traces whose clock is
 *                           not known; default: the importer's clock mapping (docs/timeline.md:
 *                           the trace's jouleprof::clock_sync scope, else its realtime base
 *                           through the profile's anchor)
 * Errors (JP_ERR_INVALID_INPUT, nothing written): a trace whose times have no known clock, or of
 * whose span time under half lies inside the samples' window (the message names both windows in
 * wall-clock time); no spans; an attribution in which no span received energy.
 * Thread-safe (no shared state); the files are the caller's. */
JP_API jp_status jp_attribute(const char* samples_path, const char* trace_path,
                              const char* output_profile_path, const char* options_json);

/* ---- Reports: what a profile holds, in the formats people read ------------------------------
 *
 * Each reads the profile at `profile_path` (docs/schema.md). Thread-safe; the files are the
 * caller's. */

/* Writes the report `format` (text, json, csv, trace, flamegraph, html: docs/reports.md) to
 * `output_path`. JP_ERR_INVALID_INPUT for an unknown format or a profile the format cannot show
 * (a flame graph needs a breakdown tree). */
JP_API jp_status jp_report(const char* profile_path, const char* format, const char* output_path);

/* The breakdown tree as the text table the command line prints (node, energy, share of the
 * total, % of the parent, power, time, calls, provenance; children largest first).
 * `options_json`: NULL or a JSON object, every key optional:
 *   "max_depth"     int     levels below the root (default -1: all)
 *   "max_rows"      int     rows, then one "(N more rows)" line (default: no limit)
 *   "max_children"  int     children shown per node, then "(N more)" (default: no limit)
 *   "min_share"     number  hide nodes below this share of their parent, 0..1 (default 0)
 * `*out_text` is set to the text (UTF-8), valid until the next jp_format_tree call on this
 * thread; "" when the call fails. JP_ERR_INVALID_INPUT when the profile has no tree. */
JP_API jp_status jp_format_tree(const char* profile_path, const char* options_json,
                                const char** out_text);

/* Writes the profile's measured series as samples.csv (docs/schema.md), the file
 * `jouleprof attribute --samples` reads. */
JP_API jp_status jp_write_samples(const char* profile_path, const char* samples_path);

/* ---- Progress and gated measurement: a caller's function measured by FECoM's protocol --------
 *
 *   static int work(void* user) { run_my_kernel(user); return 0; }
 *   static int show(const jp_progress* p, void* user) {
 *     fprintf(stderr, "rep %llu/%llu %s\n", p->step, p->steps, p->phase);
 *     return 0;                                      // non-zero: stop, keeping what was measured
 *   }
 *   jp_gated_result r = JP_GATED_RESULT_INIT;
 *   jp_measure_gated(NULL, "{\"preset\": \"quick\"}", work, NULL, show, NULL, "profile.json", &r);
 *
 * Long work reports its progress to a jp_progress_fn (the library never prints). It is called on
 * the thread doing the work; the struct and its strings are valid during the call only. Returning
 * non-zero asks the work to stop at its next checkpoint (within ~0.2 s, or after the call under
 * way): it then keeps the repetitions it finished and says what is missing. */

/* Event kinds (= jouleprof::ProgressEventKind). */
enum jp_progress_kind {
  JP_PROGRESS_BEGIN = 0,
  JP_PROGRESS_ITEM = 1,
  JP_PROGRESS_STEP = 2, /* a repetition starts */
  JP_PROGRESS_PHASE = 3,
  JP_PROGRESS_GATE = 4, /* the stability gate checked the machine */
  JP_PROGRESS_TICK = 5, /* time passes inside a phase (at most once a second) */
  JP_PROGRESS_END = 6
};

typedef struct jp_progress {
  int kind; /* jp_progress_kind */
  const char* task;
  uint64_t item; /* 1-based, 0 before the first; items = 0 when the work has none */
  uint64_t items;
  const char* item_name;
  uint64_t step; /* repetition, 1-based */
  uint64_t steps;
  const char* phase; /* "warm-up", "gate", "calls", "tail" or "" */
  int has_gate;      /* 1 while the gate waits: the gate_* fields are set */
  const char* gate_channel;
  double gate_value;     /* the channel's CV, or its temperature in °C */
  double gate_threshold; /* the CV threshold, or the temperature cap */
  int gate_temperature;
  int gate_passed;
  uint32_t gate_checks;
  int64_t gate_waited_ns;
  int64_t elapsed_ns;
  int64_t eta_ns;      /* -1: not known */
  int64_t estimate_ns; /* the whole work, estimated before it started */
  double done;         /* share done, 0 … 1 */
} jp_progress;

typedef int (*jp_progress_fn)(const jp_progress* progress, void* user_data);

/* The measured function: 0 on success; anything else ends the measurement (kept in part). */
typedef int (*jp_measured_fn)(void* user_data);

/* Per call, over the repetitions measured; energies are the top-level channels' sum. Versioned
 * by size as jp_totals is: set `size` to sizeof(jp_gated_result) (JP_GATED_RESULT_INIT). */
typedef struct jp_gated_result {
  uint32_t size;        /* sizeof(jp_gated_result), set by the caller */
  uint64_t repetitions; /* measured */
  uint64_t repetitions_asked;
  double total_j;      /* mean energy per call */
  double net_j;        /* mean energy per call above the idle baseline the gate measured */
  double net_stdev_j;  /* across repetitions */
  double call_s;       /* mean time per call */
  int64_t estimate_ns; /* what the settings were estimated to take */
  int64_t took_ns;
  int incomplete; /* 1: fewer repetitions than asked (gate timeout, failure or stop); the
                     profile's warnings say why */
  /* since 0.2: the 95 % intervals of total_j and net_j (the repetitions' Student-t interval with
   * each source's gain error; docs/uncertainty.md) and the term that dominates net_j's */
  double total_low_j;
  double total_high_j;
  double net_low_j;
  double net_high_j;
  const char* uncertainty_dominant;
} jp_gated_result;
#define JP_GATED_RESULT_INIT \
  { sizeof(jp_gated_result), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }

/* Measures `fn` with the gated protocol (docs/measure.md): warm-up, stability gate, the call
 * repeated until its window spans K counter updates, tail wait, R repetitions.
 * `sources`: as jp_monitor_start's. `options_json`: NULL or a JSON object, every key optional:
 *   "preset"          string  fecom | standard (default) | quick | kernel
 *   "repetitions", "warmup", "last_n", "min_updates"             int     override the preset
 *   "interval_ms", "check_period_s", "gate_timeout_s", "tail_wait_s", "tolerance"  number
 *   "sysfs_root", "settings"  as jp_monitor_start's
 * `progress` may be NULL. `profile_path` (NULL: not written) receives every sample of the
 * measurement, with the preset in its options (gated.preset). `out_result` may be NULL.
 * Errors: JP_ERR_INVALID_INPUT (options), JP_ERR_UNAVAILABLE (no source), the function failing
 * during warm-up (nothing measured). A measurement that ends early is not an error: `incomplete`
 * is set. Not reentrant with respect to `fn`; several measurements may run on different threads. */
JP_API jp_status jp_measure_gated(const char* sources, const char* options_json, jp_measured_fn fn,
                                  void* fn_user_data, jp_progress_fn progress,
                                  void* progress_user_data, const char* profile_path,
                                  jp_gated_result* out_result);

#ifdef __cplusplus
}
#endif

#endif /* JOULEPROF_JOULEPROF_H_ */
