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

// The offset box's three held corners carry the statics' forces (0.6, 0.2, 0.2) of its weight w, to
// tol·w each (sorted), their sum w to the same
void ExpectThreeCornerStatics(const ModeDynamics& dyn, double w, double tol) {
  std::vector<double> f(dyn.normal_force.data(), dyn.normal_force.data() + dyn.normal_force.size());
  std::sort(f.begin(), f.end());
  ASSERT_EQ(f.size(), 3u);
  EXPECT_NEAR(f[0], 0.2 * w, tol * w);
  EXPECT_NEAR(f[1], 0.2 * w, tol * w);
  EXPECT_NEAR(f[2], 0.6 * w, tol * w);
  EXPECT_NEAR(dyn.normal_force.sum(), w, tol * w);
}

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
  ExpectThreeCornerStatics(dyn, w, 1e-14);
}

// The same scene with friction (condim 3: the sliding corners start let slip, Initialize) and with
// the event location on the whole mode instead of the islands (SimulatorOptions::locate_on_islands):
// the far corner's row is in the span of the held rows either way (HeldSpan takes the whole mode's
// rows; the island's are the same span), so the box rests on its three near corners without events.
TEST_F(RestingCorner, WithFrictionAndWithoutIslandsTheFarCornerMakesNoEvents) {
  std::string frictional = kOffsetBox;
  for (size_t at; (at = frictional.find("condim=\"1\"")) != std::string::npos;) frictional.replace(at, 10, "condim=\"3\"");
  for (const bool friction : {false, true}) {
    for (const bool islands : {true, false}) {
      SCOPED_TRACE(std::string(friction ? "condim 3" : "condim 1") + (islands ? ", islands" : ", whole mode"));
      ModelPtr m = LoadModelFromString(friction ? frictional : kOffsetBox);
      Model model(m.get());
      SimulatorOptions options;
      options.locate_on_islands = islands;
      RigidSimulator sim(model, options);
      State x0 = InitialState(m.get(), "");
      x0.qvel(0) = 1.0;
      x0.qvel(5) = 3.0;
      HybridState s = sim.Initialize(x0);
      ASSERT_EQ(s.mode.contacts.size(), 3u);
      for (const ContactId& id : s.mode.contacts) EXPECT_EQ(id.frictionless, friction) << "a sliding corner slips";
      std::vector<RigidEvent> events;
      sim.Advance(s, 0.5, events);
      EXPECT_EQ(events.size(), 0u);
      for (const RigidEvent& ev : events) ADD_FAILURE() << ev.kind << " at " << ev.time << " s";
      EXPECT_NEAR(s.x.qpos(2), kHalfHeight, 1e-14);
      EXPECT_LT(s.x.qvel.segment(2, 3).norm(), 1e-13);
      const ModeDynamics dyn = EvaluateMode(model, sim.data(), s.x, s.mode);
      ExpectThreeCornerStatics(dyn, kMass * kG, 1e-14);
    }
  }
}

// The negative case: a ball held on the floor, touching a wall (gap g0 within contact_tol) at rest,
// pushed towards it by gravity's horizontal component G_x. The wall point's row (the ball's x) is
// not in the span of the held one (its z): its gap is no combination of held gaps, and its touchdown
// is an ordinary event, located where the gap reaches zero: g0 − G_x t²/2 = 0, t = √(2 g0/G_x) (the
// ball slides frictionless; RK4 is exact for the constant acceleration). Taken as resting it would
// be joined only once it sank contact_tol below its start, at √(2 contact_tol/G_x).
TEST_F(RestingCorner, APointTouchingAtRestWhoseRowIsNotHeldIsALocatedTouchdown) {
  const char* kBallAtWall = R"(
<mujoco>
  <option gravity="2 0 -9.81"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1" condim="1"/>
    <geom name="wall" type="plane" size="1 1 0.1" pos="0.3 0 0" zaxis="-1 0 0" condim="1"/>
    <body name="ball" pos="0 0 0.05">
      <freejoint/>
      <geom name="ball" type="sphere" size="0.05" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";
  ModelPtr m = LoadModelFromString(kBallAtWall);
  Model model(m.get());
  RigidSimulator sim(model);
  const double g0 = 0.5 * model.options().contact_tol, gx = 2.0, r = 0.05;
  HybridState s;
  s.x = InitialState(m.get(), "");
  s.x.qpos(0) = 0.3 - r - g0;
  // held on the floor alone: the wall point is outside the mode, touching at rest
  for (const ContactPoint& p : ListedPoints(model, s.x.qpos)) {
    if (std::abs(p.gap) < 1e-15) s.mode.contacts.push_back(p.id);
  }
  ASSERT_EQ(s.mode.contacts.size(), 1u);
  std::vector<RigidEvent> events;
  sim.Advance(s, 0.01, events, 1);
  ASSERT_EQ(events.size(), 1u);
  const RigidEvent& ev = events[0];
  EXPECT_EQ(ev.kind, EventKind::kTouchdown);
  const double closed = std::sqrt(2 * g0 / gx), resting = std::sqrt(2 * model.options().contact_tol / gx);
  std::printf("[ resting ] wall touchdown at %.15g s (closed form %.15g, %.1e; as resting it would be %.6g)\n",
              ev.time, closed, ev.time - closed, resting);
  EXPECT_NEAR(ev.time, closed, 1e-12);  // root_tol 1e-13
  EXPECT_NEAR(ev.x_minus.qvel(0), gx * closed, 1e-12);
}

// A plate (a mocap body, SimulatorOptions' mocap_motion) rising at a constant speed u under the
// box of the first test: the box rides on its three near corners, the far corner touching at rest
// relative to the plate — its gap's rate J_n v + ∂g/∂t is zero while J_n v alone is u. Held on the
// plate the box has the plate's speed, its height p(t) + c, the statics' forces (0.6, 0.2, 0.2) m g
// (the plate does not accelerate) and no events. Before, the at-rest test read J_n v = u: the start
// held no corner (Initialize), and from three held corners the far one, at round-off below zero,
// "bounced away" and was reported as Zeno.
constexpr double kPlateSpeed = 0.3, kPlateStart = 0.1;  // the plate's top at u (t − t_start): 0.03 m at t = 0.2 s

Options RisingPlate() {
  Options o;
  o.mocap_motion = [](double t, int) {
    MocapSample s;
    s.pos = Eigen::Vector3d(0, 0, kPlateSpeed * (t - kPlateStart));
    s.vel = Eigen::Vector3d(0, 0, kPlateSpeed);
    return s;
  };
  return o;
}

const char* kOffsetBoxOnPlate = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <body name="plate" mocap="true">
      <geom name="plate" type="plane" size="1 1 0.1" condim="1"/>
    </body>
    <body name="box" pos="0 0 0.05">
      <freejoint/>
      <inertial pos="0.06 0.06 0" mass="1" diaginertia="0.004 0.004 0.006"/>
      <geom name="box" type="box" size="0.1 0.1 0.05" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";

TEST_F(RestingCorner, ABoxRidingARisingPlateRestsOnThreeCornersWithoutEvents) {
  ModelPtr m = LoadModelFromString(kOffsetBoxOnPlate);
  Model model(m.get(), RisingPlate());
  const double t0 = 0.2, plate0 = kPlateSpeed * (t0 - kPlateStart), w = kMass * kG;
  State x0 = InitialState(m.get(), "");
  x0.time = t0;
  x0.qpos(2) = plate0 + kHalfHeight;
  x0.qvel(0) = 1.0;
  x0.qvel(2) = kPlateSpeed;
  x0.qvel(5) = 3.0;
  // the four bottom corners on the plate where it is at t0
  Data data(model);
  ApplyMocapMotion(model, data, t0);
  EvaluatePosition(model, data.main(), x0.qpos.data());
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  std::vector<const ContactPoint*> corners;
  for (const ContactPoint& p : points) {
    if (std::abs(p.gap) < 1e-12) corners.push_back(&p);
  }
  ASSERT_EQ(corners.size(), 4u);
  // the near three by hand (the far corner (−,−) has the least x + y): the guard scan alone
  std::sort(corners.begin(), corners.end(), [](const ContactPoint* a, const ContactPoint* b) {
    return a->pos.x() + a->pos.y() < b->pos.x() + b->pos.y();
  });
  HybridState by_hand;
  by_hand.x = x0;
  for (int k = 1; k < 4; k++) by_hand.mode.contacts.push_back(corners[k]->id);
  for (const bool initialized : {false, true}) {
    SCOPED_TRACE(initialized ? "from Initialize" : "three corners held by hand");
    RigidSimulator sim(model);
    HybridState s = by_hand;
    if (initialized) {
      s = sim.Initialize(x0);
      // at rest relative to the plate: the near three held, the far one let go by the release rule
      ASSERT_EQ(s.mode.contacts.size(), 3u);
    }
    std::vector<RigidEvent> events;
    const double t1 = t0 + 0.5;
    sim.Advance(s, t1, events);
    EXPECT_EQ(events.size(), 0u);
    for (const RigidEvent& ev : events) ADD_FAILURE() << ev.kind << " at " << ev.time << " s";
    ASSERT_NEAR(s.x.time, t1, 1e-15);
    const double plate1 = kPlateSpeed * (t1 - kPlateStart);
    std::printf("[ resting on a plate ] height − (plate + c) %.1e m, vertical speed − u %.1e m/s, tilt rates %.1e\n",
                s.x.qpos(2) - plate1 - kHalfHeight, s.x.qvel(2) - kPlateSpeed, s.x.qvel.segment(3, 2).norm());
    EXPECT_NEAR(s.x.qpos(2), plate1 + kHalfHeight, 1e-13);
    EXPECT_NEAR(s.x.qvel(2), kPlateSpeed, 1e-13);
    EXPECT_LT(s.x.qvel.segment(3, 2).norm(), 1e-13);
    ASSERT_EQ(s.mode.contacts.size(), 3u);
    const ModeDynamics dyn = EvaluateMode(model, sim.data(), s.x, s.mode);
    ExpectThreeCornerStatics(dyn, w, 1e-13);
  }
}

// The plate rising at u into a ball at rest in zero gravity, its gap g0 at t0: the touchdown is at
// t0 + g0/u, the ball leaving at (1 + e) u (restitution e = 0.5). Touching (g0 = 0) the point is
// approaching — its gap's rate is −u though J_n v = 0 — so the touchdown is right at t0 (before, the
// at-rest branch took it only once it sank contact_tol, contact_tol/u later); within contact_tol
// above zero and well apart the crossing is located at zero as usual.
TEST_F(RestingCorner, APlateRisingIntoABallAtRestTouchesDownAtTheClosedFormTime) {
  const char* kBallOverPlate = R"(
<mujoco>
  <option gravity="0 0 0"/>
  <custom><numeric name="saltation_restitution" data="0.5"/></custom>
  <worldbody>
    <body name="plate" mocap="true">
      <geom name="plate" type="plane" size="1 1 0.1" condim="1"/>
    </body>
    <body name="ball">
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.05" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";
  ModelPtr m = LoadModelFromString(kBallOverPlate);
  Model model(m.get(), RisingPlate());
  const double t0 = 0.2, r = 0.05, e = 0.5;
  for (const double g0 : {0.0, 0.5 * model.options().contact_tol, 1e-3}) {
    SCOPED_TRACE("gap " + std::to_string(g0));
    RigidSimulator sim(model);
    State x0 = InitialState(m.get(), "");
    x0.time = t0;
    x0.qpos(0) = kPlateSpeed * (t0 - kPlateStart) + r + g0;
    HybridState s = sim.Initialize(x0);
    EXPECT_TRUE(s.mode.contacts.empty()) << "the plate approaches: nothing is held at the start";
    std::vector<RigidEvent> events;
    sim.Advance(s, t0 + 0.01, events, 1);
    ASSERT_EQ(events.size(), 1u);
    const RigidEvent& ev = events[0];
    EXPECT_EQ(ev.kind, EventKind::kTouchdown);
    const double closed = t0 + g0 / kPlateSpeed;
    std::printf("[ rising plate ] gap %.3g m: touchdown at %.15g s (closed form %.15g, %.1e), v⁺ %.15g\n", g0,
                ev.time, closed, ev.time - closed, ev.x_plus.qvel(0));
    EXPECT_NEAR(ev.time, closed, 1e-13);
    EXPECT_NEAR(ev.x_plus.qvel(0), (1 + e) * kPlateSpeed, 1e-13);
  }
}

// Two held points δ = 1 µm apart and a third on their line: the rod below (three spheres on the floor
// at y = 0, δ and L = 0.2, its centre of mass at y = 0.1) held on the close pair alone. In exact
// arithmetic the third's row is in the pair's span (r₃ = r₁ + (L/δ)(r₂ − r₁)); but the mode solver
// takes the pair as one constraint (the eigenvalue of r₂ − r₁, δ²/(2 I), is 1e-11 of the largest,
// below rank_tol), at their midpoint, so nothing holds the pitch: the rod tips onto the third sphere.
// Its gap (g0 = contact_tol/2 at the start, at rest) is no held gap and its touchdown is located at
// zero: with d₁ = 0.1 − δ/2 the pivot's distance to the centre of mass, the rod's pitch acceleration
// θ̈ = m g d₁/(m d₁² + I_xx) and the third sphere's fall (L − δ/2) θ̈ give t = √(2 g0/((L − δ/2) θ̈)).
// A span test with a looser rank than the solver's (the previous one: Eigen's default threshold)
// held it through coefficients of L/δ = 2e5 and joined it only contact_tol below its start.
TEST_F(RestingCorner, APointInTheSpanOfTwoPointsTheSolverTakesAsOneIsNotHeld) {
  const char* kRod = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1" condim="1"/>
    <body name="rod" pos="0 0 0.02">
      <freejoint/>
      <inertial pos="0 0.1 0" mass="1" diaginertia="0.004 0.001 0.004"/>
      <geom name="a" type="sphere" size="0.02" condim="1"/>
      <geom name="b" type="sphere" size="0.02" pos="0 1e-6 0" condim="1"/>
      <geom name="c" type="sphere" size="0.02" pos="0 0.2 5e-10" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";
  ModelPtr m = LoadModelFromString(kRod);
  Model model(m.get());
  ASSERT_NEAR(5e-10, 0.5 * model.options().contact_tol, 1e-25) << "the third sphere starts within contact_tol";
  RigidSimulator sim(model);
  HybridState s;
  s.x = InitialState(m.get(), "");
  const int c = mj_name2id(m.get(), mjOBJ_GEOM, "c");
  for (const ContactPoint& p : ListedPoints(model, s.x.qpos)) {
    if (std::abs(p.gap) < 1e-15) s.mode.contacts.push_back(p.id);
  }
  ASSERT_EQ(s.mode.contacts.size(), 2u);
  EXPECT_EQ(EvaluateMode(model, sim.data(), s.x, s.mode).rank, 1) << "the solver takes the pair as one";
  std::vector<RigidEvent> events;
  sim.Advance(s, 0.01, events, 1);
  ASSERT_EQ(events.size(), 1u);
  const RigidEvent& ev = events[0];
  EXPECT_EQ(ev.kind, EventKind::kTouchdown);
  EXPECT_TRUE(ev.contact.geom1 == c || ev.contact.geom2 == c) << ContactLabel(model, ev.contact);
  const double delta = 1e-6, L = 0.2, g0 = 5e-10, ixx = 0.004, d1 = 0.1 - delta / 2;
  const double pitch = kG * d1 / (d1 * d1 + ixx);
  const double closed = std::sqrt(2 * g0 / ((L - delta / 2) * pitch));
  double gap = 1;
  for (const ContactPoint& p : ListedPoints(model, ev.x_minus.qpos)) {
    if (p.id.geom1 == c || p.id.geom2 == c) gap = p.gap;
  }
  std::printf("[ resting ] third sphere's touchdown at %.15g s (closed form %.15g, %.1e), its gap there %.1e m\n",
              ev.time, closed, ev.time - closed, gap);
  EXPECT_NEAR(ev.time, closed, 1e-12);  // measured 2.2e-14 s (root_tol 1e-13)
  EXPECT_LT(std::abs(gap), 1e-15);
}

}  // namespace
}  // namespace saltation::testing
