/* A stand-in for libnvidia-ml.so.1 that the nvml backend loads through its real dlopen path
 * (JOULEPROF_NVML_LIBRARY). It exports the NVML functions jouleprof calls, with C linkage and the
 * documented signatures, and behaves as the scenario named in FAKE_NVML_SCENARIO (read by
 * nvmlInit_v2) says:
 *   two_gpus (default)  gpu 0 has the energy counter (+250 mJ per read), power, both power fields
 *                       and temperature; gpu 1 answers NOT_SUPPORTED for energy and for the
 *                       instant field, so it falls back to power.
 *   old_gpus            two GPUs without the energy counter or the power fields.
 *   gpu_lost            like two_gpus, but gpu 0 falls off the bus after its third energy read.
 *   init_no_permission  nvmlInit_v2 returns NVML_ERROR_NO_PERMISSION.
 *   driver_not_loaded   nvmlInit_v2 returns NVML_ERROR_DRIVER_NOT_LOADED.
 *   no_gpus             initialises, with zero devices.
 *   no_process_utilisation  like two_gpus, but per-process utilisation is NOT_SUPPORTED (the
 *                       running-process list is all there is).
 *   mig                 like two_gpus, with MIG enabled on gpu 0.
 * FAKE_NVML_PROCESSES="PID:SM,PID:SM…" (read by nvmlInit_v2) are the compute processes on gpu 0,
 * each at SM% utilisation: every nvmlDeviceGetProcessUtilization call returns one new sample per
 * process, stamped now; gpu 1 runs nothing.
 * fake_nvml_* functions let a test see how it was called. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int nvmlReturn_t;
typedef struct fake_device {
  unsigned index;
} * nvmlDevice_t;

typedef union {
  double dVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
  signed int siVal;
  unsigned short usVal;
} nvmlValue_t;

typedef struct {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
} nvmlFieldValue_t;

enum {
  SUCCESS = 0,
  ERROR_UNINITIALIZED = 1,
  ERROR_INVALID_ARGUMENT = 2,
  ERROR_NOT_SUPPORTED = 3,
  ERROR_NO_PERMISSION = 4,
  ERROR_INSUFFICIENT_SIZE = 7,
  ERROR_DRIVER_NOT_LOADED = 9,
  ERROR_GPU_IS_LOST = 15,
};

static struct fake_device devices[2] = {{0}, {1}};
static int initialised;
static int init_calls;
static int shutdown_calls;
static int energy_reads[2];
static unsigned long long energy_mj[2];
static char scenario[64];

typedef struct {
  unsigned int pid;
  unsigned long long timeStamp;
  unsigned int smUtil;
  unsigned int memUtil;
  unsigned int encUtil;
  unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlProcessInfo_v2_t;

enum { MAX_PROCESSES = 8 };
static unsigned process_pid[MAX_PROCESSES];
static unsigned process_sm[MAX_PROCESSES];
static int process_count;
static unsigned long long last_sample_us;
static int utilisation_calls;

static void read_processes(void) {
  const char* text = getenv("FAKE_NVML_PROCESSES");
  process_count = 0;
  while (text != NULL && *text != '\0' && process_count < MAX_PROCESSES) {
    char* end = NULL;
    const unsigned long pid = strtoul(text, &end, 10);
    if (end == text || *end != ':') break;
    text = end + 1;
    const unsigned long sm = strtoul(text, &end, 10);
    if (end == text) break;
    process_pid[process_count] = (unsigned)pid;
    process_sm[process_count] = (unsigned)sm;
    ++process_count;
    text = *end == ',' ? end + 1 : end;
  }
}

static int is(const char* name) { return strcmp(scenario, name) == 0; }

nvmlReturn_t nvmlInit_v2(void) {
  const char* chosen = getenv("FAKE_NVML_SCENARIO");
  strncpy(scenario, chosen != NULL ? chosen : "two_gpus", sizeof scenario - 1);
  ++init_calls;
  if (is("init_no_permission")) return ERROR_NO_PERMISSION;
  if (is("driver_not_loaded")) return ERROR_DRIVER_NOT_LOADED;
  initialised = 1;
  energy_reads[0] = energy_reads[1] = 0;
  energy_mj[0] = 5000000ull;
  energy_mj[1] = 0;
  read_processes();
  last_sample_us = 0;
  utilisation_calls = 0;
  return SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
  if (!initialised) return ERROR_UNINITIALIZED;
  initialised = 0;
  ++shutdown_calls;
  return SUCCESS;
}

const char* nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case SUCCESS:
      return "Success";
    case ERROR_NOT_SUPPORTED:
      return "Not Supported";
    case ERROR_NO_PERMISSION:
      return "Insufficient Permissions";
    case ERROR_DRIVER_NOT_LOADED:
      return "Driver Not Loaded";
    case ERROR_GPU_IS_LOST:
      return "GPU is lost";
    default:
      return "Unknown Error";
  }
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  if (!initialised) return ERROR_UNINITIALIZED;
  *count = is("no_gpus") ? 0 : 2;
  return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  if (!initialised) return ERROR_UNINITIALIZED;
  if (index >= 2 || is("no_gpus")) return ERROR_INVALID_ARGUMENT;
  *device = &devices[index];
  return SUCCESS;
}

static nvmlReturn_t copy_text(const char* text, char* buffer, unsigned int length) {
  if (strlen(text) + 1 > length) return ERROR_INSUFFICIENT_SIZE;
  strcpy(buffer, text);
  return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  return copy_text(device->index == 0 ? "Fake H200" : "Fake P100", name, length);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  return copy_text(device->index == 0 ? "GPU-00000000-fake-0000-0000-000000000000"
                                      : "GPU-11111111-fake-1111-1111-111111111111",
                   uuid, length);
}

static int lost(nvmlDevice_t device) {
  return is("gpu_lost") && device->index == 0 && energy_reads[0] > 3;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long* energy) {
  if (!initialised) return ERROR_UNINITIALIZED;
  if (is("old_gpus") || device->index == 1) return ERROR_NOT_SUPPORTED;
  ++energy_reads[device->index];
  if (lost(device)) return ERROR_GPU_IS_LOST;
  energy_mj[device->index] += 250;
  *energy = energy_mj[device->index];
  return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* power_mw) {
  if (!initialised) return ERROR_UNINITIALIZED;
  if (lost(device)) return ERROR_GPU_IS_LOST;
  *power_mw = device->index == 0 ? 300000u : 150000u;
  return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int count, nvmlFieldValue_t* values) {
  if (!initialised) return ERROR_UNINITIALIZED;
  if (lost(device)) return ERROR_GPU_IS_LOST;
  for (int i = 0; i < count; ++i) {
    nvmlFieldValue_t* field = &values[i];
    field->nvmlReturn = ERROR_NOT_SUPPORTED;
    if (is("old_gpus")) continue;
    if (field->fieldId == 186 && device->index == 0) { /* NVML_FI_DEV_POWER_INSTANT */
      field->valueType = 1;                            /* unsigned int */
      field->value.uiVal = 310500u;
      field->nvmlReturn = SUCCESS;
    } else if (field->fieldId == 185) { /* NVML_FI_DEV_POWER_AVERAGE */
      if (device->index == 0) {
        field->valueType = 1;
        field->value.uiVal = 295250u;
      } else {
        field->valueType = 3; /* unsigned long long */
        field->value.ullVal = 149000ull;
      }
      field->nvmlReturn = SUCCESS;
    }
  }
  return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensor, unsigned int* celsius) {
  if (!initialised) return ERROR_UNINITIALIZED;
  if (sensor != 0) return ERROR_INVALID_ARGUMENT;
  if (lost(device)) return ERROR_GPU_IS_LOST;
  *celsius = device->index == 0 ? 45u : 52u;
  return SUCCESS;
}

static unsigned long long now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000ull;
}

enum { ERROR_NOT_FOUND = 6 };

nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device,
                                             nvmlProcessUtilizationSample_t* utilization,
                                             unsigned int* count,
                                             unsigned long long last_seen_timestamp) {
  if (!initialised) return ERROR_UNINITIALIZED;
  if (count == NULL) return ERROR_INVALID_ARGUMENT;
  if (is("no_process_utilisation") || (is("mig") && device->index == 0)) return ERROR_NOT_SUPPORTED;
  if (device->index != 0 || process_count == 0) return ERROR_NOT_FOUND;
  if (utilization == NULL) {
    *count = (unsigned)process_count;
    return ERROR_INSUFFICIENT_SIZE;
  }
  if (*count < (unsigned)process_count) {
    *count = (unsigned)process_count;
    return ERROR_INSUFFICIENT_SIZE;
  }
  /* A new sample per call, always later than the last one handed out. */
  unsigned long long t = now_us();
  if (t <= last_sample_us) t = last_sample_us + 1;
  if (t <= last_seen_timestamp) return ERROR_NOT_FOUND;
  last_sample_us = t;
  ++utilisation_calls;
  for (int i = 0; i < process_count; ++i) {
    utilization[i].pid = process_pid[i];
    utilization[i].timeStamp = t;
    utilization[i].smUtil = process_sm[i];
    utilization[i].memUtil = process_sm[i] / 2;
    utilization[i].encUtil = 0;
    utilization[i].decUtil = 0;
  }
  *count = (unsigned)process_count;
  return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int* count,
                                                     nvmlProcessInfo_v2_t* infos) {
  if (!initialised) return ERROR_UNINITIALIZED;
  if (count == NULL) return ERROR_INVALID_ARGUMENT;
  const unsigned running = device->index == 0 ? (unsigned)process_count : 0u;
  if (infos == NULL || *count < running) {
    *count = running;
    return running == 0 ? SUCCESS : ERROR_INSUFFICIENT_SIZE;
  }
  for (unsigned i = 0; i < running; ++i) {
    infos[i].pid = process_pid[i];
    infos[i].usedGpuMemory = 1ull << 30;
    infos[i].gpuInstanceId = 0xFFFFFFFFu;
    infos[i].computeInstanceId = 0xFFFFFFFFu;
  }
  *count = running;
  return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int* current,
                                  unsigned int* pending) {
  if (!initialised) return ERROR_UNINITIALIZED;
  *current = *pending = (is("mig") && device->index == 0) ? 1u : 0u;
  return SUCCESS;
}

/* gpu 0 is a Hopper (9), whose board power is a 1 s average; gpu 1 a Pascal (4): an instant's. */
nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, unsigned int* architecture) {
  if (!initialised) return ERROR_UNINITIALIZED;
  *architecture = device->index == 0 ? 9u : 4u;
  return SUCCESS;
}

int fake_nvml_process_utilisation_calls(void) { return utilisation_calls; }
int fake_nvml_init_calls(void) { return init_calls; }
int fake_nvml_shutdown_calls(void) { return shutdown_calls; }
