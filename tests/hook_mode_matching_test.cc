// The engine hook's one definition of "the same contact" (hook_events.cc, hook.cc): every group of
// simultaneous touchdowns of a step is recorded.
//
// EveryGroupOfAStepIsRecorded — two small boxes (half size a = 5 mm) falling flat without gravity
// at v = 1 m/s onto a plane, their bottoms 10.3 mm and 10.6 mm above it: each lands on its four
// corners at once (one impact, three joining points: a group of four), at t = 10.3 ms and 10.6 ms,
// both inside the 1 ms step [10, 11) ms, 0.3 ms apart (more than simultaneous_time). Inside that
// step MuJoCo's trajectory is free flight (its contact forces are computed at the step's start,
// where every gap is positive), so the times are closed forms. The hook recorded the first group
// only.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "saltation/contacts.h"
#include "saltation/hook.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

class HookModeMatching : public MujocoTest {};

// two boxes landing flat, each on its four corners at once, in one step
std::string TwoFlatBoxes(double a, double bottom1, double bottom2) {
  char buf[1000];
  std::snprintf(buf, sizeof(buf), R"(
<mujoco>
  <option gravity="0 0 0" timestep="0.001"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="box1" pos="-0.1 0 %.17g"><freejoint/><geom name="box1" type="box" size="%.17g %.17g %.17g" mass="0.01"/></body>
    <body name="box2" pos="0.1 0 %.17g"><freejoint/><geom name="box2" type="box" size="%.17g %.17g %.17g" mass="0.01"/></body>
  </worldbody>
</mujoco>)",
                bottom1 + a, a, a, a, bottom2 + a, a, a, a);
  return buf;
}

TEST_F(HookModeMatching, EveryGroupOfAStepIsRecorded) {
  constexpr double kA = 0.005, kSpeed = 1.0, kBottom1 = 0.0103, kBottom2 = 0.0106;
  ModelPtr m = LoadModelFromString(TwoFlatBoxes(kA, kBottom1, kBottom2));
  Hook hook(m.get());
  const double t1 = kBottom1 / kSpeed, t2 = kBottom2 / kSpeed, h = m->opt.timestep;
  ASSERT_EQ(std::floor(t1 / h), std::floor(t2 / h));  // one step holds both landings
  ASSERT_GT(t2 - t1, hook.options().simultaneous_time);  // two groups, not one
  DataPtr d(mj_makeData(m.get()));
  d->qvel[2] = d->qvel[8] = -kSpeed;
  while (d->time < 0.013) hook.Step(d.get());

  std::vector<const HookEvent*> groups, touchdowns;
  for (const HookEvent& ev : hook.events()) {
    if (ev.kind == EventKind::kSimultaneous) groups.push_back(&ev);
    if (ev.kind == EventKind::kTouchdown || ev.kind == EventKind::kGraze) touchdowns.push_back(&ev);
    std::printf("[ mode matching ] %s at %.15f s, group %d, size %d\n", EventKindName(ev.kind), ev.time, ev.group,
                ev.group_size);
  }
  // one touchdown per box (the other three corners joined its impact), one group per box
  ASSERT_EQ(touchdowns.size(), 2u);
  ASSERT_EQ(groups.size(), 2u);
  const double expected[2] = {t1, t2};
  for (int i = 0; i < 2; i++) {
    EXPECT_EQ(touchdowns[i]->kind, EventKind::kTouchdown);
    EXPECT_NEAR(touchdowns[i]->time, expected[i], 1e-15);
    EXPECT_NEAR(groups[i]->time, expected[i], 1e-15);
    EXPECT_EQ(groups[i]->group_size, 4);
    EXPECT_EQ(touchdowns[i]->group, groups[i]->group);
    EXPECT_TRUE(std::isfinite(groups[i]->order_spread));
  }
  EXPECT_NE(groups[0]->group, groups[1]->group);
  std::printf("[ mode matching ] closed form %.15f, %.15f s; errors %.2g, %.2g s\n", t1, t2,
              std::abs(touchdowns[0]->time - t1), std::abs(touchdowns[1]->time - t2));
}

}  // namespace
}  // namespace saltation::testing
