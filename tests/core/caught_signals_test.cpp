#include "core/caught_signals.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>

namespace jouleprof {
namespace {

std::atomic<int> g_caught{0};
std::atomic<int> g_by_previous{0};

void count_caught(int sig, siginfo_t*, void*) { g_caught.store(sig); }
void count_by_previous(int sig) { g_by_previous.store(sig); }

TEST(CaughtSignals, TheHandlerRunsWhileAliveAndThePreviousOneComesBack) {
  struct sigaction previous {};
  previous.sa_handler = count_by_previous;
  sigemptyset(&previous.sa_mask);
  struct sigaction before {};
  ASSERT_EQ(sigaction(SIGUSR1, &previous, &before), 0);
  g_caught.store(0);
  g_by_previous.store(0);
  {
    const CaughtSignals caught({SIGUSR1}, count_caught, SA_RESTART);
    raise(SIGUSR1);
    EXPECT_EQ(g_caught.load(), SIGUSR1);
    EXPECT_EQ(g_by_previous.load(), 0);
  }
  raise(SIGUSR1);
  EXPECT_EQ(g_by_previous.load(), SIGUSR1);
  sigaction(SIGUSR1, &before, nullptr);
}

TEST(CaughtSignals, ResetHandTakesTheDefaultActionOnTheSecondSignal) {
  const CaughtSignals caught({SIGUSR2}, count_caught, SA_RESETHAND);
  raise(SIGUSR2);
  EXPECT_EQ(g_caught.load(), SIGUSR2);
  struct sigaction now {};
  ASSERT_EQ(sigaction(SIGUSR2, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

}  // namespace
}  // namespace jouleprof
