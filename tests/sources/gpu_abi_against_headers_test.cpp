// Our declarations of the ROCm SMI and Level Zero ABIs (src/sources/rocm_smi_api.hpp,
// level_zero_api.hpp) checked against the vendors' headers as Debian ships them (librocm-smi-dev,
// libze-dev): values, layouts, sizes and the parameter types of every function we call must match
// exactly. The static_asserts are the test; nothing is linked against the libraries. The runtime
// tests make the check show up in CTest and compare a structure written through the header's
// type and read through ours.
#include <gtest/gtest.h>
#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>
#include <rocm_smi/rocm_smi.h>

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "sources/level_zero_api.hpp"
#include "sources/rocm_smi_api.hpp"

namespace jouleprof {
namespace {

constexpr bool same(long long ours, long long theirs) { return ours == theirs; }

template <typename T>
constexpr bool is_complete = requires {
  sizeof(T);
};

// Whether a parameter (or result) of ours passes what the header's does: the same type; an
// integer for an enum of the same size; a pointer to a structure of ours with the size of the
// header's (the fields are compared one by one below); a pointer to a handle of ours for one to
// theirs; or an opaque handle for an opaque handle.
template <typename Ours, typename Theirs>
constexpr bool compatible_parameter() {
  if constexpr (std::is_same_v<Ours, Theirs>) {
    return true;
  } else if constexpr (std::is_pointer_v<Ours> != std::is_pointer_v<Theirs>) {
    return false;
  } else if constexpr (!std::is_pointer_v<Ours>) {
    return std::is_enum_v<Theirs> && std::is_integral_v<Ours> && sizeof(Ours) == sizeof(Theirs);
  } else {
    using O = std::remove_cv_t<std::remove_pointer_t<Ours>>;
    using T = std::remove_cv_t<std::remove_pointer_t<Theirs>>;
    if constexpr (std::is_same_v<O, T>) {
      return true;
    } else if constexpr (!is_complete<O> || !is_complete<T>) {
      return !is_complete<O> && !is_complete<T>;  // two opaque handles
    } else if constexpr (std::is_pointer_v<O> || std::is_pointer_v<T>) {
      return std::is_pointer_v<O> && std::is_pointer_v<T>;  // where a handle is written
    } else {
      return std::is_class_v<O> && std::is_class_v<T> && sizeof(O) == sizeof(T);
    }
  }
}

template <typename Ours, typename Theirs>
struct Compatible;
template <typename OurResult, typename... Ours, typename TheirResult, typename... Theirs>
struct Compatible<OurResult (*)(Ours...), TheirResult(Theirs...)> {
  static constexpr bool value = sizeof...(Ours) == sizeof...(Theirs) &&
                                compatible_parameter<OurResult, TheirResult>() &&
                                (compatible_parameter<Ours, Theirs>() && ...);
};
template <typename Ours, typename Theirs>
constexpr bool compatible = Compatible<Ours, Theirs>::value;

// ROCm SMI.
static_assert(sizeof(rocm_smi::Status) == sizeof(rsmi_status_t));
static_assert(same(rocm_smi::kSuccess, RSMI_STATUS_SUCCESS));
static_assert(same(rocm_smi::kInvalidArgs, RSMI_STATUS_INVALID_ARGS));
static_assert(same(rocm_smi::kNotSupported, RSMI_STATUS_NOT_SUPPORTED));
static_assert(same(rocm_smi::kFileError, RSMI_STATUS_FILE_ERROR));
static_assert(same(rocm_smi::kPermission, RSMI_STATUS_PERMISSION));
static_assert(same(rocm_smi::kOutOfResources, RSMI_STATUS_OUT_OF_RESOURCES));
static_assert(same(rocm_smi::kInternalException, RSMI_STATUS_INTERNAL_EXCEPTION));
static_assert(same(rocm_smi::kInputOutOfBounds, RSMI_STATUS_INPUT_OUT_OF_BOUNDS));
static_assert(same(rocm_smi::kInitError, RSMI_STATUS_INIT_ERROR));
static_assert(same(rocm_smi::kNotYetImplemented, RSMI_STATUS_NOT_YET_IMPLEMENTED));
static_assert(same(rocm_smi::kNotFound, RSMI_STATUS_NOT_FOUND));
static_assert(same(rocm_smi::kInsufficientSize, RSMI_STATUS_INSUFFICIENT_SIZE));
static_assert(same(rocm_smi::kInterrupt, RSMI_STATUS_INTERRUPT));
static_assert(same(rocm_smi::kUnexpectedSize, RSMI_STATUS_UNEXPECTED_SIZE));
static_assert(same(rocm_smi::kNoData, RSMI_STATUS_NO_DATA));
static_assert(same(rocm_smi::kUnexpectedData, RSMI_STATUS_UNEXPECTED_DATA));
static_assert(same(rocm_smi::kBusy, RSMI_STATUS_BUSY));
static_assert(same(rocm_smi::kRefcountOverflow, RSMI_STATUS_REFCOUNT_OVERFLOW));
static_assert(same(rocm_smi::kUnknownError, RSMI_STATUS_UNKNOWN_ERROR));
static_assert(same(rocm_smi::kTemperatureTypeEdge, RSMI_TEMP_TYPE_EDGE));
static_assert(same(rocm_smi::kTemperatureTypeJunction, RSMI_TEMP_TYPE_JUNCTION));
static_assert(same(rocm_smi::kTemperatureCurrent, RSMI_TEMP_CURRENT));
static_assert(sizeof(int) == sizeof(rsmi_temperature_metric_t));

static_assert(sizeof(rocm_smi::ProcessInfo) == sizeof(rsmi_process_info_t));
static_assert(offsetof(rocm_smi::ProcessInfo, process_id) ==
              offsetof(rsmi_process_info_t, process_id));
static_assert(offsetof(rocm_smi::ProcessInfo, pasid) == offsetof(rsmi_process_info_t, pasid));
static_assert(offsetof(rocm_smi::ProcessInfo, vram_usage) ==
              offsetof(rsmi_process_info_t, vram_usage));
static_assert(offsetof(rocm_smi::ProcessInfo, sdma_usage) ==
              offsetof(rsmi_process_info_t, sdma_usage));
static_assert(offsetof(rocm_smi::ProcessInfo, cu_occupancy) ==
              offsetof(rsmi_process_info_t, cu_occupancy));

static_assert(compatible<rocm_smi::InitFn, decltype(::rsmi_init)>);
static_assert(compatible<rocm_smi::ShutDownFn, decltype(::rsmi_shut_down)>);
static_assert(compatible<rocm_smi::StatusStringFn, decltype(::rsmi_status_string)>);
static_assert(compatible<rocm_smi::NumMonitorDevicesFn, decltype(::rsmi_num_monitor_devices)>);
static_assert(compatible<rocm_smi::DevNameGetFn, decltype(::rsmi_dev_name_get)>);
static_assert(compatible<rocm_smi::DevPciIdGetFn, decltype(::rsmi_dev_pci_id_get)>);
static_assert(compatible<rocm_smi::DevEnergyCountGetFn, decltype(::rsmi_dev_energy_count_get)>);
static_assert(compatible<rocm_smi::DevPowerAveGetFn, decltype(::rsmi_dev_power_ave_get)>);
static_assert(compatible<rocm_smi::DevTempMetricGetFn, decltype(::rsmi_dev_temp_metric_get)>);
static_assert(
    compatible<rocm_smi::ComputeProcessInfoGetFn, decltype(::rsmi_compute_process_info_get)>);
static_assert(
    compatible<rocm_smi::ComputeProcessGpusGetFn, decltype(::rsmi_compute_process_gpus_get)>);

// Level Zero.
namespace lz = level_zero;
static_assert(sizeof(lz::Result) == sizeof(ze_result_t));
static_assert(sizeof(lz::Bool) == sizeof(ze_bool_t));
static_assert(sizeof(lz::StructureType) == sizeof(ze_structure_type_t));
static_assert(sizeof(lz::StructureType) == sizeof(zes_structure_type_t));
static_assert(sizeof(lz::Device) == sizeof(zes_device_handle_t));
static_assert(same(lz::kSuccess, ZE_RESULT_SUCCESS));
static_assert(same(lz::kNotReady, ZE_RESULT_NOT_READY));
static_assert(same(lz::kErrorDeviceLost, ZE_RESULT_ERROR_DEVICE_LOST));
static_assert(same(lz::kErrorOutOfHostMemory, ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY));
static_assert(same(lz::kErrorOutOfDeviceMemory, ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY));
static_assert(same(lz::kErrorDeviceRequiresReset, ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET));
static_assert(same(lz::kErrorDeviceInLowPowerState, ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE));
static_assert(same(lz::kErrorInsufficientPermissions, ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS));
static_assert(same(lz::kErrorNotAvailable, ZE_RESULT_ERROR_NOT_AVAILABLE));
static_assert(same(lz::kErrorDependencyUnavailable, ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE));
static_assert(same(lz::kErrorUninitialized, ZE_RESULT_ERROR_UNINITIALIZED));
static_assert(same(lz::kErrorUnsupportedVersion, ZE_RESULT_ERROR_UNSUPPORTED_VERSION));
static_assert(same(lz::kErrorUnsupportedFeature, ZE_RESULT_ERROR_UNSUPPORTED_FEATURE));
static_assert(same(lz::kErrorInvalidArgument, ZE_RESULT_ERROR_INVALID_ARGUMENT));
static_assert(same(lz::kErrorInvalidNullHandle, ZE_RESULT_ERROR_INVALID_NULL_HANDLE));
static_assert(same(lz::kErrorInvalidNullPointer, ZE_RESULT_ERROR_INVALID_NULL_POINTER));
static_assert(same(lz::kErrorInvalidSize, ZE_RESULT_ERROR_INVALID_SIZE));
static_assert(same(lz::kErrorInvalidEnumeration, ZE_RESULT_ERROR_INVALID_ENUMERATION));
static_assert(same(lz::kErrorUnsupportedEnumeration, ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION));
static_assert(same(lz::kErrorUnknown, ZE_RESULT_ERROR_UNKNOWN));
static_assert(same(lz::kInitGpuOnly, ZE_INIT_FLAG_GPU_ONLY));
static_assert(same(lz::kDeviceTypeGpu, ZE_DEVICE_TYPE_GPU));
static_assert(same(lz::kStructureDeviceProperties, ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES));
static_assert(same(lz::kStructurePciProperties, ZES_STRUCTURE_TYPE_PCI_PROPERTIES));
static_assert(same(lz::kStructurePowerProperties, ZES_STRUCTURE_TYPE_POWER_PROPERTIES));
static_assert(same(lz::kStructureTempProperties, ZES_STRUCTURE_TYPE_TEMP_PROPERTIES));
static_assert(same(lz::kStructurePowerExtProperties, ZES_STRUCTURE_TYPE_POWER_EXT_PROPERTIES));
static_assert(same(lz::kStructureProcessState, ZES_STRUCTURE_TYPE_PROCESS_STATE));
static_assert(same(lz::kPowerDomainUnknown, ZES_POWER_DOMAIN_UNKNOWN));
static_assert(same(lz::kPowerDomainCard, ZES_POWER_DOMAIN_CARD));
static_assert(same(lz::kPowerDomainPackage, ZES_POWER_DOMAIN_PACKAGE));
static_assert(same(lz::kPowerDomainStack, ZES_POWER_DOMAIN_STACK));
static_assert(same(lz::kTempSensorsGlobal, ZES_TEMP_SENSORS_GLOBAL));
static_assert(same(lz::kTempSensorsGpu, ZES_TEMP_SENSORS_GPU));
static_assert(lz::kMaxDeviceName == ZE_MAX_DEVICE_NAME);
static_assert(lz::kMaxDeviceUuidSize == ZE_MAX_DEVICE_UUID_SIZE);

#define JP_SAME_FIELD(ours, theirs, our_field, their_field)                   \
  static_assert(offsetof(ours, our_field) == offsetof(theirs, their_field) && \
                sizeof(ours::our_field) == sizeof(theirs::their_field))

static_assert(sizeof(lz::DeviceProperties) == sizeof(ze_device_properties_t));
JP_SAME_FIELD(lz::DeviceProperties, ze_device_properties_t, stype, stype);
JP_SAME_FIELD(lz::DeviceProperties, ze_device_properties_t, type, type);
JP_SAME_FIELD(lz::DeviceProperties, ze_device_properties_t, vendorId, vendorId);
JP_SAME_FIELD(lz::DeviceProperties, ze_device_properties_t, deviceId, deviceId);
JP_SAME_FIELD(lz::DeviceProperties, ze_device_properties_t, maxMemAllocSize, maxMemAllocSize);
JP_SAME_FIELD(lz::DeviceProperties, ze_device_properties_t, timerResolution, timerResolution);
JP_SAME_FIELD(lz::DeviceProperties, ze_device_properties_t, uuid, uuid);
JP_SAME_FIELD(lz::DeviceProperties, ze_device_properties_t, name, name);

static_assert(sizeof(lz::PciProperties) == sizeof(zes_pci_properties_t));
JP_SAME_FIELD(lz::PciProperties, zes_pci_properties_t, address, address);
JP_SAME_FIELD(lz::PciProperties, zes_pci_properties_t, maxSpeed, maxSpeed);
JP_SAME_FIELD(lz::PciProperties, zes_pci_properties_t, haveReplayCounters, haveReplayCounters);
JP_SAME_FIELD(lz::PciAddress, zes_pci_address_t, domain, domain);
JP_SAME_FIELD(lz::PciAddress, zes_pci_address_t, bus, bus);
JP_SAME_FIELD(lz::PciAddress, zes_pci_address_t, device, device);
JP_SAME_FIELD(lz::PciAddress, zes_pci_address_t, function, function);

static_assert(sizeof(lz::PowerProperties) == sizeof(zes_power_properties_t));
JP_SAME_FIELD(lz::PowerProperties, zes_power_properties_t, pNext, pNext);
JP_SAME_FIELD(lz::PowerProperties, zes_power_properties_t, onSubdevice, onSubdevice);
JP_SAME_FIELD(lz::PowerProperties, zes_power_properties_t, subdeviceId, subdeviceId);
JP_SAME_FIELD(lz::PowerProperties, zes_power_properties_t, maxLimit, maxLimit);

static_assert(sizeof(lz::PowerExtProperties) == sizeof(zes_power_ext_properties_t));
JP_SAME_FIELD(lz::PowerExtProperties, zes_power_ext_properties_t, domain, domain);
JP_SAME_FIELD(lz::PowerExtProperties, zes_power_ext_properties_t, defaultLimit, defaultLimit);

static_assert(sizeof(lz::EnergyCounter) == sizeof(zes_power_energy_counter_t));
JP_SAME_FIELD(lz::EnergyCounter, zes_power_energy_counter_t, energy, energy);
JP_SAME_FIELD(lz::EnergyCounter, zes_power_energy_counter_t, timestamp, timestamp);

static_assert(sizeof(lz::TempProperties) == sizeof(zes_temp_properties_t));
JP_SAME_FIELD(lz::TempProperties, zes_temp_properties_t, type, type);
JP_SAME_FIELD(lz::TempProperties, zes_temp_properties_t, onSubdevice, onSubdevice);
JP_SAME_FIELD(lz::TempProperties, zes_temp_properties_t, subdeviceId, subdeviceId);
JP_SAME_FIELD(lz::TempProperties, zes_temp_properties_t, maxTemperature, maxTemperature);
JP_SAME_FIELD(lz::TempProperties, zes_temp_properties_t, isThreshold2Supported,
              isThreshold2Supported);

static_assert(sizeof(lz::ProcessState) == sizeof(zes_process_state_t));
JP_SAME_FIELD(lz::ProcessState, zes_process_state_t, stype, stype);
JP_SAME_FIELD(lz::ProcessState, zes_process_state_t, pNext, pNext);
JP_SAME_FIELD(lz::ProcessState, zes_process_state_t, processId, processId);
JP_SAME_FIELD(lz::ProcessState, zes_process_state_t, memSize, memSize);
JP_SAME_FIELD(lz::ProcessState, zes_process_state_t, sharedSize, sharedSize);
JP_SAME_FIELD(lz::ProcessState, zes_process_state_t, engines, engines);

#undef JP_SAME_FIELD

static_assert(compatible<lz::InitFn, decltype(::zeInit)>);
static_assert(compatible<lz::DriverGetFn, decltype(::zeDriverGet)>);
static_assert(compatible<lz::DeviceGetFn, decltype(::zeDeviceGet)>);
static_assert(compatible<lz::DeviceGetPropertiesFn, decltype(::zeDeviceGetProperties)>);
static_assert(compatible<lz::DevicePciGetPropertiesFn, decltype(::zesDevicePciGetProperties)>);
static_assert(compatible<lz::DeviceEnumPowerDomainsFn, decltype(::zesDeviceEnumPowerDomains)>);
static_assert(compatible<lz::DeviceGetCardPowerDomainFn, decltype(::zesDeviceGetCardPowerDomain)>);
static_assert(compatible<lz::PowerGetPropertiesFn, decltype(::zesPowerGetProperties)>);
static_assert(compatible<lz::PowerGetEnergyCounterFn, decltype(::zesPowerGetEnergyCounter)>);
static_assert(
    compatible<lz::DeviceEnumTemperatureSensorsFn, decltype(::zesDeviceEnumTemperatureSensors)>);
static_assert(compatible<lz::TemperatureGetPropertiesFn, decltype(::zesTemperatureGetProperties)>);
static_assert(compatible<lz::TemperatureGetStateFn, decltype(::zesTemperatureGetState)>);
static_assert(compatible<lz::DeviceProcessesGetStateFn, decltype(::zesDeviceProcessesGetState)>);

TEST(GpuAbi, RocmSmiProcessInfoReadsWhatTheHeaderWrote) {
  rsmi_process_info_t real{};
  real.process_id = 4242;
  real.vram_usage = 1ULL << 33;
  real.cu_occupancy = 35;
  rocm_smi::ProcessInfo ours{};
  std::memcpy(&ours, &real, sizeof real);
  EXPECT_EQ(ours.process_id, 4242U);
  EXPECT_EQ(ours.vram_usage, 1ULL << 33);
  EXPECT_EQ(ours.cu_occupancy, 35U);
}

TEST(GpuAbi, LevelZeroPropertiesReadWhatTheHeaderWrote) {
  zes_power_properties_t power{};
  power.onSubdevice = 1;
  power.subdeviceId = 3;
  lz::PowerProperties ours{};
  std::memcpy(&ours, &power, sizeof power);
  EXPECT_EQ(ours.onSubdevice, 1);
  EXPECT_EQ(ours.subdeviceId, 3U);
  ze_device_properties_t device{};
  std::strcpy(device.name, "Intel(R) Data Center GPU Max 1550");
  lz::DeviceProperties our_device{};
  std::memcpy(&our_device, &device, sizeof device);
  EXPECT_STREQ(our_device.name, "Intel(R) Data Center GPU Max 1550");
}

}  // namespace
}  // namespace jouleprof
