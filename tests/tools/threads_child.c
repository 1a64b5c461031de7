/* Run by run_command_test under `jouleprof run --spans`: two threads, each inside a span over the
 * same stretch of time; one spins on the CPU, the other waits for it. With spans weighed by their
 * threads' CPU time, the busy thread's span gets most of that stretch's energy. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "jouleprof/jouleprof.h"

/* CPU time, not wall time: on a loaded machine the spin takes longer, never less work. */
static const double kBusyCpuSeconds = 0.6;

static pthread_barrier_t g_started;
static atomic_int g_done;

static double thread_cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void* busy(void* unused) {
  (void)unused;
  pthread_barrier_wait(&g_started);
  jp_begin_named("busy");
  const double start = thread_cpu_s();
  volatile double x = 1.0;
  while (thread_cpu_s() - start < kBusyCpuSeconds) x = x * 1.0000001 + 1e-9;
  jp_end();
  atomic_store(&g_done, 1);
  return NULL;
}

static void* waiting(void* unused) {
  (void)unused;
  pthread_barrier_wait(&g_started);
  jp_begin_named("waiting");
  const struct timespec pause = {0, 5 * 1000 * 1000};
  while (!atomic_load(&g_done)) nanosleep(&pause, NULL);
  jp_end();
  return NULL;
}

int main(void) {
  if (!jp_recorder_enabled()) {
    fprintf(stderr, "threads_child: JOULEPROF_SPANS_FILE did not start the recorder\n");
    return 2;
  }
  pthread_barrier_init(&g_started, NULL, 2);
  pthread_t a;
  pthread_t b;
  if (pthread_create(&a, NULL, busy, NULL) != 0 || pthread_create(&b, NULL, waiting, NULL) != 0) {
    fprintf(stderr, "threads_child: pthread_create failed\n");
    return 3;
  }
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
