// The part of the Level Zero core and Sysman C API (level_zero/ze_api.h, zes_api.h) that the
// level-zero backend calls, declared here so that jouleprof builds without oneAPI and loads
// libze_loader.so.1 at run time. Layouts and values must match the loader's ABI exactly:
// tests/sources/gpu_abi_against_headers_test.cpp checks them against Debian's libze-dev headers
// (1.8).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sources/vendor_error.hpp"

namespace jouleprof::level_zero {

using Result = std::uint32_t;  // ze_result_t
using Bool = std::uint8_t;     // ze_bool_t
using StructureType = std::uint32_t;

struct DriverOpaque;
struct DeviceOpaque;
struct PowerOpaque;
struct TemperatureOpaque;
using Driver = DriverOpaque*;            // ze_driver_handle_t
using Device = DeviceOpaque*;            // ze_device_handle_t, and zes_device_handle_t
using Power = PowerOpaque*;              // zes_pwr_handle_t
using Temperature = TemperatureOpaque*;  // zes_temp_handle_t

// ze_result_t values the backend tells apart; describe_error knows every documented one.
inline constexpr Result kSuccess = 0;
inline constexpr Result kNotReady = 1;
inline constexpr Result kErrorDeviceLost = 0x70000001;
inline constexpr Result kErrorOutOfHostMemory = 0x70000002;
inline constexpr Result kErrorOutOfDeviceMemory = 0x70000003;
inline constexpr Result kErrorDeviceRequiresReset = 0x70000006;
inline constexpr Result kErrorDeviceInLowPowerState = 0x70000007;
inline constexpr Result kErrorInsufficientPermissions = 0x70010000;
inline constexpr Result kErrorNotAvailable = 0x70010001;
inline constexpr Result kErrorDependencyUnavailable = 0x70020000;
inline constexpr Result kErrorUninitialized = 0x78000001;
inline constexpr Result kErrorUnsupportedVersion = 0x78000002;
inline constexpr Result kErrorUnsupportedFeature = 0x78000003;
inline constexpr Result kErrorInvalidArgument = 0x78000004;
inline constexpr Result kErrorInvalidNullHandle = 0x78000005;
inline constexpr Result kErrorInvalidNullPointer = 0x78000007;
inline constexpr Result kErrorInvalidSize = 0x78000008;
inline constexpr Result kErrorInvalidEnumeration = 0x7800000c;
inline constexpr Result kErrorUnsupportedEnumeration = 0x7800000d;
inline constexpr Result kErrorUnknown = 0x7ffffffe;

inline constexpr std::uint32_t kInitGpuOnly = 0x1;  // ZE_INIT_FLAG_GPU_ONLY
inline constexpr std::uint32_t kDeviceTypeGpu = 1;  // ZE_DEVICE_TYPE_GPU

// ze_structure_type_t / zes_structure_type_t values of the structures passed in.
inline constexpr StructureType kStructureDeviceProperties = 0x3;     // ze_device_properties_t
inline constexpr StructureType kStructurePciProperties = 0x2;        // zes_pci_properties_t
inline constexpr StructureType kStructurePowerProperties = 0xd;      // zes_power_properties_t
inline constexpr StructureType kStructureTempProperties = 0x14;      // zes_temp_properties_t
inline constexpr StructureType kStructurePowerExtProperties = 0x28;  // zes_power_ext_properties_t
inline constexpr StructureType kStructureProcessState = 0x16;        // zes_process_state_t

// zes_power_domain_t.
inline constexpr std::uint32_t kPowerDomainUnknown = 0;
inline constexpr std::uint32_t kPowerDomainCard = 1;
inline constexpr std::uint32_t kPowerDomainPackage = 2;
inline constexpr std::uint32_t kPowerDomainStack = 3;

// zes_temp_sensors_t.
inline constexpr std::uint32_t kTempSensorsGlobal = 0;
inline constexpr std::uint32_t kTempSensorsGpu = 1;

inline constexpr std::size_t kMaxDeviceName = 256;     // ZE_MAX_DEVICE_NAME
inline constexpr std::size_t kMaxDeviceUuidSize = 16;  // ZE_MAX_DEVICE_UUID_SIZE

struct DeviceProperties {  // ze_device_properties_t
  StructureType stype;
  void* pNext;
  std::uint32_t type;
  std::uint32_t vendorId;
  std::uint32_t deviceId;
  std::uint32_t flags;
  std::uint32_t subdeviceId;
  std::uint32_t coreClockRate;
  std::uint64_t maxMemAllocSize;
  std::uint32_t maxHardwareContexts;
  std::uint32_t maxCommandQueuePriority;
  std::uint32_t numThreadsPerEU;
  std::uint32_t physicalEUSimdWidth;
  std::uint32_t numEUsPerSubslice;
  std::uint32_t numSubslicesPerSlice;
  std::uint32_t numSlices;
  std::uint64_t timerResolution;
  std::uint32_t timestampValidBits;
  std::uint32_t kernelTimestampValidBits;
  std::uint8_t uuid[kMaxDeviceUuidSize];
  char name[kMaxDeviceName];
};

struct PciAddress {  // zes_pci_address_t
  std::uint32_t domain;
  std::uint32_t bus;
  std::uint32_t device;
  std::uint32_t function;
};

struct PciSpeed {  // zes_pci_speed_t
  std::int32_t gen;
  std::int32_t width;
  std::int64_t maxBandwidth;
};

struct PciProperties {  // zes_pci_properties_t
  StructureType stype;
  void* pNext;
  PciAddress address;
  PciSpeed maxSpeed;
  Bool haveBandwidthCounters;
  Bool havePacketCounters;
  Bool haveReplayCounters;
};

struct PowerProperties {  // zes_power_properties_t
  StructureType stype;
  void* pNext;
  Bool onSubdevice;
  std::uint32_t subdeviceId;
  Bool canControl;
  Bool isEnergyThresholdSupported;
  std::int32_t defaultLimit;
  std::int32_t minLimit;
  std::int32_t maxLimit;
};

struct PowerExtProperties {  // zes_power_ext_properties_t
  StructureType stype;
  void* pNext;
  std::uint32_t domain;  // zes_power_domain_t
  void* defaultLimit;    // zes_power_limit_ext_desc_t*; null: not asked for
};

struct EnergyCounter {      // zes_power_energy_counter_t
  std::uint64_t energy;     // µJ, monotonic
  std::uint64_t timestamp;  // µs, only for differences between snapshots of one domain
};

struct ProcessState {  // zes_process_state_t
  StructureType stype;
  const void* pNext;
  std::uint32_t processId;
  std::uint64_t memSize;     // device memory it allocated, bytes
  std::uint64_t sharedSize;  // shared device memory mapped into it, bytes
  std::uint32_t engines;     // zes_engine_type_flags_t: the engine types it uses
};

struct TempProperties {  // zes_temp_properties_t
  StructureType stype;
  void* pNext;
  std::uint32_t type;  // zes_temp_sensors_t
  Bool onSubdevice;
  std::uint32_t subdeviceId;
  double maxTemperature;
  Bool isCriticalTempSupported;
  Bool isThreshold1Supported;
  Bool isThreshold2Supported;
};

extern "C" {
using InitFn = Result (*)(std::uint32_t flags);
using DriverGetFn = Result (*)(std::uint32_t* count, Driver* drivers);
using DeviceGetFn = Result (*)(Driver driver, std::uint32_t* count, Device* devices);
using DeviceGetPropertiesFn = Result (*)(Device device, DeviceProperties* properties);
using DevicePciGetPropertiesFn = Result (*)(Device device, PciProperties* properties);
using DeviceEnumPowerDomainsFn = Result (*)(Device device, std::uint32_t* count, Power* domains);
using DeviceGetCardPowerDomainFn = Result (*)(Device device, Power* domain);
using PowerGetPropertiesFn = Result (*)(Power domain, PowerProperties* properties);
using PowerGetEnergyCounterFn = Result (*)(Power domain, EnergyCounter* counter);
using DeviceEnumTemperatureSensorsFn = Result (*)(Device device, std::uint32_t* count,
                                                  Temperature* sensors);
using TemperatureGetPropertiesFn = Result (*)(Temperature sensor, TempProperties* properties);
using TemperatureGetStateFn = Result (*)(Temperature sensor, double* celsius);
using DeviceProcessesGetStateFn = Result (*)(Device device, std::uint32_t* count,
                                             ProcessState* processes);
}

// What a result means and, where there is one, what the user can do about it.
VendorErrorDescription describe_error(Result result);

}  // namespace jouleprof::level_zero
