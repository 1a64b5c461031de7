#include "core/silenced_output.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

namespace jouleprof {
namespace {

TEST(SilencedOutput, WhatIsPrintedInsideIsDroppedAndOutputComesBackAfter) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  std::printf("before ");
  {
    const SilencedOutput quiet;
    std::printf("stdio inside ");
    std::cout << "stream inside ";
    std::fprintf(stderr, "stderr inside ");
    std::cerr << "cerr inside ";
    (void)::write(STDOUT_FILENO, "raw inside ", 11);
  }
  std::printf("after");
  std::cerr << "err after";
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "before after");
  EXPECT_EQ(err, "err after");
}

}  // namespace
}  // namespace jouleprof
