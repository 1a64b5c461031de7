/* A stand-in for libze_loader.so.1 that the level-zero backend loads through its real dlopen path
 * (JOULEPROF_LEVEL_ZERO_LIBRARY). It exports the Level Zero core and Sysman functions jouleprof
 * calls, with C linkage and the signatures of ze_api.h and zes_api.h, and behaves as the scenario
 * named in FAKE_LEVEL_ZERO_SCENARIO (read by zeInit) says:
 *   two_gpus (default)  one driver with three devices: gpu 0 (Fake Max 1550) has a card domain
 *                       (zesDeviceGetCardPowerDomain, listed again by the enumeration), a package
 *                       domain and two stack domains (listed before the package), each counter
 *                       advancing per read (card +3000 µJ, package +2500, stacks +1000) and
 *                       stamped 1 ms after the previous read on the device's clock, and a GPU
 *                       temperature sensor besides a sub-device one; a CPU device, which the
 *                       backend must skip; gpu 1 (Fake Arc A770) has a package domain only, told
 *                       by zes_power_ext_properties_t, and no temperature sensor. Processes
 *                       (zesDeviceProcessesGetState): 4242 on gpu 0 (1 GiB, compute and copy
 *                       engines) and on gpu 1 (256 MiB, compute), 4343 on gpu 0 (64 MiB of
 *                       shared memory, media); the first listing call with room for the processes
 *                       answers ZE_RESULT_ERROR_INVALID_SIZE, as when a process came meanwhile.
 *   steady_power        gpu 0 only, with one package domain whose counter follows
 *                       FAKE_LEVEL_ZERO_WATTS (default 200) on the monotonic clock.
 *   wrap                gpu 0's package counter advances 4000 µJ per read and wraps at 10000 µJ.
 *   energy_fails        gpu 0's counters fail from their fourth call on (the first is the
 *                       backend's probe at discovery) with ZE_RESULT_ERROR_DEVICE_LOST.
 *   energy_permission   every energy read answers ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS.
 *   no_domains          the GPUs have no power domains.
 *   uninitialized       zeInit returns ZE_RESULT_ERROR_UNINITIALIZED (no driver).
 *   no_gpus             one driver whose only device is a CPU.
 * fake_level_zero_sysman_enabled() says whether ZES_ENABLE_SYSMAN was 1 when zeInit ran. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef uint32_t ze_result_t;
typedef uint8_t ze_bool_t;

typedef struct {
  uint32_t stype;
  void* pNext;
  uint32_t type;
  uint32_t vendorId;
  uint32_t deviceId;
  uint32_t flags;
  uint32_t subdeviceId;
  uint32_t coreClockRate;
  uint64_t maxMemAllocSize;
  uint32_t maxHardwareContexts;
  uint32_t maxCommandQueuePriority;
  uint32_t numThreadsPerEU;
  uint32_t physicalEUSimdWidth;
  uint32_t numEUsPerSubslice;
  uint32_t numSubslicesPerSlice;
  uint32_t numSlices;
  uint64_t timerResolution;
  uint32_t timestampValidBits;
  uint32_t kernelTimestampValidBits;
  uint8_t uuid[16];
  char name[256];
} ze_device_properties_t;

typedef struct {
  uint32_t stype;
  void* pNext;
  struct {
    uint32_t domain, bus, device, function;
  } address;
  struct {
    int32_t gen, width;
    int64_t maxBandwidth;
  } maxSpeed;
  ze_bool_t haveBandwidthCounters, havePacketCounters, haveReplayCounters;
} zes_pci_properties_t;

typedef struct {
  uint32_t stype;
  void* pNext;
  ze_bool_t onSubdevice;
  uint32_t subdeviceId;
  ze_bool_t canControl;
  ze_bool_t isEnergyThresholdSupported;
  int32_t defaultLimit, minLimit, maxLimit;
} zes_power_properties_t;

typedef struct {
  uint32_t stype;
  void* pNext;
  uint32_t domain;
  void* defaultLimit;
} zes_power_ext_properties_t;

typedef struct {
  uint64_t energy;
  uint64_t timestamp;
} zes_power_energy_counter_t;

typedef struct {
  uint32_t stype;
  void* pNext;
  uint32_t type;
  ze_bool_t onSubdevice;
  uint32_t subdeviceId;
  double maxTemperature;
  ze_bool_t isCriticalTempSupported, isThreshold1Supported, isThreshold2Supported;
} zes_temp_properties_t;

typedef struct {
  uint32_t stype;
  const void* pNext;
  uint32_t processId;
  uint64_t memSize;
  uint64_t sharedSize;
  uint32_t engines;
} zes_process_state_t;

enum {
  SUCCESS = 0,
  DEVICE_LOST = 0x70000001,
  INSUFFICIENT_PERMISSIONS = 0x70010000,
  UNINITIALIZED = 0x78000001,
  INVALID_ARGUMENT = 0x78000004,
  INVALID_NULL_POINTER = 0x78000007,
  INVALID_SIZE = 0x78000008,
  POWER_EXT_PROPERTIES = 0x28,
  DOMAIN_CARD = 1,
  DOMAIN_PACKAGE = 2,
  DOMAIN_STACK = 3,
};

struct fake_driver {
  int unused;
};
struct fake_device {
  int index; /* GPU index, -1 for the CPU device */
};
struct fake_power {
  int gpu;
  int domain;    /* DOMAIN_* */
  int subdevice; /* for stacks */
  uint64_t step; /* µJ per read */
  uint64_t energy;
  int reads;
};
struct fake_temperature {
  int gpu;
  uint32_t type;
  ze_bool_t on_subdevice;
  double celsius;
};

static char scenario[64];
static int initialised;
static int sysman_enabled;
static double origin_s;
static struct fake_driver driver;
static struct fake_device devices[3] = {{0}, {-1}, {1}};
static struct fake_power powers[5];
static struct fake_temperature temperatures[2] = {{0, 0, 1, 61.0}, {0, 1, 0, 55.5}};

static int is(const char* name) { return strcmp(scenario, name) == 0; }

static double monotonic_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

ze_result_t zeInit(uint32_t flags) {
  (void)flags;
  const char* chosen = getenv("FAKE_LEVEL_ZERO_SCENARIO");
  strncpy(scenario, chosen != NULL ? chosen : "two_gpus", sizeof scenario - 1);
  const char* sysman = getenv("ZES_ENABLE_SYSMAN");
  sysman_enabled = sysman != NULL && strcmp(sysman, "1") == 0;
  if (is("uninitialized")) return UNINITIALIZED;
  initialised = 1;
  origin_s = monotonic_s();
  /* gpu 0: stacks 0 and 1, package, card; gpu 1: package. */
  const struct fake_power initial[5] = {{0, DOMAIN_STACK, 0, 1000, 100000, 0},
                                        {0, DOMAIN_STACK, 1, 1000, 200000, 0},
                                        {0, DOMAIN_PACKAGE, 0, 2500, 300000, 0},
                                        {0, DOMAIN_CARD, 0, 3000, 400000, 0},
                                        {1, DOMAIN_PACKAGE, 0, 2500, 0, 0}};
  memcpy(powers, initial, sizeof powers);
  if (is("wrap")) {
    powers[2].step = 4000;
    powers[2].energy = 1000;
  }
  return SUCCESS;
}

ze_result_t zeDriverGet(uint32_t* count, struct fake_driver** drivers) {
  if (!initialised) return UNINITIALIZED;
  if (count == NULL) return INVALID_NULL_POINTER;
  if (drivers != NULL && *count >= 1) drivers[0] = &driver;
  *count = 1;
  return SUCCESS;
}

static int gpu_count(void) {
  if (is("no_gpus")) return 0;
  return is("two_gpus") || is("energy_fails") || is("energy_permission") || is("no_domains") ? 2
                                                                                             : 1;
}

ze_result_t zeDeviceGet(struct fake_driver* d, uint32_t* count, struct fake_device** out) {
  if (!initialised) return UNINITIALIZED;
  if (d != &driver || count == NULL) return INVALID_ARGUMENT;
  /* gpu 0, the CPU device, gpu 1 */
  const uint32_t n = gpu_count() == 0 ? 1 : gpu_count() == 1 ? 2 : 3;
  if (out != NULL) {
    struct fake_device* order[3] = {&devices[0], &devices[1], &devices[2]};
    if (gpu_count() == 0) order[0] = &devices[1];
    for (uint32_t i = 0; i < n && i < *count; ++i) out[i] = order[i];
  }
  *count = n;
  return SUCCESS;
}

ze_result_t zeDeviceGetProperties(struct fake_device* device, ze_device_properties_t* properties) {
  if (!initialised) return UNINITIALIZED;
  if (properties == NULL) return INVALID_NULL_POINTER;
  properties->type = device->index < 0 ? 2 : 1; /* ZE_DEVICE_TYPE_CPU : GPU */
  properties->vendorId = 0x8086;
  properties->deviceId = device->index == 0 ? 0x0bd5 : device->index == 1 ? 0x56a0 : 0;
  strcpy(properties->name, device->index == 0   ? "Fake Max 1550"
                           : device->index == 1 ? "Fake Arc A770"
                                                : "Fake CPU");
  return SUCCESS;
}

ze_result_t zesDevicePciGetProperties(struct fake_device* device, zes_pci_properties_t* p) {
  if (!initialised) return UNINITIALIZED;
  if (p == NULL) return INVALID_NULL_POINTER;
  memset(&p->address, 0, sizeof p->address);
  p->address.bus = device->index == 0 ? 0x3a : 0x4d;
  return SUCCESS;
}

static int has_domains(void) { return !is("no_domains"); }

ze_result_t zesDeviceGetCardPowerDomain(struct fake_device* device, struct fake_power** power) {
  if (!initialised) return UNINITIALIZED;
  if (device->index != 0 || gpu_count() != 2 || is("no_domains")) {
    return 0x78000003; /* ZE_RESULT_ERROR_UNSUPPORTED_FEATURE */
  }
  *power = &powers[3];
  return SUCCESS;
}

ze_result_t zesDeviceEnumPowerDomains(struct fake_device* device, uint32_t* count,
                                      struct fake_power** out) {
  if (!initialised) return UNINITIALIZED;
  if (count == NULL) return INVALID_NULL_POINTER;
  struct fake_power* listed[4];
  uint32_t n = 0;
  if (has_domains()) {
    if (device->index == 0 && gpu_count() == 2) {
      listed[n++] = &powers[0];
      listed[n++] = &powers[1];
      listed[n++] = &powers[2];
      listed[n++] = &powers[3];
    } else if (device->index == 0) {
      listed[n++] = &powers[2];
    } else if (device->index == 1) {
      listed[n++] = &powers[4];
    }
  }
  if (out != NULL) {
    for (uint32_t i = 0; i < n && i < *count; ++i) out[i] = listed[i];
  }
  *count = n;
  return SUCCESS;
}

ze_result_t zesPowerGetProperties(struct fake_power* power, zes_power_properties_t* properties) {
  if (!initialised) return UNINITIALIZED;
  if (properties == NULL) return INVALID_NULL_POINTER;
  properties->onSubdevice = power->domain == DOMAIN_STACK;
  properties->subdeviceId = (uint32_t)power->subdevice;
  zes_power_ext_properties_t* extension = properties->pNext;
  /* gpu 1's driver tells the domain only through the extension */
  if (extension != NULL && extension->stype == POWER_EXT_PROPERTIES) {
    extension->domain = (uint32_t)power->domain;
  }
  return SUCCESS;
}

ze_result_t zesPowerGetEnergyCounter(struct fake_power* power, zes_power_energy_counter_t* out) {
  if (!initialised) return UNINITIALIZED;
  if (out == NULL) return INVALID_NULL_POINTER;
  if (is("energy_permission")) return INSUFFICIENT_PERMISSIONS;
  ++power->reads;
  if (is("energy_fails") && power->gpu == 0 && power->reads > 3) return DEVICE_LOST;
  const double now_s = monotonic_s();
  if (is("steady_power")) {
    const double watts =
        getenv("FAKE_LEVEL_ZERO_WATTS") ? atof(getenv("FAKE_LEVEL_ZERO_WATTS")) : 200.0;
    out->energy = 7000000ull + (uint64_t)(watts * (now_s - origin_s) * 1e6);
  } else {
    if (power->reads > 1) power->energy += power->step;
    if (is("wrap")) power->energy %= 10000;
    out->energy = power->energy;
  }
  /* The capture time, in µs on the device's clock: the poll's time where the energy follows the
   * clock, elsewhere 1 ms after the previous capture however fast the reads come. */
  out->timestamp =
      is("steady_power") ? (uint64_t)(now_s * 1e6) : 5000000ull + 1000ull * power->reads;
  return SUCCESS;
}

ze_result_t zesDeviceEnumTemperatureSensors(struct fake_device* device, uint32_t* count,
                                            struct fake_temperature** out) {
  if (!initialised) return UNINITIALIZED;
  if (count == NULL) return INVALID_NULL_POINTER;
  const uint32_t n = device->index == 0 ? 2 : 0;
  if (out != NULL) {
    for (uint32_t i = 0; i < n && i < *count; ++i) out[i] = &temperatures[i];
  }
  *count = n;
  return SUCCESS;
}

ze_result_t zesTemperatureGetProperties(struct fake_temperature* sensor,
                                        zes_temp_properties_t* properties) {
  if (!initialised) return UNINITIALIZED;
  if (properties == NULL) return INVALID_NULL_POINTER;
  properties->type = sensor->type;
  properties->onSubdevice = sensor->on_subdevice;
  return SUCCESS;
}

ze_result_t zesTemperatureGetState(struct fake_temperature* sensor, double* celsius) {
  if (!initialised) return UNINITIALIZED;
  if (celsius == NULL) return INVALID_NULL_POINTER;
  *celsius = sensor->celsius;
  return SUCCESS;
}

int fake_level_zero_sysman_enabled(void) { return sysman_enabled; }

/* Two processes on gpu 0, one of them also on gpu 1; see the scenario list above. */
ze_result_t zesDeviceProcessesGetState(struct fake_device* device, uint32_t* count,
                                       zes_process_state_t* out) {
  static int listings;
  if (!initialised) return UNINITIALIZED;
  if (device == NULL) return INVALID_ARGUMENT;
  if (count == NULL) return INVALID_NULL_POINTER;
  static const zes_process_state_t gpu0[2] = {{0, NULL, 4242, 1u << 30, 0, 0x4u | 0x20u},
                                              {0, NULL, 4343, 0, 64u << 20, 0x10u}};
  static const zes_process_state_t gpu1[1] = {{0, NULL, 4242, 256u << 20, 0, 0x4u}};
  const zes_process_state_t* mine = device->index == 0 ? gpu0 : device->index == 1 ? gpu1 : NULL;
  const uint32_t n = device->index == 0 ? 2 : device->index == 1 ? 1 : 0;
  if (out == NULL) {
    *count = n;
    return SUCCESS;
  }
  if (listings++ == 0 || *count < n) {
    *count = n;
    return INVALID_SIZE;
  }
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t stype = out[i].stype;
    out[i] = mine[i];
    out[i].stype = stype;
  }
  *count = n;
  return SUCCESS;
}
