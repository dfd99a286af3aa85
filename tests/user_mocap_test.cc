// A mocap body the user places itself (d->mocap_pos / mocap_quat set before stepping, no
// Options::mocap_motion): the hook's events are computed with the pose the step ran with, not with
// the model's default pose (data's own mjData take the step's inputs, mocap poses included:
// LoadInputs, resimulation.h).
#include <algorithm>
#include <cmath>

#include "saltation/hook.h"
#include "same_bits.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

// A frictionless ball on slides x and z (1 kg, restitution 0) above a pad (a mocap box) whose
// default pose is 5 m away and flat; the user puts it under the ball, tilted by θ about y.
constexpr char kPad[] = R"(
<mujoco>
  <option gravity="0 0 -9.81" timestep="0.001"/>
  <custom><numeric name="saltation_restitution" data="0"/></custom>
  <worldbody>
    <body name="pad" mocap="true" pos="5 0 0">
      <geom name="pad" type="box" size="0.5 0.5 0.02" condim="1"/>
    </body>
    <body name="ball" pos="0 0 0.3">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.05" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";

constexpr double kHalfThickness = 0.02, kRadius = 0.05, kStartHeight = 0.3;

class UserMovedMocap : public MujocoTest {};

// Plastic and frictionless with M = m·I on (x, z): v⁺ = v⁻ − (v⁻·n) n, n = (sin θ, cos θ) the tilted
// pad's normal; at x⁻ the ball touches the pad's top face (its centre one radius above it) and the
// contact point lies on it. With the model's default pose (the pad 5 m away, flat) the hook stopped:
// "active contact ball/pad has no contact point within the detection margin"; with the step's pose
// in the impact but not in the touchdown guard the ball was located 1 mm inside the pad.
TEST_F(UserMovedMocap, ATouchdownOnAPadTheUserTiltedUsesItsPose) {
  ModelPtr m = LoadModelFromString(kPad);
  ASSERT_TRUE(m);
  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  const double theta = 0.3;
  d->mocap_pos[0] = 0;  // rotation about y by θ: the pad's normal e_z turns to (sin θ, 0, cos θ)
  d->mocap_quat[0] = std::cos(theta / 2);
  d->mocap_quat[2] = std::sin(theta / 2);
  const HookEvent* touchdown = nullptr;
  while (d->time < 0.5 && !touchdown) {
    hook.Step(d.get());
    for (const HookEvent& e : hook.events()) {
      if (e.kind == EventKind::kTouchdown) {
        touchdown = &e;
        break;
      }
    }
  }
  ASSERT_NE(touchdown, nullptr);
  const Eigen::Vector2d n(std::sin(theta), std::cos(theta));
  const Eigen::Vector2d v_minus = touchdown->rigid.x_minus.qvel;
  ASSERT_LT(v_minus(1), -1.0);  // falling (about 2 m/s at the pad)
  const Eigen::Vector2d expected = v_minus - v_minus.dot(n) * n;
  const Eigen::Vector2d v_plus = touchdown->rigid.x_plus.qvel;
  EXPECT_LT((v_plus - expected).norm(), 1e-14 * v_minus.norm()) << v_plus.transpose() << " vs " << expected.transpose();
  EXPECT_GT(expected.norm(), 0.5);  // the flat pad's v⁺ = 0 is far off
  const Eigen::Vector2d p(touchdown->point.x(), touchdown->point.z());
  EXPECT_NEAR(n.dot(p), kHalfThickness, 1e-12);  // the touchdown is located to ~1e-13 s at ~2 m/s
  const Eigen::Vector2d c(touchdown->rigid.x_minus.qpos(0), kStartHeight + touchdown->rigid.x_minus.qpos(1));
  EXPECT_NEAR(n.dot(c) - kHalfThickness, kRadius, 1e-12) << "centre " << c.transpose();
}


// A dome (a mocap sphere, default pose 5 m away) under a ball on slides x and z: the ball lands
// off the dome's top, where ∂v⁺/∂q depends on where the dome is; a floor below.
constexpr char kDome[] = R"(
<mujoco>
  <option gravity="0 0 -9.81" timestep="0.001"/>
  <custom><numeric name="saltation_restitution" data="0.5"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="10 10 0.1" pos="0 0 -0.5" condim="1"/>
    <body name="dome" mocap="true" pos="5 0 0">
      <geom name="dome" type="sphere" size="0.5" condim="1"/>
    </body>
    <body name="ball" pos="0.15 0 0.9">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.05" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";

// The pose the step ran with reaches Ξ completed later (HookOptions::xi_on_demand): the user puts
// the dome under the ball, the ball lands, the user moves the dome away before asking for Ξ — the
// on-demand Ξ is the eager hook's bit for bit. It used to be computed with the pose the hook's
// workspace held last (the moved one, loaded for the ball's next touchdown, on the floor): a wrong
// ∂v⁺/∂q with no error.
TEST_F(UserMovedMocap, XiOnDemandUsesThePoseOfTheEventsStep) {
  ModelPtr m1 = LoadModelFromString(kDome), m2 = LoadModelFromString(kDome);
  ASSERT_TRUE(m1 && m2);
  Hook eager(m1.get());
  HookOptions options;
  options.xi_on_demand = true;
  Hook lazy(m2.get(), options);
  DataPtr d1(mj_makeData(m1.get())), d2(mj_makeData(m2.get()));
  for (mjData* d : {d1.get(), d2.get()}) d->mocap_pos[0] = 0;
  while (d1->time < 0.5 && lazy.events().empty()) {
    eager.Step(d1.get());
    lazy.Step(d2.get());
  }
  ASSERT_EQ(lazy.events().size(), 1u);
  ASSERT_EQ(eager.events().size(), 1u);
  ASSERT_EQ(lazy.events()[0].kind, EventKind::kTouchdown);
  ASSERT_TRUE(lazy.events()[0].xi_pending);
  for (mjData* d : {d1.get(), d2.get()}) d->mocap_pos[0] = 3;  // the dome moved away, the ball falls on
  auto on_floor = [](const HookEvent& e) { return e.kind == EventKind::kTouchdown && e.contact.geom1 == 0; };
  while (d1->time < 1.5 && std::none_of(lazy.events().begin(), lazy.events().end(), on_floor)) {
    eager.Step(d1.get());
    lazy.Step(d2.get());
  }
  ASSERT_TRUE(std::any_of(lazy.events().begin(), lazy.events().end(), on_floor)) << "no touchdown on the floor";
  ASSERT_EQ(eager.events().size(), lazy.events().size());
  const HookEvent& a = eager.events()[0];
  const HookEvent& b = lazy.CompletedEvent(0);
  ASSERT_TRUE(a.has_xi && b.has_xi);
  const Eigen::MatrixXd xa = a.rigid.xi.Dense(), xb = b.rigid.xi.Dense();
  EXPECT_TRUE(SameBits(xa, xb)) << "eager\n" << xa << "\non demand\n" << xb;
  EXPECT_GT(a.rigid.xi.reset.dv_dq.norm(), 0.1);  // the dome's curvature: ∂v⁺/∂q depends on its pose
}

// A ball resting on a pad the user placed before the first step is in the hook's initial mode
// (Hook::Reset evaluates the contacts with the step's mocap poses): it stays in resting contact
// with no event, as it does on a pad placed there by the model itself.
TEST_F(UserMovedMocap, ABallRestingOnAPadTheUserPlacedIsInTheInitialMode) {
  ModelPtr m = LoadModelFromString(kPad);
  ASSERT_TRUE(m);
  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  d->mocap_pos[0] = 0;  // the pad under the ball, flat; the ball resting on its top face
  d->qpos[1] = kHalfThickness + kRadius - kStartHeight;
  for (int i = 0; i < 300; i++) hook.Step(d.get());
  EXPECT_TRUE(hook.events().empty()) << hook.events().size() << " events, the first a "
                                     << EventKindName(hook.events().front().kind);
  ASSERT_EQ(hook.mode().contacts.size(), 1u);
  EXPECT_EQ(hook.mode().contacts[0].geom1 + hook.mode().contacts[0].geom2, 1);  // pad (0) and ball (1)
}

}  // namespace
}  // namespace saltation::testing
