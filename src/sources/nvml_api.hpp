// The part of the NVML C API that jouleprof calls, declared from NVIDIA's public documentation
// (docs.nvidia.com/deploy/nvml-api) so that jouleprof builds without the CUDA toolkit and loads
// libnvidia-ml.so.1 at run time. Only what the nvml backend uses is here; layouts must match the
// library's ABI exactly.
#pragma once

#include <string_view>

#include "sources/vendor_error.hpp"

namespace jouleprof::nvml {

using Return = int;  // nvmlReturn_t
struct DeviceOpaque;
using Device = DeviceOpaque*;  // nvmlDevice_t

// nvmlReturn_t values.
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorUninitialized = 1;
inline constexpr Return kErrorInvalidArgument = 2;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorNoPermission = 4;
inline constexpr Return kErrorAlreadyInitialized = 5;
inline constexpr Return kErrorNotFound = 6;
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr Return kErrorInsufficientPower = 8;
inline constexpr Return kErrorDriverNotLoaded = 9;
inline constexpr Return kErrorTimeout = 10;
inline constexpr Return kErrorIrqIssue = 11;
inline constexpr Return kErrorLibraryNotFound = 12;
inline constexpr Return kErrorFunctionNotFound = 13;
inline constexpr Return kErrorCorruptedInforom = 14;
inline constexpr Return kErrorGpuIsLost = 15;
inline constexpr Return kErrorResetRequired = 16;
inline constexpr Return kErrorOperatingSystem = 17;
inline constexpr Return kErrorLibRmVersionMismatch = 18;
inline constexpr Return kErrorInUse = 19;
inline constexpr Return kErrorMemory = 20;
inline constexpr Return kErrorNoData = 21;
inline constexpr Return kErrorVgpuEccNotEnabled = 22;
inline constexpr Return kErrorInsufficientResources = 23;
inline constexpr Return kErrorFreqNotSupported = 24;
inline constexpr Return kErrorArgumentVersionMismatch = 25;
inline constexpr Return kErrorDeprecated = 26;
inline constexpr Return kErrorNotReady = 27;
inline constexpr Return kErrorGpuNotFound = 28;
inline constexpr Return kErrorInvalidState = 29;
inline constexpr Return kErrorUnknown = 999;

// nvmlDeviceArchitecture_t: Ampere; later architectures have larger numbers (Ada 8, Hopper 9,
// Blackwell 10), and 0xffffffff is unknown.
inline constexpr unsigned kDeviceArchAmpere = 7;
inline constexpr unsigned kDeviceArchUnknown = 0xffffffff;
// nvmlTemperatureSensors_t: the GPU die.
inline constexpr int kTemperatureGpu = 0;
// Field ids for nvmlDeviceGetFieldValues (mW).
inline constexpr unsigned kFieldPowerAverage = 185;  // NVML_FI_DEV_POWER_AVERAGE
inline constexpr unsigned kFieldPowerInstant = 186;  // NVML_FI_DEV_POWER_INSTANT
// Buffer sizes the API documents for names and UUIDs.
inline constexpr unsigned kDeviceNameBufferSize = 96;
inline constexpr unsigned kDeviceUuidBufferSize = 80;

// nvmlValueType_t.
enum ValueType : int {
  kValueDouble = 0,
  kValueUnsignedInt = 1,
  kValueUnsignedLong = 2,
  kValueUnsignedLongLong = 3,
  kValueSignedLongLong = 4,
  kValueSignedInt = 5,
  kValueUnsignedShort = 6,
};

union Value {  // nvmlValue_t
  double dVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
  signed int siVal;
  unsigned short usVal;
};

struct FieldValue {  // nvmlFieldValue_t
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;  // µs since 1970
  long long latencyUsec;
  int valueType;  // ValueType
  Return nvmlReturn;
  Value value;
};

// nvmlProcessUtilizationSample_t: one process's utilisation over the driver's last sample period.
struct ProcessUtilizationSample {
  unsigned int pid;
  unsigned long long timeStamp;  // CPU time of the sample, µs since 1970
  unsigned int smUtil;           // %
  unsigned int memUtil;
  unsigned int encUtil;
  unsigned int decUtil;
};

// nvmlProcessInfo_v2_t, what nvmlDeviceGetComputeRunningProcesses_v2 fills (the v3 call's
// structure has had two layouts across driver releases; v2's has one).
struct ProcessInfoV2 {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // bytes
  unsigned int gpuInstanceId;        // MIG: the instance; 0xFFFFFFFF otherwise
  unsigned int computeInstanceId;
};

// nvmlDeviceGetMigMode's modes.
inline constexpr unsigned kMigEnabled = 1;  // NVML_DEVICE_MIG_ENABLE

extern "C" {
using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using ErrorStringFn = const char* (*)(Return);
using DeviceGetCountFn = Return (*)(unsigned int* count);
using DeviceGetHandleByIndexFn = Return (*)(unsigned int index, Device* device);
using DeviceGetNameFn = Return (*)(Device device, char* name, unsigned int length);
using DeviceGetUuidFn = Return (*)(Device device, char* uuid, unsigned int length);
using DeviceGetTotalEnergyConsumptionFn = Return (*)(Device device, unsigned long long* energy_mj);
using DeviceGetPowerUsageFn = Return (*)(Device device, unsigned int* power_mw);
using DeviceGetFieldValuesFn = Return (*)(Device device, int count, FieldValue* values);
using DeviceGetTemperatureFn = Return (*)(Device device, int sensor, unsigned int* celsius);
using DeviceGetProcessUtilizationFn = Return (*)(Device device,
                                                 ProcessUtilizationSample* utilization,
                                                 unsigned int* count,
                                                 unsigned long long last_seen_timestamp);
using DeviceGetComputeRunningProcessesFn = Return (*)(Device device, unsigned int* count,
                                                      ProcessInfoV2* infos);
using DeviceGetMigModeFn = Return (*)(Device device, unsigned int* current_mode,
                                      unsigned int* pending_mode);
using DeviceGetArchitectureFn = Return (*)(Device device, unsigned int* architecture);
}

// What an NVML return code means and, where there is one, what the user can do about it.
VendorErrorDescription describe_error(Return code);

}  // namespace jouleprof::nvml
