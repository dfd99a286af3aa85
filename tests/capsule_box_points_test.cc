// Contact points of our own for a capsule against a box (own_points.h, capsule_box_points.cc):
// closed forms — a capsule lying parallel on a face (its two ends), tilted (one end), across an
// edge (the segment's interior point), across a vertex, over both rims of a face — on a box
// turned and moved in the world; then the exact rigid reference on a capsule dropped flat across a
// box, overhanging both rims (both rims land at √(2H/g) and it comes to rest on them), and on a
// short capsule parallel to a box edge landing on its corner (one contact, where MuJoCo gave two).
#include <cmath>
#include <string>
#include <vector>

#include "saltation/contacts.h"
#include "saltation/loading.h"
#include "saltation/rigid_simulator.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

class CapsuleBoxPoints : public MujocoTest {};

using Vec3 = Eigen::Vector3d;

const double kRadius = 0.03;
const double kMargin = 0.01;  // the capsule's: the touchdown guard is dist − margin
const Vec3 kHalf(0.2, 0.15, 0.1);

// A box (half sizes kHalf) turned and moved in the world, and a free capsule (radius kRadius,
// half length `h`, margin kMargin: the pair's band is a little more).
std::string BoxAndCapsule(double h) {
  return R"(
<mujoco>
  <worldbody>
    <geom name="box" type="box" size="0.2 0.15 0.1" pos="0.3 -0.2 0.05" euler="20 -10 35"/>
    <body name="rod"><freejoint/><geom name="rod" type="capsule" size="0.03 )" + std::to_string(h) +
         R"(" margin="0.01" mass="1"/></body>
  </worldbody>
</mujoco>)";
}

// The pair's detection band in the rigid model (margins and the widened gaps of both geoms).
double Band(const Model& model) {
  const mjModel* m = model.mj();
  return m->geom_margin[0] + m->geom_margin[1] + m->geom_gap[0] + m->geom_gap[1];
}

// (capsule centre and unit axis in the box's frame) => the points ListContacts gives
std::vector<ContactPoint> PointsAt(const Model& model, const GeomPose& box, const Vec3& centre, const Vec3& axis) {
  const Vec3 x = box.World(centre);
  const Eigen::Quaterniond q = Eigen::Quaterniond::FromTwoVectors(Vec3::UnitZ(), box.R * axis);
  Eigen::VectorXd qpos(7);
  qpos << x.x(), x.y(), x.z(), q.w(), q.x(), q.y(), q.z();
  Data data(model);
  EvaluatePosition(model, data.main(), qpos.data());
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  return points;
}

// A point at `pos_local` (box frame), distance `dist`, normal −`outward` (capsule → box) is among
// `points`, to 1e-12.
void ExpectPoint(const std::vector<ContactPoint>& points, const GeomPose& box, const Vec3& pos_local,
                 const Vec3& outward, double dist, const char* what) {
  const Vec3 pos = box.World(pos_local), normal = -(box.R * outward);
  int found = 0;
  for (const ContactPoint& p : points) {
    if ((p.pos - pos).norm() > 1e-12) continue;
    found++;
    EXPECT_NEAR(p.gap, dist - kMargin, 1e-12) << what;
    EXPECT_LT((p.frame.row(0).transpose() - normal).norm(), 1e-12) << what;
  }
  EXPECT_EQ(found, 1) << what << ": a point at " << pos.transpose();
}

TEST_F(CapsuleBoxPoints, LyingParallelOnAFaceGivesBothEnds) {
  const double h = 0.1, g = 0.004;
  ModelPtr m = LoadModelFromString(BoxAndCapsule(h));
  Model model(m.get());
  ASSERT_GT(Band(model), g);
  const GeomPose box = GeomPoseAtRest(model, "box");
  // the capsule 4 mm above the top face, turned in it, both ends over the face
  const Vec3 axis(std::cos(0.4), std::sin(0.4), 0), centre(0.02, 0.01, kHalf.z() + kRadius + g);
  const std::vector<ContactPoint> points = PointsAt(model, box, centre, axis);
  for (const double t : {-h, h}) {
    const Vec3 end = centre + t * axis;
    ExpectPoint(points, box, Vec3(end.x(), end.y(), kHalf.z() + 0.5 * g), Vec3::UnitZ(), g, t < 0 ? "end −" : "end +");
  }
  EXPECT_EQ(points.size(), 2u);
}

TEST_F(CapsuleBoxPoints, TiltedOnAFaceGivesItsLowerEnd) {
  const double h = 0.1, g = 0.004, tilt = 0.5;
  ModelPtr m = LoadModelFromString(BoxAndCapsule(h));
  Model model(m.get());
  const GeomPose box = GeomPoseAtRest(model, "box");
  // the lower end 4 mm above the top face; the other 2h sin(tilt) = 96 mm higher, out of the band
  const Vec3 axis(std::cos(tilt), 0, -std::sin(tilt)), low(0.1, 0.05, kHalf.z() + kRadius + g);
  ASSERT_GT(2 * h * std::sin(tilt) + g, Band(model));
  const std::vector<ContactPoint> points = PointsAt(model, box, low - h * axis, axis);
  ExpectPoint(points, box, Vec3(low.x(), low.y(), kHalf.z() + 0.5 * g), Vec3::UnitZ(), g, "lower end");
  EXPECT_EQ(points.size(), 1u);
}

TEST_F(CapsuleBoxPoints, AcrossAnEdgeGivesTheSegmentsInteriorPoint) {
  const double h = 0.1, g = 0.004, tilt = 0.3, s = 0.03;
  ModelPtr m = LoadModelFromString(BoxAndCapsule(h));
  Model model(m.get());
  const GeomPose box = GeomPoseAtRest(model, "box");
  // the capsule over the top face's +x edge, sloping down past it: its axis passes the edge at
  // δ = radius + g along the common perpendicular n, a distance s from its centre. Its upper end
  // is over the top face, δ cos + (h − s) sin − radius = 23 mm above it (within the band), the
  // lower one far beyond the side face.
  const Vec3 axis(std::cos(tilt), 0, -std::sin(tilt)), n(std::sin(tilt), 0, std::cos(tilt));
  const Vec3 on_edge(kHalf.x(), 0.03, kHalf.z());
  const double delta = kRadius + g;
  const Vec3 centre = on_edge + delta * n + s * axis;
  const std::vector<ContactPoint> points = PointsAt(model, box, centre, axis);
  ExpectPoint(points, box, on_edge + 0.5 * g * n, n, g, "edge");
  const Vec3 upper = centre - h * axis;
  const double up = delta * std::cos(tilt) + (h - s) * std::sin(tilt) - kRadius;
  ASSERT_LT(up, Band(model));
  ExpectPoint(points, box, Vec3(upper.x(), upper.y(), kHalf.z() + 0.5 * up), Vec3::UnitZ(), up, "upper end");
  EXPECT_EQ(points.size(), 2u);
}

TEST_F(CapsuleBoxPoints, AcrossAVertexGivesTheSegmentsInteriorPoint) {
  const double h = 0.1, g = 0.004, s = 0.02;
  ModelPtr m = LoadModelFromString(BoxAndCapsule(h));
  Model model(m.get());
  const GeomPose box = GeomPoseAtRest(model, "box");
  // the capsule across the (+, +, +) corner, its axis orthogonal to the corner's diagonal n and
  // passing it at radius + g: the three edges' common perpendiculars meet them beyond the corner
  const Vec3 corner = kHalf, n = Vec3(1, 1, 1).normalized(), axis = Vec3(1, -1, 0).normalized();
  const Vec3 centre = corner + (kRadius + g) * n + s * axis;
  const std::vector<ContactPoint> points = PointsAt(model, box, centre, axis);
  ExpectPoint(points, box, corner + 0.5 * g * n, n, g, "vertex");
  EXPECT_EQ(points.size(), 1u);
}

TEST_F(CapsuleBoxPoints, LyingOverBothRimsGivesTheRims) {
  // longer than the face: its ends overhang the ±x rims by 5 cm; the points where it crosses the
  // rims, and each end against its nearest feature, the rim's edge, √(0.05² + (radius + g)²) −
  // radius away (within the band)
  const double h = 0.25, g = 0.004;
  ModelPtr m = LoadModelFromString(BoxAndCapsule(h));
  Model model(m.get());
  const GeomPose box = GeomPoseAtRest(model, "box");
  const Vec3 axis = Vec3::UnitX(), centre(0, -0.04, kHalf.z() + kRadius + g);
  const std::vector<ContactPoint> points = PointsAt(model, box, centre, axis);
  for (const double sign : {-1.0, 1.0}) {
    const Vec3 rim(sign * kHalf.x(), centre.y(), kHalf.z());
    ExpectPoint(points, box, rim + 0.5 * g * Vec3::UnitZ(), Vec3::UnitZ(), g, sign < 0 ? "rim −" : "rim +");
    const Vec3 over = centre + sign * h * axis - rim;  // from the rim to the end's centre
    const double dist = over.norm() - kRadius;
    ASSERT_LT(dist, Band(model));
    ExpectPoint(points, box, rim + 0.5 * dist * over.normalized(), over.normalized(), dist, sign < 0 ? "end −" : "end +");
  }
  EXPECT_EQ(points.size(), 4u);
}

// RigidIslands' scene: a capsule along x above a box's top face, its +x end right over the rim.
const char* kEndOverRim = R"(
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="20 20 0.1"/>
    <body name="capsule" pos="0.02 0.01 0.244"><freejoint/>
      <geom name="capsule" type="capsule" size="0.04 0.08" euler="0 90 0" mass="0.5"/></body>
    <body name="box0" pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
  </worldbody>
</mujoco>)";

TEST_F(CapsuleBoxPoints, AnEndRightOverARimIsOnePoint) {
  // the +x end (x = 0.02 + 0.08) right over the top face's +x rim (x = 0.1), 4 mm above it: the
  // end sphere's point and the segment's point nearest to the rim edge coincide; the pair lists it
  // once (the rigid reference held both and lost one as the capsule moved, "has no contact point")
  ModelPtr m = LoadModelFromString(kEndOverRim);
  Model model(m.get());
  Data data(model);
  EvaluatePosition(model, data.main(), m->qpos0);
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  int capsule_box = 0;
  for (const ContactPoint& p : points) {
    if (m->geom_type[p.id.geom1] != mjGEOM_CAPSULE) continue;
    capsule_box++;
    EXPECT_NEAR(p.gap, 0.004, 1e-15);
    const double x = p.pos.x();
    EXPECT_TRUE(std::abs(x - 0.1) < 1e-15 || std::abs(x + 0.06) < 1e-15) << x;
  }
  EXPECT_EQ(capsule_box, 2);
}

// A capsule dropped flat from rest across a narrow box's top face (z = 0), overhanging both of its
// ±x rims (as Go2's hip capsule lies across its calf box).
const char* kFlatDrop = R"(
<mujoco>
  <option timestep="0.001"/>
  <worldbody>
    <geom name="box" type="box" size="0.08 0.2 0.1" pos="0 0 -0.1"/>
    <body name="rod" pos="0.01 0.02 0.09" zaxis="1 0.3 0">
      <freejoint/><geom name="rod" type="capsule" size="0.03 0.12" margin="0.01" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";

TEST_F(CapsuleBoxPoints, ACapsuleDroppedAcrossABoxLandsOnBothRimsAndRests) {
  // MuJoCo's capsule–box lists a capsule lying across a face, overhanging both rims, at one point
  // twice, then once: the rigid reference held two contacts and lost one ("has no contact point
  // within the detection margin"). Its own points: both rims land together at √(2H/g),
  // H = 0.09 − radius − margin, and it comes to rest on them.
  ModelPtr m = LoadModelFromString(kFlatDrop);
  Model model(m.get());
  RigidSimulator sim(model);
  HybridState s = sim.Initialize(InitialState(m.get(), ""));
  const std::vector<RigidEvent> events = sim.Advance(s, 0.5);
  ASSERT_FALSE(events.empty());
  const double H = 0.09 - kRadius - kMargin, t_land = std::sqrt(2 * H / -m->opt.gravity[2]);
  EXPECT_EQ(events[0].kind, EventKind::kTouchdown);
  EXPECT_NEAR(events[0].time, t_land, 1e-12);
  ASSERT_EQ(events[0].mode_after.contacts.size(), 2u);
  // the two rims (x = ±0.08 in the box's frame, the world's but for its offset)
  const double x0 = events[0].mode_after.contacts[0].anchor.x(), x1 = events[0].mode_after.contacts[1].anchor.x();
  EXPECT_NEAR(std::min(x0, x1), -0.08, 1e-12);
  EXPECT_NEAR(std::max(x0, x1), 0.08, 1e-12);
  // at rest on both rims, the axis radius + margin above the face
  EXPECT_EQ(s.mode.contacts.size(), 2u);
  EXPECT_NEAR(s.x.qpos(2), kRadius + kMargin, 1e-9);
  EXPECT_LT(s.x.qvel.norm(), 1e-9);
}

// A short capsule lying along the box's y axis, beyond the end of its top (+x) edge: its −y end
// sphere falls onto the box's (+x, +y, top) corner (as Go2's hip capsule meets its calf box).
const char* kCornerDrop = R"(
<mujoco>
  <option timestep="0.001"/>
  <worldbody>
    <geom name="box" type="box" size="0.05 0.05 0.05" pos="0 0 -0.05"/>
    <body name="rod" pos="0.06 0.078 0.06" zaxis="0 1 0">
      <freejoint/><geom name="rod" type="capsule" size="0.03 0.02" margin="0.01" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";

TEST_F(CapsuleBoxPoints, ACapsuleParallelToAnEdgeLandsOnTheCornerOnce) {
  // MuJoCo's capsule–box lists this corner twice (same place, same distance) and then once close
  // in: the rigid reference held two contacts for one corner and lost one (Go2 at 0.228 s: "active
  // contact body:FL_hip#2/body:FL_calf#3@1 has no contact point within the detection margin").
  // Its own points: the end sphere against the corner, one contact, touching when the end's centre
  // (0.06, 0.058, z) is radius + margin = 0.04 from the corner (0.05, 0.05, 0).
  ModelPtr m = LoadModelFromString(kCornerDrop);
  Model model(m.get());
  RigidSimulator sim(model);
  HybridState s = sim.Initialize(InitialState(m.get(), ""));
  const std::vector<RigidEvent> events = sim.Advance(s, 0.3);
  ASSERT_FALSE(events.empty());
  const double reach = kRadius + kMargin, z_touch = std::sqrt(reach * reach - 0.01 * 0.01 - 0.008 * 0.008);
  const double t_land = std::sqrt(2 * (0.06 - z_touch) / -m->opt.gravity[2]);
  EXPECT_EQ(events[0].kind, EventKind::kTouchdown);
  EXPECT_NEAR(events[0].time, t_land, 1e-12);
  ASSERT_EQ(events[0].mode_after.contacts.size(), 1u);
  // the point: midway between the corner and the end sphere, along the line from one to the other
  const Vec3 corner(0.05, 0.05, 0), outward = Vec3(0.01, 0.008, z_touch) / reach;
  EXPECT_LT((events[0].point - (corner + 0.5 * kMargin * outward)).norm(), 1e-12);
}

}  // namespace
}  // namespace saltation::testing
