// Our declarations of the NVTX injection ABI (src/nvtx/nvtx_abi.hpp) checked against NVIDIA's
// nvtx3 headers, where they are installed: ids, layouts and sizes must match exactly. The
// static_asserts are the test; the one runtime test makes it show up in CTest.
#include <gtest/gtest.h>
#include <nvtx3/nvToolsExt.h>

#include <cstddef>
#include <cstring>

#include "nvtx/nvtx_abi.hpp"

namespace jouleprof::nvtx {
namespace {

// Compares our constants with the headers' enumerators (different enum types).
constexpr bool same(long long ours, long long theirs) { return ours == theirs; }

static_assert(same(kExportTableCallbacks, NVTX_ETID_CALLBACKS));
static_assert(same(kModuleCore, NVTX_CB_MODULE_CORE));
static_assert(same(kModuleCore2, NVTX_CB_MODULE_CORE2));

static_assert(same(kMarkEx, NVTX_CBID_CORE_MarkEx));
static_assert(same(kMarkA, NVTX_CBID_CORE_MarkA));
static_assert(same(kMarkW, NVTX_CBID_CORE_MarkW));
static_assert(same(kRangeStartEx, NVTX_CBID_CORE_RangeStartEx));
static_assert(same(kRangeStartA, NVTX_CBID_CORE_RangeStartA));
static_assert(same(kRangeStartW, NVTX_CBID_CORE_RangeStartW));
static_assert(same(kRangeEnd, NVTX_CBID_CORE_RangeEnd));
static_assert(same(kRangePushEx, NVTX_CBID_CORE_RangePushEx));
static_assert(same(kRangePushA, NVTX_CBID_CORE_RangePushA));
static_assert(same(kRangePushW, NVTX_CBID_CORE_RangePushW));
static_assert(same(kRangePop, NVTX_CBID_CORE_RangePop));
static_assert(same(kDomainMarkEx, NVTX_CBID_CORE2_DomainMarkEx));
static_assert(same(kDomainRangeStartEx, NVTX_CBID_CORE2_DomainRangeStartEx));
static_assert(same(kDomainRangeEnd, NVTX_CBID_CORE2_DomainRangeEnd));
static_assert(same(kDomainRangePushEx, NVTX_CBID_CORE2_DomainRangePushEx));
static_assert(same(kDomainRangePop, NVTX_CBID_CORE2_DomainRangePop));
static_assert(same(kDomainRegisterStringA, NVTX_CBID_CORE2_DomainRegisterStringA));

static_assert(same(kMessageAscii, NVTX_MESSAGE_TYPE_ASCII));
static_assert(same(kMessageUnicode, NVTX_MESSAGE_TYPE_UNICODE));
static_assert(same(kMessageRegistered, NVTX_MESSAGE_TYPE_REGISTERED));

static_assert(sizeof(EventAttributes) == sizeof(nvtxEventAttributes_t));
static_assert(offsetof(EventAttributes, version) == offsetof(nvtxEventAttributes_t, version));
static_assert(offsetof(EventAttributes, size) == offsetof(nvtxEventAttributes_t, size));
static_assert(offsetof(EventAttributes, payload) == offsetof(nvtxEventAttributes_t, payload));
static_assert(offsetof(EventAttributes, message_type) ==
              offsetof(nvtxEventAttributes_t, messageType));
static_assert(offsetof(EventAttributes, message) == offsetof(nvtxEventAttributes_t, message));
static_assert(sizeof(RangeId) == sizeof(nvtxRangeId_t));

static_assert(sizeof(ExportTableCallbacks) == sizeof(NvtxExportTableCallbacks));
static_assert(offsetof(ExportTableCallbacks, get_module_function_table) ==
              offsetof(NvtxExportTableCallbacks, GetModuleFunctionTable));

TEST(NvtxAbi, OurDeclarationsMatchTheInstalledHeaders) {
  // Compiling this file is the check; at run time, the message union reads what the header wrote.
  nvtxEventAttributes_t real{};
  real.messageType = NVTX_MESSAGE_TYPE_ASCII;
  real.message.ascii = "forward";
  EventAttributes ours{};
  static_assert(sizeof(ours) == sizeof(real));
  std::memcpy(&ours, &real, sizeof(real));
  EXPECT_EQ(ours.message_type, kMessageAscii);
  EXPECT_STREQ(ours.message.ascii, "forward");
}

}  // namespace
}  // namespace jouleprof::nvtx
