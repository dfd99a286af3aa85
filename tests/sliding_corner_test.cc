// A corner of a face-on-face box support that slides fast, followed through the step by the engine
// hook's localisation (crossings.cc) and by the exact reference (rigid_simulator.cc), both through
// point_following.h.
//
// The scene: a fixed base box (top face at z = 0, half sizes 0.1 0.1 0.05) and a free box above it
// (half sizes 0.1 0.03 0.05), yawed by θ = 0.1 rad, its +x side lowered (β = 0.1 rad about y) and its
// +y side raised a little (α = 0.005 rad about x), moving without rotation at v = (0.1, 0, −0.02) m/s
// with no gravity: every state is x₀ + v·t and every gap along it is linear in time. The lowest part
// of the pair's support is the crossing P of the free box's bottom +x edge with the base's top +x
// edge, two edges 0.1 rad from parallel: P runs along them at vx/tan θ ≈ 1 m/s (1 mm per 1 ms step),
// towards Q, where the same free-box edge crosses the base's top +y edge (Q stands still in the free
// box's frame; the edge rises towards it by α, so Q touches down after P, in the same step). In the
// step where P touches down, P's end anchor lies nearer to Q's start anchor than to its own: matched
// to the nearest start anchor, the hook followed Q through the step and recorded the touchdown on Q,
// 176 µs late.
//
// Truth (closed form): the edges' lines, e1 = R·ŷ through c(t) + R·(0.1, 0, −0.05) and e2 = ŷ through
// (0.1, 0, 0), are at the signed distance n·(a1(t) − a2) along n = e1 × e2 / |e1 × e2| (upwards), zero
// at t_P = −n·(a1(0) − a2) / n·v; P is where the lines meet then.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "point_following.h"
#include "saltation/contacts.h"
#include "saltation/hook.h"
#include "saltation/rigid_simulator.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

constexpr double kYaw = 0.1, kPitch = 0.1, kRoll = 0.005;  // θ, β, α (rad)
constexpr double kHalf[3] = {0.1, 0.03, 0.05};              // the free box
const Eigen::Vector3d kVelocity(0.1, 0, -0.02);             // m/s
// at t = 0, P lies at y = 0.06959 on the base's edge with the free box's edge 0.4446 mm above it:
// it touches down inside the step [29, 30] ms, 0.7 mm from Q
constexpr double kStartY = 0.06959, kStartHeight = 4.446e-4;

struct Scene {
  Eigen::Quaterniond q;
  Eigen::Vector3d centre;  // the free box's at t = 0
  std::string xml;
};

Scene MakeScene() {
  Scene s;
  s.q = Eigen::AngleAxisd(kYaw, Eigen::Vector3d::UnitZ()) * Eigen::AngleAxisd(kPitch, Eigen::Vector3d::UnitY()) *
        Eigen::AngleAxisd(kRoll, Eigen::Vector3d::UnitX());
  const Eigen::Matrix3d R = s.q.toRotationMatrix();
  // the point of the free box's bottom +x edge (box coordinates (0.1, u, −0.05)) that lies over the
  // base's +x edge at y = kStartY, kStartHeight above it; the centre at y = 0.08
  const double yc = 0.08;
  const double u = (kStartY - yc - R(1, 0) * kHalf[0] + R(1, 2) * kHalf[2]) / R(1, 1);
  const Eigen::Vector3d edge_point = R * Eigen::Vector3d(kHalf[0], u, -kHalf[2]);
  s.centre = Eigen::Vector3d(0.1, kStartY, kStartHeight) - edge_point;
  char buf[1200];
  std::snprintf(buf, sizeof(buf), R"(
<mujoco>
  <option gravity="0 0 0" timestep="0.001"/>
  <worldbody>
    <geom name="base" type="box" size="0.1 0.1 0.05" pos="0 0 -0.05"/>
    <body name="top" pos="%.17g %.17g %.17g" quat="%.17g %.17g %.17g %.17g"><freejoint/>
      <geom name="top" type="box" size="%.17g %.17g %.17g" mass="1"/>
    </body>
  </worldbody>
</mujoco>)",
                s.centre.x(), s.centre.y(), s.centre.z(), s.q.w(), s.q.x(), s.q.y(), s.q.z(), kHalf[0], kHalf[1],
                kHalf[2]);
  s.xml = buf;
  return s;
}

// P's touchdown: its time and place (closed form, above)
struct Touchdown {
  double time;
  Eigen::Vector3d point;
};

Touchdown ClosedForm(const Scene& s) {
  const Eigen::Matrix3d R = s.q.toRotationMatrix();
  const Eigen::Vector3d e1 = R.col(1), e2 = Eigen::Vector3d::UnitY(), a2(0.1, 0, 0);
  const Eigen::Vector3d a1 = s.centre + R * Eigen::Vector3d(kHalf[0], 0, -kHalf[2]);
  Eigen::Vector3d n = e1.cross(e2).normalized();
  if (n.z() < 0) n = -n;
  Touchdown t;
  t.time = -n.dot(a1 - a2) / n.dot(kVelocity);
  const Eigen::Vector3d a = a1 + t.time * kVelocity;  // the lines meet: x = 0.1 on e1's line
  t.point = a + ((0.1 - a.x()) / e1.x()) * e1;
  return t;
}

State StartState(const mjModel* m) {
  State x = InitialState(m, "");
  x.qvel.head<3>() = kVelocity;
  return x;
}

class SlidingCorner : public MujocoTest {};

// The scene does what it is for: in the step where P touches down, P's end anchor is nearer to Q's
// start anchor than to its own (the nearest start anchor would take P's end for Q's), while P and Q
// are both listed at both ends; and the followed start point (point_following.h, with the rates
// from a sub-step of 1e-3 of the step) is P's own.
TEST_F(SlidingCorner, PointsEndNearerToItsNeighboursStartAnchor) {
  const Scene scene = MakeScene();
  ModelPtr m = LoadModelFromString(scene.xml);
  Model model(m.get());
  Data data(model);
  const Touchdown truth = ClosedForm(scene);
  const double h = m->opt.timestep, t0 = std::floor(truth.time / h) * h, t1 = t0 + h;
  auto points_at = [&](double t) {
    State x = StartState(m.get());
    x.qpos.head<3>() += t * kVelocity;
    std::vector<ContactPoint> points;
    EvaluatePosition(model, data.main(), x.qpos.data());
    ListContacts(model, data.main(), points);
    return points;
  };
  // P: on the base's +x edge (x = 0.1) nearest to P's y; Q: on its +y edge (y = 0.1); both with an
  // upward normal (not the point of the free box's edge beside the base's vertical edge at (0.1, 0.1))
  auto find = [](const std::vector<ContactPoint>& points, int axis, double near_y) {
    int best = -1;
    for (size_t i = 0; i < points.size(); i++) {
      if (std::abs(points[i].pos(axis) - 0.1) > 1e-4 || std::abs(points[i].frame(0, 2)) < 0.9) continue;
      if (best < 0 || std::abs(points[i].pos.y() - near_y) < std::abs(points[best].pos.y() - near_y)) best = static_cast<int>(i);
    }
    return best;
  };
  const std::vector<ContactPoint> start = points_at(t0), end = points_at(t1);
  const double slide = kVelocity.x() / std::tan(kYaw);  // P's speed along the base's edge
  const int p0 = find(start, 0, truth.point.y() - (truth.time - t0) * slide);
  const int p1 = find(end, 0, truth.point.y() + (t1 - truth.time) * slide);
  const int q0 = find(start, 1, 0.1);
  ASSERT_GE(p0, 0);
  ASSERT_GE(p1, 0);
  ASSERT_GE(q0, 0);
  ASSERT_TRUE(start[q0].id.SamePair(start[p0].id));
  EXPECT_GT(start[p0].gap, 0);
  EXPECT_LT(end[p1].gap, 0);
  EXPECT_GT(start[q0].gap, 0);
  const double own = (end[p1].id.anchor - start[p0].id.anchor).norm();
  const double neighbour = (end[p1].id.anchor - start[q0].id.anchor).norm();
  std::printf("[ sliding ] P touches down at %.12f s; in its step P's end anchor is %.3g m from its start, %.3g m "
              "from Q's\n", truth.time, own, neighbour);
  EXPECT_LT(neighbour, 0.5 * own);
  EXPECT_EQ(MatchContact(end[p1].id, start), q0);  // the nearest start anchor: Q's

  // the rates from the pair's points a sub-step in: P's end follows P's start
  std::vector<ContactPoint> inactive = start;
  CarriedAnchors carried;
  carried.Begin(inactive);
  EXPECT_TRUE(carried.NeedsRates(end[p1].id));
  const double delta = kAnchorRateProbe * h;
  carried.Carry(end[p1].id, points_at(t0 + delta), delta, h);
  EXPECT_FALSE(carried.NeedsRates(end[p1].id));
  EXPECT_EQ(carried.StartOf(end[p1].id), p0);
}

// The engine hook records P's touchdown at its time, on P; the exact reference too.
TEST_F(SlidingCorner, TouchdownIsLocatedOnTheSlidingPoint) {
  const Scene scene = MakeScene();
  ModelPtr m = LoadModelFromString(scene.xml);
  const Touchdown truth = ClosedForm(scene);

  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  mju_copy(d->qvel, StartState(m.get()).qvel.data(), m->nv);
  const HookEvent* hooked = nullptr;
  while (d->time < 0.032 && !hooked) {
    hook.Step(d.get());
    for (const HookEvent& ev : hook.events()) {
      if (ev.has_xi && !hooked) hooked = &ev;
    }
  }
  ASSERT_NE(hooked, nullptr);

  Model model(m.get());
  RigidSimulator sim(model);
  HybridState s = sim.Initialize(StartState(m.get()));
  const std::vector<RigidEvent> exact = sim.Advance(s, 0.032, 1);
  ASSERT_EQ(exact.size(), 1u);

  std::printf("[ sliding ] P's touchdown: closed form %.15f s at (%.9f %.9f); hook %s %.15f s at (%.9f %.9f); "
              "reference %.15f s at (%.9f %.9f)\n",
              truth.time, truth.point.x(), truth.point.y(), EventKindName(hooked->kind), hooked->time,
              hooked->point.x(), hooked->point.y(), exact[0].time, exact[0].point.x(), exact[0].point.y());
  std::printf("[ sliding ] errors: hook %.2g s, %.2g m; reference %.2g s, %.2g m\n", std::abs(hooked->time - truth.time),
              (hooked->point - truth.point).norm(), std::abs(exact[0].time - truth.time),
              (exact[0].point - truth.point).norm());
  EXPECT_EQ(hooked->kind, EventKind::kTouchdown);
  // before: the hook's touchdown at 0.029832 s on Q (0.09995, 0.1), 1.8e-4 s late and 0.7 mm away
  EXPECT_NEAR(hooked->time, truth.time, 5e-15);
  EXPECT_LT((hooked->point - truth.point).norm(), 1e-14);
  EXPECT_EQ(exact[0].kind, EventKind::kTouchdown);
  EXPECT_NEAR(exact[0].time, truth.time, 5e-15);
  EXPECT_LT((exact[0].point - truth.point).norm(), 1e-14);
}

}  // namespace
}  // namespace saltation::testing
