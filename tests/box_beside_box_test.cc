// Two equal cubes side by side on a floor, one sliding into the other: BoxPile(16)'s stop at 1.203 s
// with box–box features held (issue 14), reduced. Their tops are level, so the sliding cube's top
// corner reaches the other's side exactly at its top rim, where the corner lies on two faces' planes
// to round-off; box_box_points.cc listed it over the face whose plane it was the nearer to, the
// top — a vertical normal between two boxes resting on one floor, at right angles to the approach
// (and the bottom corner over the bottom face). In the pile that row was joined as a touchdown and
// held beside the floor's rows, and the impact's complementarity problem cycled ("did not settle in
// 34 active-set changes"). A vertex–face point is a contact only along a normal the vertex is its
// box's support towards (the vertex's normal cone, up to the edge–edge points' kOutOfCone).
//  - LevelCornerTouchesTheSideAlongItsNormal: the corners of the sliding cube's leading vertical
//    edge, a hair inside the other's side, are listed along the side's normal (before: the top
//    and bottom faces').
//  - SlidingCubeStrikesTheSideAsAClosedFormImpact: frictionless, the sliding cube (turned by γ about
//    z) strikes at t = gap/v₀; the impact is horizontal: vertical speeds stay 0, each cube's
//    momentum changes along the side's normal only and the total is conserved.
#include <cmath>
#include <cstdio>
#include <string>

#include "saltation/contact_features.h"
#include "saltation/contacts.h"
#include "saltation/rigid_simulator.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

class BoxBesideBox : public MujocoTest {};

using Vec3 = Eigen::Vector3d;

constexpr double kA = 0.07, kGamma = 0.06, kV0 = 0.5, kX0 = -0.2;

// the still cube at the origin, the mover at (x0, y0) turned by γ about z, both resting on the floor
std::string Scene(double x0, double y0) {
  char xml[1400];
  std::snprintf(xml, sizeof(xml), R"(
<mujoco>
  <compiler angle="radian"/>
  <option timestep="0.002"/>
  <custom><numeric name="saltation_restitution" data="0.3"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="10 10 0.1" condim="1"/>
    <body name="still" pos="0 0 %.17g"><freejoint/><geom name="still" type="box" size="%.17g %.17g %.17g" mass="1" condim="1"/></body>
    <body name="mover" pos="%.17g %.17g %.17g" euler="0 0 %.17g"><freejoint/><geom name="mover" type="box" size="%.17g %.17g %.17g" mass="1" condim="1"/></body>
  </worldbody>
</mujoco>)", kA, kA, kA, kA, x0, y0, kA, kGamma, kA, kA, kA);
  return xml;
}

// the mover's leading corner (a, −a) in its frame lies at x0 + a(cos γ + sin γ), y0 + a(sin γ − cos γ)
double LeadingX(double x0) { return x0 + kA * (std::cos(kGamma) + std::sin(kGamma)); }
constexpr double kY0 = 0.05;

TEST_F(BoxBesideBox, LevelCornerTouchesTheSideAlongItsNormal) {
  // the leading edge 1e-7 m inside the still cube's −x side
  const double x0 = -kA + 1e-7 - (LeadingX(0));
  ModelPtr m = LoadModelFromString(Scene(x0, kY0));
  Model model(m.get());
  Data data(model);
  EvaluatePosition(model, data.main(), m->qpos0);
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  const int still = mj_name2id(m.get(), mjOBJ_GEOM, "still"), mover = mj_name2id(m.get(), mjOBJ_GEOM, "mover");
  int at_edge = 0;
  double worst = 0;
  for (const ContactPoint& p : points) {
    if (!(p.id.geom1 == still && p.id.geom2 == mover)) continue;
    // the leading edge's points: on the side's plane x = −a (to its depth)
    if (std::abs(p.pos.x() + kA) > 1e-6) continue;
    at_edge++;
    const Vec3 side = Vec3(-1, 0, 0);  // geom1 (still) → geom2 (mover)
    const double off = (p.frame.row(0).transpose() - side).norm();
    worst = std::max(worst, off);
    EXPECT_LT(off, 1e-12) << FeatureName(p.own_feature) << " at " << p.pos.transpose() << " normal " << p.frame.row(0);
    EXPECT_NEAR(p.gap, -1e-7, 1e-12) << FeatureName(p.own_feature) << " at " << p.pos.transpose();
  }
  std::printf("[ box beside box ] %d points at the leading edge, normal off the side's by %.2e\n", at_edge, worst);
  EXPECT_GE(at_edge, 2);  // its two corners (the top and the bottom one)
}

TEST_F(BoxBesideBox, SlidingCubeStrikesTheSideAsAClosedFormImpact) {
  ModelPtr m = LoadModelFromString(Scene(kX0, kY0));
  Model model(m.get());
  RigidSimulator sim(model);
  State x = InitialState(m.get(), "");
  x.qvel(6) = kV0;  // the mover's x speed
  HybridState s = sim.Initialize(x);
  const double t_hit = (-kA - LeadingX(kX0)) / kV0;
  std::vector<RigidEvent> events;
  RunRigid(sim, s, t_hit + 0.05, [&](const RigidEvent& ev) { events.push_back(ev); });
  const int still = mj_name2id(m.get(), mjOBJ_GEOM, "still"), mover = mj_name2id(m.get(), mjOBJ_GEOM, "mover");
  const RigidEvent* hit = nullptr;
  for (const RigidEvent& ev : events) {
    if (ev.kind == EventKind::kTouchdown && ev.contact.geom1 == still && ev.contact.geom2 == mover && !hit) hit = &ev;
  }
  ASSERT_NE(hit, nullptr);
  EXPECT_NEAR(hit->time, t_hit, 1e-12);
  const Eigen::VectorXd dv = hit->x_plus.qvel - hit->x_minus.qvel;
  std::printf("[ box beside box ] strike at |t − t_exact| = %.2e s, Δv_still (%.3e %.3e %.3e), Δv_mover (%.3e %.3e %.3e)\n",
              std::abs(hit->time - t_hit), dv(0), dv(1), dv(2), dv(6), dv(7), dv(8));
  // the impulse is along x: the still cube is pushed along +x, nothing vertical, momentum conserved
  EXPECT_GT(dv(0), 0.1 * kV0);
  EXPECT_LT(std::abs(dv(1)) + std::abs(dv(2)) + std::abs(dv(7)) + std::abs(dv(8)), 1e-12);
  EXPECT_NEAR(dv(0) + dv(6), 0, 1e-12);
  EXPECT_NEAR(s.x.time, t_hit + 0.05, 1e-12);
  EXPECT_LT(std::abs(s.x.qvel(2)) + std::abs(s.x.qvel(8)), 1e-12);
}

}  // namespace
}  // namespace saltation::testing
