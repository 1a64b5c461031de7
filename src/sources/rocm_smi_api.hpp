// The part of the ROCm SMI C API (rocm_smi/rocm_smi.h) that the rocm-smi backend calls, declared
// here so that jouleprof builds without ROCm and loads librocm_smi64.so at run time. Layouts and
// values must match the library's ABI exactly: tests/sources/gpu_abi_against_headers_test.cpp
// checks them against Debian's librocm-smi-dev headers (5.2.3).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sources/vendor_error.hpp"

namespace jouleprof::rocm_smi {

using Status = std::uint32_t;  // rsmi_status_t (an enum whose largest value is 0xFFFFFFFF)

// rsmi_status_t values.
inline constexpr Status kSuccess = 0x0;
inline constexpr Status kInvalidArgs = 0x1;
inline constexpr Status kNotSupported = 0x2;
inline constexpr Status kFileError = 0x3;
inline constexpr Status kPermission = 0x4;
inline constexpr Status kOutOfResources = 0x5;
inline constexpr Status kInternalException = 0x6;
inline constexpr Status kInputOutOfBounds = 0x7;
inline constexpr Status kInitError = 0x8;
inline constexpr Status kNotYetImplemented = 0x9;
inline constexpr Status kNotFound = 0xA;
inline constexpr Status kInsufficientSize = 0xB;
inline constexpr Status kInterrupt = 0xC;
inline constexpr Status kUnexpectedSize = 0xD;
inline constexpr Status kNoData = 0xE;
inline constexpr Status kUnexpectedData = 0xF;
inline constexpr Status kBusy = 0x10;
inline constexpr Status kRefcountOverflow = 0x11;
inline constexpr Status kUnknownError = 0xFFFFFFFF;

// rsmi_temperature_type_t / rsmi_temperature_metric_t: the current edge temperature.
inline constexpr std::uint32_t kTemperatureTypeEdge = 0;
inline constexpr std::uint32_t kTemperatureTypeJunction = 1;
inline constexpr int kTemperatureCurrent = 0;

struct ProcessInfo {  // rsmi_process_info_t
  std::uint32_t process_id;
  std::uint32_t pasid;
  std::uint64_t vram_usage;    // bytes
  std::uint64_t sdma_usage;    // µs
  std::uint32_t cu_occupancy;  // percent of the compute units
};

extern "C" {
using InitFn = Status (*)(std::uint64_t init_flags);
using ShutDownFn = Status (*)();
using StatusStringFn = Status (*)(Status status, const char** text);
using NumMonitorDevicesFn = Status (*)(std::uint32_t* count);
using DevNameGetFn = Status (*)(std::uint32_t device, char* name, std::size_t length);
using DevPciIdGetFn = Status (*)(std::uint32_t device, std::uint64_t* bdfid);
using DevEnergyCountGetFn = Status (*)(std::uint32_t device, std::uint64_t* counts,
                                       float* resolution_uj, std::uint64_t* timestamp_ns);
using DevPowerAveGetFn = Status (*)(std::uint32_t device, std::uint32_t sensor,
                                    std::uint64_t* power_uw);
using DevTempMetricGetFn = Status (*)(std::uint32_t device, std::uint32_t sensor_type, int metric,
                                      std::int64_t* millidegrees);
using ComputeProcessInfoGetFn = Status (*)(ProcessInfo* processes, std::uint32_t* count);
using ComputeProcessGpusGetFn = Status (*)(std::uint32_t pid, std::uint32_t* devices,
                                           std::uint32_t* count);
}

// What a status means and, where there is one, what the user can do about it.
VendorErrorDescription describe_error(Status status);

}  // namespace jouleprof::rocm_smi
