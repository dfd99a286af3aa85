// A box lying flat on the floor, held at four coplanar corners: three normal degrees of freedom
// (height, roll, pitch), four rows. The fourth corner's row is in the span of the other three's,
// so the normal forces are not unique: any λ = λ_min-norm + t·(+1, −1, −1, +1) (the corners
// (+,+), (+,−), (−,+), (−,−)) gives the same accelerations (theory.md §2, the pseudo-inverse).
//
// The scene: a frictionless box, half sizes a = b = 0.1, c = 0.05, its centre of mass offset to
// (0.6a, 0.6b) in its own frame, sliding at 1 m/s and spinning at 3 rad/s about its vertical axis on
// the floor. Statics: the min-norm split is m g/4 (1 + 0.6 s_x + 0.6 s_y), −0.05 m g at the far
// corner (−,−); the non-negative splits are t ≥ 0.05 m g, among them (0.6, 0.2, 0.2, 0) m g: the box
// rests on its three near corners, the far one touching with no force. The rigid mode holds the
// three (the release rule lets the far corner go at the start) and the far corner's gap, held at
// zero by them, must not make events.
//
// Before: the min-norm split made the far corner pull, so it was released; its gap, a coplanar
// combination of the three held gaps, is zero to round-off, and it crossed zero again and again
// as the box moved: touchdowns with ∇gᵀF⁻ 1e-16…1e-21 (‖Ξ‖ up to 1.5e7), each released at once
// (BoxPile(36) stops at 0.411 s on "transversality zero" so; issue 14). Now a point touching
// (within contact_tol) at rest at a step's start counts as a touchdown only once it sinks
// contact_tol below where it started (rigid_simulator.cc, the at-rest branch).
#include <algorithm>
#include <cmath>
#include <vector>

#include "saltation/loading.h"
#include "saltation/rigid_simulator.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

const char* kOffsetBox = R"(
<mujoco>
  <option gravity="0 0 -9.81" timestep="0.001"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1" condim="1"/>
    <body name="box" pos="0 0 0.05">
      <freejoint/>
      <inertial pos="0.06 0.06 0" mass="1" diaginertia="0.004 0.004 0.006"/>
      <geom name="box" type="box" size="0.1 0.1 0.05" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";

constexpr double kG = 9.81, kMass = 1.0, kHalfHeight = 0.05;

class RestingCorner : public MujocoTest {};

TEST_F(RestingCorner, ABoxOnARedundantSupportRestsOnThreeCornersWithoutEvents) {
  ModelPtr m = LoadModelFromString(kOffsetBox);
  Model model(m.get());
  RigidSimulator sim(model);
  State x0 = InitialState(m.get(), "");
  x0.qvel(0) = 1.0;  // sliding along x
  x0.qvel(5) = 3.0;  // spinning about its vertical axis
  // the scene is what it is for: the four bottom corners touch, their rows have rank three, and the
  // min-norm split pulls at the far corner, m g/4 (1 + 0.6 s_x + 0.6 s_y) = (0.55, 0.25, 0.25, −0.05) m g
  Mode four;
  for (const ContactPoint& p : ListedPoints(model, x0.qpos)) {
    if (std::abs(p.gap) < 1e-12) four.contacts.push_back(p.id);
  }
  ASSERT_EQ(four.contacts.size(), 4u);
  const ModeDynamics at_rest = EvaluateMode(model, sim.data(), x0, four);
  EXPECT_EQ(at_rest.rank, 3);
  std::vector<double> split(at_rest.normal_force.data(), at_rest.normal_force.data() + 4);
  std::sort(split.begin(), split.end());
  const double w = kMass * kG;
  EXPECT_NEAR(split[0], -0.05 * w, 1e-12 * w);
  EXPECT_NEAR(split[1], 0.25 * w, 1e-12 * w);
  EXPECT_NEAR(split[2], 0.25 * w, 1e-12 * w);
  EXPECT_NEAR(split[3], 0.55 * w, 1e-12 * w);

  HybridState s = sim.Initialize(x0);
  // the far corner pulls in the min-norm split of four: the start holds the near three
  EXPECT_EQ(s.mode.contacts.size(), 3u);
  std::vector<RigidEvent> events;
  const double duration = 0.5;
  sim.Advance(s, duration, events);
  // nothing lands, nothing lifts off: the box never leaves the floor, and the far corner, touching
  // at rest with its gap held at zero by the other three, is no touchdown
  EXPECT_EQ(events.size(), 0u);
  for (const RigidEvent& ev : events) ADD_FAILURE() << ev.kind << " at " << ev.time << " s";
  ASSERT_NEAR(s.x.time, duration, 1e-15);
  // flat on the floor: height, vertical and tilt speeds
  EXPECT_NEAR(s.x.qpos(2), kHalfHeight, 1e-14);
  EXPECT_LT(std::abs(s.x.qvel(2)), 1e-13);
  EXPECT_LT(s.x.qvel.segment(3, 2).norm(), 1e-13);
  // held on its three near corners with the statics' forces (0.6, 0.2, 0.2) m g, the far corner
  // touching with none (measured: height exact, speeds 1.8e-15 and 2.3e-14, forces to 1.3e-15 m g)
  ASSERT_EQ(s.mode.contacts.size(), 3u);
  const ModeDynamics dyn = EvaluateMode(model, sim.data(), s.x, s.mode);
  std::vector<double> f(dyn.normal_force.data(), dyn.normal_force.data() + dyn.normal_force.size());
  std::sort(f.begin(), f.end());
  EXPECT_NEAR(f[0], 0.2 * w, 1e-14 * w);
  EXPECT_NEAR(f[1], 0.2 * w, 1e-14 * w);
  EXPECT_NEAR(f[2], 0.6 * w, 1e-14 * w);
  EXPECT_NEAR(dyn.normal_force.sum(), w, 1e-14 * w);
}

}  // namespace
}  // namespace saltation::testing
