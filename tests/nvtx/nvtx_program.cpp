// The same workload as fake_client_program.cpp, instrumented with NVIDIA's NVTX v3 headers: the
// check that libjouleprof_nvtx.so works with the real client (built where nvtx3 is installed,
// e.g. /usr/local/cuda/include on CUDA machines).
#include <nvtx3/nvToolsExt.h>

#include <chrono>

namespace {

void busy_for_ms(int ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace

int main() {
  busy_for_ms(30);
  nvtxRangePushA("epoch");
  nvtxRangePushA("forward");
  busy_for_ms(60);
  nvtxRangePop();
  nvtxRangePushA("backward");
  busy_for_ms(120);
  nvtxRangePop();
  nvtxRangePop();
  const nvtxRangeId_t id = nvtxRangeStartA("whole run tail");
  busy_for_ms(10);
  nvtxRangeEnd(id);
  return 0;
}
