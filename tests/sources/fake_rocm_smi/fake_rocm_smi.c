/* A stand-in for librocm_smi64.so.1 that the rocm-smi backend loads through its real dlopen path
 * (JOULEPROF_ROCM_SMI_LIBRARY). It exports the ROCm SMI functions jouleprof calls, with C linkage
 * and the signatures of rocm_smi.h, and behaves as the scenario named in FAKE_ROCM_SMI_SCENARIO
 * (read by rsmi_init) says:
 *   two_gpus (default)  device 0 (Fake MI210) has the energy counter (+1000 counts of 15.3 µJ per
 *                       read), average power 300 W and an edge temperature; device 1 (Fake MI50)
 *                       answers NOT_SUPPORTED for energy and the edge sensor, so it falls back to
 *                       power (150 W) and its junction temperature. Two compute processes run.
 *   steady_power        device 0 only: its counter follows FAKE_ROCM_SMI_WATTS (default 200) on
 *                       the monotonic clock, updating every millisecond, with the update's time as
 *                       the timestamp (on a clock 1000 s ahead of CLOCK_MONOTONIC).
 *   wrap                like two_gpus, but device 0's counter starts 1500 counts below 2^32.
 *   reset               like two_gpus, but device 0's counter falls to 100 counts at its fourth
 *                       call (a driver reload), then counts on.
 *   energy_fails        like two_gpus, but device 0's energy calls fail from the fourth on (the
 *                       first is the backend's probe at discovery) with
 *                       RSMI_STATUS_UNEXPECTED_DATA.
 *   energy_permission   energy reads answer RSMI_STATUS_PERMISSION; power still reads.
 *   init_permission     rsmi_init returns RSMI_STATUS_PERMISSION.
 *   init_error          rsmi_init returns RSMI_STATUS_INIT_ERROR, printing first what the real
 *                       library prints on a machine without an AMD GPU (stderr and stdout).
 *   no_gpus             initialises, with zero devices. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef uint32_t rsmi_status_t;

typedef struct {
  uint32_t process_id;
  uint32_t pasid;
  uint64_t vram_usage;
  uint64_t sdma_usage;
  uint32_t cu_occupancy;
} rsmi_process_info_t;

enum {
  SUCCESS = 0x0,
  INVALID_ARGS = 0x1,
  NOT_SUPPORTED = 0x2,
  PERMISSION = 0x4,
  INIT_ERROR = 0x8,
  NOT_FOUND = 0xA,
  INSUFFICIENT_SIZE = 0xB,
  UNEXPECTED_DATA = 0xF,
};
#define UNKNOWN_ERROR 0xFFFFFFFFu

static char scenario[64];
static int initialised;
static int init_calls;
static int shutdown_calls;
static int energy_reads[2];
static uint64_t counts[2];
static double origin_s;

static int is(const char* name) { return strcmp(scenario, name) == 0; }

static double monotonic_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t device_count(void) {
  if (is("no_gpus")) return 0;
  return is("steady_power") ? 1 : 2;
}

rsmi_status_t rsmi_init(uint64_t flags) {
  (void)flags;
  const char* chosen = getenv("FAKE_ROCM_SMI_SCENARIO");
  strncpy(scenario, chosen != NULL ? chosen : "two_gpus", sizeof scenario - 1);
  ++init_calls;
  if (is("init_permission")) return PERMISSION;
  if (is("init_error")) {
    fprintf(stderr,
            "Failed to open drm root directory /sys/class/drm.: No such file or directory\n");
    printf("Exception caught: rsmi_init.\n");
    return INIT_ERROR;
  }
  initialised = 1;
  energy_reads[0] = energy_reads[1] = 0;
  counts[0] = is("wrap") ? 4294967296ull - 1500 : 5000000ull;
  counts[1] = 0;
  origin_s = monotonic_s();
  return SUCCESS;
}

rsmi_status_t rsmi_shut_down(void) {
  if (!initialised) return INIT_ERROR;
  initialised = 0;
  ++shutdown_calls;
  return SUCCESS;
}

/* The texts of ROCm SMI 5's rsmi_status_string for the codes the scenarios return; like the real
 * library, an unknown code gets a text and RSMI_STATUS_UNKNOWN_ERROR. */
rsmi_status_t rsmi_status_string(rsmi_status_t status, const char** text) {
  if (text == NULL) return INVALID_ARGS;
  switch (status) {
    case SUCCESS:
      *text = "RSMI_STATUS_SUCCESS: The function has been executed successfully.";
      return SUCCESS;
    case NOT_SUPPORTED:
      *text =
          "RSMI_STATUS_NOT_SUPPORTED: This function is not supported in the current environment.";
      return SUCCESS;
    case PERMISSION:
      *text =
          "RSMI_STATUS_PERMISSION: The user ID of the calling process does not have sufficient "
          "permission to execute a command.  Often this is fixed by running as root (sudo).";
      return SUCCESS;
    case INIT_ERROR:
      *text =
          "An error occurred during initialization, during monitor discovery or when when "
          "initializing internal data structures";
      return SUCCESS;
    case UNEXPECTED_DATA:
      *text = "Data (usually from reading a file) was not of the type that was expected";
      return SUCCESS;
    default:
      *text = "An unknown error occurred";
      return UNKNOWN_ERROR;
  }
}

rsmi_status_t rsmi_num_monitor_devices(uint32_t* count) {
  if (!initialised) return INIT_ERROR;
  *count = device_count();
  return SUCCESS;
}

static rsmi_status_t valid(uint32_t device) {
  if (!initialised) return INIT_ERROR;
  return device < device_count() ? SUCCESS : INVALID_ARGS;
}

rsmi_status_t rsmi_dev_name_get(uint32_t device, char* name, size_t length) {
  if (valid(device) != SUCCESS) return valid(device);
  const char* text = device == 0 ? "Fake MI210" : "Fake MI50";
  if (strlen(text) + 1 > length) return INSUFFICIENT_SIZE;
  strcpy(name, text);
  return SUCCESS;
}

rsmi_status_t rsmi_dev_pci_id_get(uint32_t device, uint64_t* bdfid) {
  if (valid(device) != SUCCESS) return valid(device);
  /* 0000:03:00.0 and 0000:83:00.0 */
  *bdfid = device == 0 ? (0x03ull << 8) : (0x83ull << 8);
  return SUCCESS;
}

rsmi_status_t rsmi_dev_energy_count_get(uint32_t device, uint64_t* count, float* resolution,
                                        uint64_t* timestamp) {
  if (valid(device) != SUCCESS) return valid(device);
  if (count == NULL || timestamp == NULL) return INVALID_ARGS;
  if (device == 1 || is("energy_permission")) return device == 1 ? NOT_SUPPORTED : PERMISSION;
  ++energy_reads[0];
  if (is("energy_fails") && energy_reads[0] > 3) return UNEXPECTED_DATA;
  if (resolution != NULL) *resolution = 15.3F;
  if (is("steady_power")) {
    const double watts = getenv("FAKE_ROCM_SMI_WATTS") ? atof(getenv("FAKE_ROCM_SMI_WATTS")) : 200;
    const double updated_s = origin_s + (double)(uint64_t)((monotonic_s() - origin_s) * 1e3) * 1e-3;
    *count = 5000000ull + (uint64_t)(watts * (updated_s - origin_s) * 1e6 / 15.3);
    *timestamp = (uint64_t)((updated_s + 1000.0) * 1e9);
    return SUCCESS;
  }
  if (energy_reads[0] > 1) counts[0] += 1000;
  if (is("reset") && energy_reads[0] == 4) counts[0] = 100;
  counts[0] &= 0xffffffffull; /* a 32-bit firmware counter */
  *count = counts[0];
  *timestamp = (uint64_t)energy_reads[0] * 1000000ull; /* 1 ms apart on the firmware clock */
  return SUCCESS;
}

rsmi_status_t rsmi_dev_power_ave_get(uint32_t device, uint32_t sensor, uint64_t* power) {
  if (valid(device) != SUCCESS) return valid(device);
  if (sensor != 0) return NOT_SUPPORTED;
  *power = device == 0 ? 300000000ull : 150000000ull;
  return SUCCESS;
}

rsmi_status_t rsmi_dev_temp_metric_get(uint32_t device, uint32_t sensor_type, int metric,
                                       int64_t* temperature) {
  if (valid(device) != SUCCESS) return valid(device);
  if (metric != 0) return NOT_SUPPORTED;
  if (sensor_type == 0 && device == 0) {
    *temperature = 45000;
    return SUCCESS;
  }
  if (sensor_type == 1 && device == 1) {
    *temperature = 60500;
    return SUCCESS;
  }
  return NOT_SUPPORTED;
}

static const rsmi_process_info_t processes[2] = {
    {4242, 1, 1073741824ull, 1500, 35},
    {4343, 2, 268435456ull, 0, 10},
};

rsmi_status_t rsmi_compute_process_info_get(rsmi_process_info_t* procs, uint32_t* num_items) {
  if (!initialised) return INIT_ERROR;
  if (num_items == NULL) return INVALID_ARGS;
  if (procs == NULL) {
    *num_items = 2;
    return SUCCESS;
  }
  const uint32_t n = *num_items < 2 ? *num_items : 2;
  memcpy(procs, processes, n * sizeof processes[0]);
  *num_items = n;
  return n < 2 ? INSUFFICIENT_SIZE : SUCCESS;
}

rsmi_status_t rsmi_compute_process_gpus_get(uint32_t pid, uint32_t* devices, uint32_t* count) {
  if (!initialised) return INIT_ERROR;
  if (count == NULL) return INVALID_ARGS;
  uint32_t found[2];
  uint32_t n = 0;
  if (pid == 4242) {
    found[n++] = 0;
  } else if (pid == 4343) {
    found[n++] = 0;
    found[n++] = 1;
  } else {
    return NOT_FOUND;
  }
  if (devices == NULL) {
    *count = n;
    return SUCCESS;
  }
  const uint32_t written = *count < n ? *count : n;
  memcpy(devices, found, written * sizeof found[0]);
  *count = written;
  return written < n ? INSUFFICIENT_SIZE : SUCCESS;
}

int fake_rocm_smi_init_calls(void) { return init_calls; }
int fake_rocm_smi_shutdown_calls(void) { return shutdown_calls; }
