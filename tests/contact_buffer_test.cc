// The hook widens margins and gaps so that MuJoCo lists near-contacts; that must not overflow a
// contact buffer plain MuJoCo does not overflow (issue 15: 50 balls gave 30,529 "contact buffer
// is full" warnings in 1000 steps). 50 balls (bench/bench_families.h, the benchmarks' model)
// through the hook for 1000 steps against a bare run of the same model: MuJoCo's contact and
// constraint buffer warnings — counted in the user's mjData and in the messages MuJoCo raised,
// which include the hook's own workspaces — are no more than the bare run's. (Checked to fail:
// with <size memory="160K"/> added, enough for the bare run's 50 contacts but not the hooked
// run's ≈130, MuJoCo's stack overflows inside the hook and the test fails with its error.)
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <string>

#include "bench_families.h"
#include "saltation/errors.h"
#include "saltation/hook.h"
#include "test_util.h"

namespace {

// buffer warnings recorded in d, plus the MuJoCo messages taken since the last call that say the
// arena (contact or constraint buffer) is full
int BufferWarnings(const mjData* d) {
  int n = d->warning[mjWARN_CONTACTFULL].number + d->warning[mjWARN_CNSTRFULL].number;
  for (const std::string& w : saltation::TakeMujocoWarnings()) n += w.find("arena memory") != std::string::npos;
  return n;
}

TEST(ContactBufferTest, FiftyBallsThroughTheHookOverflowNothingTheBareRunDoesNot) {
  const std::string xml = families::Balls(50);
  saltation::ModelPtr bare = saltation::testing::LoadModelFromString(xml);
  saltation::ModelPtr hooked = saltation::testing::LoadModelFromString(xml);
  saltation::TakeMujocoWarnings();
  saltation::DataPtr d1(mj_makeData(bare.get()));
  int most_bare = 0, most_hooked = 0;
  for (int k = 0; k < 1000; k++) {
    mj_step(bare.get(), d1.get());
    most_bare = std::max(most_bare, d1->ncon);
  }
  const int bare_warnings = BufferWarnings(d1.get());

  saltation::HookOptions options;
  options.xi_on_demand = true;  // the events are not the point here: the stepped model's buffers are
  saltation::Hook hook(hooked.get(), options);
  saltation::DataPtr d2(mj_makeData(hooked.get()));
  for (int k = 0; k < 1000; k++) {
    hook.Step(d2.get());
    most_hooked = std::max(most_hooked, d2->ncon);
  }
  const int hook_warnings = BufferWarnings(d2.get());
  EXPECT_LE(hook_warnings, bare_warnings) << "bare run: " << bare_warnings << ", through the hook: " << hook_warnings;
  EXPECT_FALSE(hook.events().empty());  // the balls did land
  // the widened band is exercised: near-contacts between neighbouring balls are listed too
  EXPECT_GT(most_hooked, most_bare);
}

}  // namespace
