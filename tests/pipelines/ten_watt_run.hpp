// A recording both pipeline tests attribute: a 10 W counter on cpu0 over [1 s, 2 s], read every
// 10 ms, its run window [1 s, 2 s], and no spans yet.
#pragma once

#include <gtest/gtest.h>

#include "jouleprof/profile.hpp"

namespace jouleprof::testing {

inline Profile ten_watt_run() {
  Profile p;
  Channel c;
  c.id = "meter";
  c.device = "cpu0";
  Series s(c);
  for (int i = 0; i <= 100; ++i) EXPECT_TRUE(s.append(kNsPerS + i * 10 * kNsPerMs, 0.1 * i).ok());
  p.series.push_back(std::move(s));
  p.meta.begin_ns = kNsPerS;
  p.meta.end_ns = 2 * kNsPerS;
  return p;
}

}  // namespace jouleprof::testing
