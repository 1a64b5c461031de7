// A program instrumented with NVTX ranges through the fake client (fake_nvtx_client.hpp): it
// loads the injection library named by NVTX_INJECTION64_PATH, as NVTX's own loader does, and
// then marks an epoch with forward and backward ranges. Without the variable it runs
// uninstrumented.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "fake_nvtx_client.hpp"

namespace {

void busy_for_ms(int ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace

int main() {
  using namespace jouleprof::nvtx;
  testing::FakeNvtxClient client;
  const char* library = std::getenv("NVTX_INJECTION64_PATH");
  if (library != nullptr && client.attach(library) != 1) {
    std::fprintf(stderr, "fake NVTX client: could not attach %s: %s\n", library,
                 client.error().c_str());
    return 1;
  }
  const auto push = testing::FakeNvtxClient::core<int (*)(const char*)>(kRangePushA);
  const auto pop = testing::FakeNvtxClient::core<int (*)()>(kRangePop);
  if (push == nullptr || pop == nullptr) return 0;  // not instrumented
  busy_for_ms(30);
  push("epoch");
  push("forward");
  busy_for_ms(60);
  pop();
  push("backward");
  busy_for_ms(120);
  pop();
  pop();
  return 0;
}
