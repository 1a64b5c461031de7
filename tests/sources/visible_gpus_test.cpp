#include "sources/visible_gpus.hpp"

#include <gtest/gtest.h>

namespace jouleprof {
namespace {

const std::vector<GpuIdentity> kFourGpus = {
    {0, "GPU-aaaa0000"}, {1, "GPU-bbbb1111"}, {2, "GPU-aacc2222"}, {3, ""}};

TEST(VisibleGpus, UnsetShowsEveryGpuUnderItsOwnIndex) {
  const GpuVisibility v = resolve_visible_gpus("CUDA_VISIBLE_DEVICES", nullptr, kFourGpus);
  EXPECT_EQ(v.visible(), 4u);
  EXPECT_EQ(v.number[3], 3u);
  EXPECT_TRUE(v.note.empty());
}

TEST(VisibleGpus, TheListsOrderNumbersTheJobsDevices) {
  const GpuVisibility v = resolve_visible_gpus("CUDA_VISIBLE_DEVICES", "2, 0", kFourGpus);
  EXPECT_EQ(v.number[2], 0u);
  EXPECT_EQ(v.number[0], 1u);
  EXPECT_FALSE(v.number[1].has_value());
  EXPECT_FALSE(v.number[3].has_value());
  EXPECT_NE(v.note.find("sees 2 of the 4 GPUs (gpu 0 as device 1, gpu 2 as device 0)"),
            std::string::npos)
      << v.note;
}

TEST(VisibleGpus, AUuidPrefixNamesTheOneGpuThatHasIt) {
  EXPECT_EQ(resolve_visible_gpus("V", "GPU-bbbb", kFourGpus).number[1], 0u);
  // Two GPUs begin "GPU-aa": ambiguous, so it names none, and the list ends there.
  const GpuVisibility ambiguous = resolve_visible_gpus("V", "GPU-aa,1", kFourGpus);
  EXPECT_EQ(ambiguous.visible(), 0u);
  EXPECT_NE(ambiguous.note.find("the entry 'GPU-aa' names no GPU"), std::string::npos);
}

TEST(VisibleGpus, AnEntryThatNamesNoGpuOrARepeatEndsTheList) {
  EXPECT_EQ(resolve_visible_gpus("V", "1,9,0", kFourGpus).visible(), 1u);
  EXPECT_EQ(resolve_visible_gpus("V", "1,1,0", kFourGpus).visible(), 1u);
  EXPECT_EQ(resolve_visible_gpus("V", "-1", kFourGpus).visible(), 0u);
  EXPECT_EQ(resolve_visible_gpus("V", "MIG-4f3e", kFourGpus).visible(), 0u);
  const GpuVisibility none = resolve_visible_gpus("V", "", kFourGpus);
  EXPECT_EQ(none.visible(), 0u);
  EXPECT_NE(none.note.find("V='': the job sees 0 of the 4 GPUs"), std::string::npos) << none.note;
}

}  // namespace
}  // namespace jouleprof
