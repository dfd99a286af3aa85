// The hook's fixed tax on the smallest model: the heap a Hook holds on one free ball (its copy of
// the model, the rigid model, its mjData workspaces), measured with glibc's mallinfo2 (heap in use:
// arena plus mmapped blocks) after construction and the first Step, the user's own mjData made
// before and not counted. Issue 15's target is memory proportional to the model; the bound here is
// what the code holds today with a modest margin (so a regression shows), not the target.
#include <gtest/gtest.h>
#include <malloc.h>
#include <mujoco/mujoco.h>

#include <cstdio>

#include "saltation/hook.h"
#include "test_util.h"

namespace {

constexpr char kOneBall[] = R"(<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <geom type="plane" size="2 2 0.1"/>
    <body pos="0 0 0.3"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
  </worldbody>
</mujoco>)";

double HeapInUse() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks) + static_cast<double>(info.hblkhd);
}

TEST(HookMemoryTest, OneBallExtraHeapIsBounded) {
  saltation::ModelPtr m = saltation::testing::LoadModelFromString(kOneBall);
  saltation::DataPtr d(mj_makeData(m.get()));
  const double before = HeapInUse();
  if (before == 0) GTEST_SKIP() << "mallinfo2 reports no heap (a sanitizer's allocator)";
  double extra_mib = 0;
  {
    saltation::Hook hook(m.get());
    hook.Step(d.get());
    extra_mib = (HeapInUse() - before) / (1024.0 * 1024.0);
  }
  std::printf("hook's extra heap on one ball: %.2f MiB\n", extra_mib);
  EXPECT_GT(extra_mib, 0.0);   // the measurement sees the hook at all
  // measured 39.5 MiB (MuJoCo 4.0.1: three mjData of 13 MiB arena each — the rigid model's main and
  // aux, the re-simulator's); the fixed tax issue 15 wants removed
  EXPECT_LT(extra_mib, 45.0);
  // and it is given back
  EXPECT_LT((HeapInUse() - before) / (1024.0 * 1024.0), 0.5);
}

}  // namespace
