// The engine hook's one definition of "the same contact" (hook_events.cc, hook.cc): a held
// contact's anchor follows its point after each step and its events (FollowHeldPoints, as the
// exact reference does), a release names the mode contact that holds its point (no distance),
// every group of simultaneous touchdowns of a step is recorded, and a Zeno record's point joins the
// mode beside a held point of its pair.
//
// AnchorsFollowAPlateSlidingFarOverABox — the reference's HeldAnchor scene in the hook: a thin
// plate (half sizes h = 0.05, 0.05, t = 0.004) lying flat on a fixed base box, frictionless
// (condim 1), sliding at v = 1 m/s along +x under gravity for 0.1 s. The pair is plate/base, its
// anchors in the base's frame: the four bottom corners (held) slide along x at v there. With the
// anchors where the corners were first seen, a +x bottom corner's anchor lies nearer to its −x
// neighbour's point once the slide passes h = 50 mm (held_anchor_test.cc). When the top corners were
// listed 2t above, it lay nearer the top one over that neighbour at 50.08 mm: the mode held top
// corners, and the
// hook recorded kinematic releases of a plate that never left its base.
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
#include "plate_on_base_scene.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

class HookModeMatching : public MujocoTest {};

TEST_F(HookModeMatching, AnchorsFollowAPlateSlidingFarOverABox) {
  constexpr double kHalf = kPlateHalf, kSpeed = 1.0, kDuration = 0.1;
  ModelPtr m = LoadModelFromString(kPlateOnBase);
  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  d->qvel[0] = kSpeed;
  double x_last = 0;  // the plate's x at the last state the hook has processed (one step behind)
  while (d->time < kDuration - 1e-12) {
    x_last = d->qpos[0];
    hook.Step(d.get());
  }
  int changes = 0;
  for (const HookEvent& ev : hook.events()) {
    if (!ChangesContact(ev.kind)) continue;
    changes++;
    std::printf("[ mode matching ] %s at %.6f s, %s\n", EventKindName(ev.kind), ev.time,
                ContactLabel(hook.rigid_model(), ev.contact).c_str());
  }
  EXPECT_EQ(changes, 0);
  EXPECT_GT(x_last, -0.2 + 0.09);  // the plate slid 0.09 m and more: past the 50.08 mm where stale anchors mismatch
  // the mode holds the four bottom corners, each anchor at its own corner (base frame: the base's
  // centre is 0.05 m below the world's origin, so x and y are the world's)
  const Mode& mode = hook.mode();
  ASSERT_EQ(mode.contacts.size(), 4u);
  double worst = 0;
  for (const ContactId& id : mode.contacts) {
    const double sx = id.anchor.x() > x_last ? 1 : -1, sy = id.anchor.y() > 0 ? 1 : -1;
    const double dx = id.anchor.x() - (x_last + sx * kHalf), dy = id.anchor.y() - sy * kHalf;
    worst = std::max({worst, std::abs(dx), std::abs(dy)});
    EXPECT_NEAR(dx, 0, 1e-15) << "anchor x " << id.anchor.x() << ", the plate at " << x_last;
    EXPECT_NEAR(dy, 0, 1e-15);
    EXPECT_LT(id.anchor.z(), 0.05 + 0.001) << "a top corner (0.058 m) held";
  }
  std::printf("[ mode matching ] plate at x = %.6f m: %d contact changes, anchors off their corners by %.2g m\n", x_last,
              changes, worst);
}

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

// A release names the mode contact holding its point, never another point of the pair. A small box
// (half size a = 6 mm, its four bottom corners held, 12 mm apart: within 2·detect_margin) resting
// on a plane is pulled up at its +x edge by a constant force F = 0.75 mg (the caller's
// xfrc_applied from 20 ms: an upward force at the centre and the torque of F at the +x edge), more
// than tips it (mg/2) and less than lifts it (mg): it pivots about its −x edge. Its +x corners are
// released together at the start of the first pulled step, where their rigid normal forces turn
// negative with the new input (an input jump: input_jump_release_test.cc; until that fix the hook
// recorded them only as a kinematic release at 44 ms, once they had come 1 mm apart): the
// first one's event lets the second go with it (it pulls: RigidEvent::released), and the second
// corner's own crossing then found the nearest held anchor of the pair within 2·detect_margin — a
// −x corner, resting — and released that one. Now it names no contact of the mode and is not
// recorded. (Until 50 ms: later the box, still pulled, tips further and its −x edge leaves too.)
TEST_F(HookModeMatching, AReleaseNamesTheContactHoldingItsPoint) {
  constexpr double kA = 0.006, kMass = 0.01, kPullFrom = 0.02;
  char xml[600];
  std::snprintf(xml, sizeof(xml), R"(
<mujoco>
  <option timestep="0.001"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="box" pos="0 0 %.17g"><freejoint/><geom name="box" type="box" size="%.17g %.17g %.17g" mass="%.17g"/></body>
  </worldbody>
</mujoco>)",
                kA, kA, kA, kA, kMass);
  ModelPtr m = LoadModelFromString(xml);
  Hook hook(m.get());
  ASSERT_LT(2 * kA, 2 * hook.rigid_model().detect_margin());  // the scene is what it is for
  DataPtr d(mj_makeData(m.get()));
  const int body = mj_name2id(m.get(), mjOBJ_BODY, "box");
  const double weight = kMass * -m->opt.gravity[2], pull = 0.75 * weight;
  double switched = -1;  // the first pulled step's start
  while (d->time < 0.05) {
    if (d->time >= kPullFrom) {
      if (switched < 0) switched = d->time;
      d->xfrc_applied[6 * body + 2] = pull;
      d->xfrc_applied[6 * body + 4] = -kA * pull;  // (a, 0, 0) × (0, 0, F)
    }
    hook.Step(d.get());
  }
  std::vector<const HookEvent*> changes;
  for (const HookEvent& ev : hook.events()) {
    if (!ChangesContact(ev.kind)) continue;
    changes.push_back(&ev);
    std::printf("[ mode matching ] %s at %.6f s, corner anchor (%.4f %.4f %.4f)%s, %zu released with it\n",
                EventKindName(ev.kind), ev.time, ev.contact.anchor.x(), ev.contact.anchor.y(), ev.contact.anchor.z(),
                ev.proxy ? " (kinematic)" : "", ev.rigid.released.size());
  }
  // one release: a +x corner (anchors in the box's frame), the other +x corner released with it
  ASSERT_EQ(changes.size(), 1u);
  const HookEvent& release = *changes[0];
  EXPECT_TRUE(IsRelease(release.kind));
  EXPECT_EQ(release.time, switched);
  EXPECT_TRUE(release.input_jump);
  EXPECT_FALSE(release.proxy);
  // (an anchor is MuJoCo's point midway between the surfaces, in the box's frame: a corner's x is
  // ±a to the penetration times the tilt, here within 4e-5 m; the corners are 2a apart)
  EXPECT_GT(release.contact.anchor.x(), kA / 2);
  ASSERT_EQ(release.rigid.released.size(), 1u);
  EXPECT_GT(release.rigid.released[0].anchor.x(), kA / 2);
  EXPECT_LT(release.rigid.released[0].anchor.y() * release.contact.anchor.y(), 0);  // the other +x corner
  // the mode holds the two −x corners
  const Mode& mode = hook.mode();
  ASSERT_EQ(mode.contacts.size(), 2u);
  for (const ContactId& id : mode.contacts) EXPECT_LT(id.anchor.x(), -kA / 2);
}

// Zeno puts the bouncing point itself into the mode, though another point of its pair, nearer
// than any tolerance, is held there already (Hook::Emit passes the tracker a tolerance of 0). A
// small box (half sizes 6 × 6 × 3 mm, 1 kg) on a hinge along its −x bottom edge, at the plane:
// its −x corners touch the plane on the hinge's axis (held from the start) and its +x edge, 12 mm
// away, tilted up 30°, falls and bounces on MuJoCo's springy contact (direct stiffness 20000 N/m,
// damping 12 N·s/m) with the rigid model's restitution 0.8 (override: each impact bounces the edge
// out of the mode). The hook sees touchdowns at 0.039, 0.123, 0.195 and 0.258 s (interval ratios
// 0.86, 0.88) and calls Zeno at the fourth: its corner joins the mode. With the tolerance of
// 2·detect_margin it had before 479c6a9 the corner was taken for a held −x corner and left out.
TEST_F(HookModeMatching, ZenoHoldsTheBouncingPointBesideAHeldOne) {
  const char* xml = R"(
<mujoco>
  <option gravity="0 0 -9.81" timestep="0.0005"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1" condim="1" solref="-20000 -12" solimp="0.95 0.95 0.001"/>
    <body name="box" pos="-0.006 0 0" euler="0 -30 0">
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <geom name="box" type="box" pos="0.006 0 0.003" size="0.006 0.006 0.003" mass="1" condim="1" solref="-20000 -12" solimp="0.95 0.95 0.001"/>
    </body>
  </worldbody>
</mujoco>)";
  ModelPtr m = LoadModelFromString(xml);
  HookOptions options;
  options.restitution = RestitutionSource::kOverride;  // the rigid impacts bounce too: the +x edge leaves the mode
  options.restitution_override = 0.8;
  Hook hook(m.get(), options);
  ASSERT_LT(0.012, 2 * hook.rigid_model().detect_margin());  // the scene is what it is for
  DataPtr d(mj_makeData(m.get()));
  // to the end of the step that records Zeno
  const HookEvent* zeno = nullptr;
  while (!zeno && d->time < 1.0) {
    hook.Step(d.get());
    for (const HookEvent& ev : hook.events()) {
      if (ev.kind == EventKind::kZeno) zeno = &ev;
    }
  }
  for (const HookEvent& ev : hook.events()) {
    if (ev.kind == EventKind::kNearMiss) continue;
    std::printf("[ zeno ] %s at %.6f s, anchor (%.4f %.4f %.4f)\n", EventKindName(ev.kind), ev.time, ev.contact.anchor.x(),
                ev.contact.anchor.y(), ev.contact.anchor.z());
  }
  ASSERT_NE(zeno, nullptr);
  EXPECT_GT(zeno->contact.anchor.x(), 0);  // a +x corner (anchors in the box's frame)
  // at the end of that step the mode holds the two −x corners and the Zeno record's corner
  int held_minus_x = 0, held_zeno = 0;
  for (const ContactId& id : hook.mode().contacts) {
    std::printf("[ zeno ] mode: anchor (%.4f %.4f %.4f)\n", id.anchor.x(), id.anchor.y(), id.anchor.z());
    held_minus_x += id.anchor.x() < 0;
    // (its anchor has followed its point to the step's end since: the same corner)
    held_zeno += id.SamePair(zeno->contact) && id.anchor.x() > 0 && id.anchor.y() * zeno->contact.anchor.y() > 0;
  }
  EXPECT_EQ(held_minus_x, 2);
  EXPECT_EQ(held_zeno, 1);
}

}  // namespace
}  // namespace saltation::testing
