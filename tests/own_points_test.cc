// Contact points of our own (own_points.h): a height field's (issue 17 item 4) — box vertices
// against the triangle under them, terrain peaks against a box face, a sphere's nearest points
// (two in a valley), against closed forms on height fields whose triangles are planes, and the
// rigid reference on a flat height field giving the same events as on a plane; a plane against a
// mesh (every hull vertex within the band): a puck mesh lands on every corner and comes to rest;
// a body of several geoms listed across the whole band (the body margins cover it).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "saltation/contacts.h"
#include "saltation/loading.h"
#include "saltation/rigid_simulator.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

class OwnPoints : public MujocoTest {};

// MuJoCo's detection band of the pair (margin + gap, both geoms) in the rigid model, whose gaps
// are widened by the detection margin
double Band(const Model& model) {
  const mjModel* m = model.mj();
  return m->geom_margin[0] + m->geom_margin[1] + m->geom_gap[0] + m->geom_gap[1];
}

// the point of `points` nearest to `pos`
const ContactPoint& Nearest(const std::vector<ContactPoint>& points, const Eigen::Vector3d& pos) {
  size_t best = 0;
  for (size_t i = 1; i < points.size(); i++) {
    if ((points[i].pos - pos).norm() < (points[best].pos - pos).norm()) best = i;
  }
  return points.at(best);
}

Eigen::VectorXd FreePose(double x, double y, double z, const Eigen::Quaterniond& q) {
  Eigen::VectorXd qpos(7);
  qpos << x, y, z, q.w(), q.x(), q.y(), q.z();
  return qpos;
}

// A ramp: elevation 0 at x = −1, 0.4 at x = 1 (two samples per row: one plane, slope k = 0.2).
// The box carries a 0.05 m margin: the pair's band.
const char* kRampBox = R"(
<mujoco>
  <asset><hfield name="ramp" nrow="2" ncol="2" size="1 1 0.4 0.1" elevation="0 1 0 1"/></asset>
  <worldbody>
    <geom name="ramp" type="hfield" hfield="ramp"/>
    <body name="box"><freejoint/><geom name="box" type="box" size="0.1 0.08 0.3" margin="0.05"/></body>
  </worldbody>
</mujoco>)";

TEST_F(OwnPoints, BoxVerticesOnARampMeasureAlongTheFaceNormal) {
  ModelPtr m = LoadModelFromString(kRampBox);
  Model model(m.get());
  const double k = 0.2, margin = 0.05, band = Band(model);
  ASSERT_GT(band, margin);
  const Eigen::Vector3d n = Eigen::Vector3d(-k, 0, 1).normalized();
  const Eigen::Quaterniond q(Eigen::AngleAxisd(0.3, Eigen::Vector3d(0.2, 1, 0.4).normalized()));
  const Eigen::Vector3d centre(0.1, -0.2, 0.52);
  const std::vector<ContactPoint> points = ListedPoints(model, FreePose(centre.x(), centre.y(), centre.z(), q));
  // the closed form: each vertex's distance to the plane z = k (x + 1)
  int expected = 0;
  for (int c = 0; c < 8; c++) {
    const Eigen::Vector3d corner((c & 1 ? 1 : -1) * 0.1, (c & 2 ? 1 : -1) * 0.08, (c & 4 ? 1 : -1) * 0.3);
    const Eigen::Vector3d v = centre + q * corner;
    const double dist = (v.z() - k * (v.x() + 1)) / std::sqrt(1 + k * k);
    if (dist >= band) continue;
    expected++;
    bool found = false;
    for (const ContactPoint& p : points) {
      if ((p.pos - (v - 0.5 * dist * n)).norm() > 1e-12) continue;
      found = true;
      EXPECT_NEAR(p.gap, dist - margin, 1e-12) << "corner " << c;
      EXPECT_LT((p.frame.row(0).transpose() - n).norm(), 1e-12) << "corner " << c;
    }
    EXPECT_TRUE(found) << "corner " << c << " at distance " << dist;
  }
  ASSERT_GE(expected, 2);  // the pose puts more than one corner within the band, not all
  ASSERT_LT(expected, 8);
  EXPECT_EQ(static_cast<int>(points.size()), expected);
}

// A pyramid: one sample raised to 0.3 m in the middle of a 3 × 3 grid (the others at 0).
const char* kPeakBox = R"(
<mujoco>
  <asset><hfield name="peak" nrow="3" ncol="3" size="1 1 0.3 0.1" elevation="0 0 0 0 1 0 0 0 0"/></asset>
  <worldbody>
    <geom name="peak" type="hfield" hfield="peak"/>
    <body name="box"><freejoint/><geom name="box" type="box" size="0.2 0.2 0.05" margin="0.05"/></body>
  </worldbody>
</mujoco>)";

TEST_F(OwnPoints, APeakUnderABoxFaceTouchesTheFace) {
  ModelPtr m = LoadModelFromString(kPeakBox);
  Model model(m.get());
  // level box, bottom face 0.02 m above the peak, the peak under the face (not under a corner):
  // MuJoCo's prisms would give the face's deepest point per prism; the rigid contact is the peak
  const double bottom = 0.3 + 0.02;
  const std::vector<ContactPoint> points = ListedPoints(model, FreePose(0.05, -0.03, bottom + 0.05, Eigen::Quaterniond::Identity()));
  // the peak's point (the others: the box's corners over the pyramid's faces, farther)
  const ContactPoint& peak = Nearest(points, Eigen::Vector3d(0, 0, 0.3 + 0.01));
  EXPECT_NEAR(peak.gap, 0.02 - 0.05, 1e-12);
  EXPECT_LT((peak.pos - Eigen::Vector3d(0, 0, 0.3 + 0.01)).norm(), 1e-12);
  EXPECT_LT((peak.frame.row(0).transpose() - Eigen::Vector3d::UnitZ()).norm(), 1e-12);
  for (const ContactPoint& p : points) {
    if (&p != &peak) EXPECT_GT(p.gap, peak.gap + 0.05) << "a corner above the pyramid's faces";
  }
  // tilted 0.2 rad about y over the peak: the distance along the face's normal
  const Eigen::Quaterniond q(Eigen::AngleAxisd(0.2, Eigen::Vector3d::UnitY()));
  const Eigen::Vector3d centre(0.02, 0.01, 0.37);
  const std::vector<ContactPoint> tilted_points = ListedPoints(model, FreePose(centre.x(), centre.y(), centre.z(), q));
  const Eigen::Vector3d face_normal = q * Eigen::Vector3d::UnitZ();  // from the peak towards the box: its +z
  const double dist = (Eigen::Vector3d(0, 0, 0.3) - centre).dot(-face_normal) - 0.05;
  const ContactPoint& tilted = Nearest(tilted_points, Eigen::Vector3d(0, 0, 0.3) + 0.5 * dist * face_normal);
  EXPECT_NEAR(tilted.gap, dist - 0.05, 1e-12);
  EXPECT_LT((tilted.pos - (Eigen::Vector3d(0, 0, 0.3) + 0.5 * dist * face_normal)).norm(), 1e-12);
  EXPECT_LT((tilted.frame.row(0).transpose() - face_normal).norm(), 1e-12);
}

// A V valley along y: z = 0.5 |x| (three samples per row).
const char* kValleyBall = R"(
<mujoco>
  <asset><hfield name="valley" nrow="2" ncol="3" size="1 1 0.5 0.1" elevation="1 0 1 1 0 1"/></asset>
  <worldbody>
    <geom name="valley" type="hfield" hfield="valley"/>
    <body name="ball"><freejoint/><geom name="ball" type="sphere" size="0.1" margin="0.05"/></body>
  </worldbody>
</mujoco>)";

TEST_F(OwnPoints, ABallInAValleyTouchesBothFaces) {
  ModelPtr m = LoadModelFromString(kValleyBall);
  Model model(m.get());
  const double s = 0.5, r = 0.1, margin = 0.05, x = 0.02, z = 0.14;
  const std::vector<ContactPoint> points = ListedPoints(model, FreePose(x, 0.1, z, Eigen::Quaterniond::Identity()));
  ASSERT_EQ(points.size(), 2u);
  // the faces z = ±s x: distances (z ∓ s x)/√(1 + s²) from the centre, normals (∓s, 0, 1)/√(1 + s²)
  for (const double side : {1.0, -1.0}) {
    const double dist = (z - side * s * x) / std::sqrt(1 + s * s) - r;
    const Eigen::Vector3d n = Eigen::Vector3d(-side * s, 0, 1).normalized();
    int found = 0;
    for (const ContactPoint& p : points) {
      if ((p.frame.row(0).transpose() - n).norm() > 1e-12) continue;
      found++;
      EXPECT_NEAR(p.gap, dist - margin, 1e-12) << "side " << side;
      const Eigen::Vector3d centre(x, 0.1, z);
      EXPECT_LT((p.pos - (centre - n * (r + 0.5 * dist))).norm(), 1e-12) << "side " << side;
    }
    EXPECT_EQ(found, 1) << "side " << side;
  }
  // high above the valley's floor the faces are beyond the band: no point
  EXPECT_TRUE(ListedPoints(model, FreePose(x, 0.1, 0.3 + Band(model) * 1.2 + r, Eigen::Quaterniond::Identity())).empty());
}

TEST_F(OwnPoints, ANonFinitePoseGivesNoPoints) {
  // the grid indices of a non-finite pose would be undefined (UBSan in scripts/sanitize): no points
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ModelPtr box_m = LoadModelFromString(kRampBox);
  Model box(box_m.get());
  EXPECT_TRUE(ListedPoints(box, FreePose(nan, 0, 0.3, Eigen::Quaterniond::Identity())).empty());
  ModelPtr ball_m = LoadModelFromString(kValleyBall);
  Model ball(ball_m.get());
  EXPECT_TRUE(ListedPoints(ball, FreePose(0, nan, 0.14, Eigen::Quaterniond::Identity())).empty());
}

// The same tilted box dropped on a plane and on a flat height field (both at z = 0).
std::string DropModel(const std::string& ground) {
  return R"(
<mujoco>
  <option timestep="0.001"/>
  <asset><hfield name="flat" nrow="16" ncol="16" size="1 1 0.1 0.05"/></asset>
  <worldbody>
    )" + ground + R"(
    <body name="box" pos="0.05 0.03 0.7" euler="10 20 5">
      <freejoint/><geom name="box" type="box" size="0.1 0.08 0.06" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";
}

TEST_F(OwnPoints, TheRigidReferenceOnAFlatHeightFieldIsTheOneOnAPlane) {
  // four corners land one after the other (0.349 s to 0.39 s), then the box rocks: 11 touchdowns
  // in 0.6 s on both (before the height field's own points the rigid model stopped at 0.378 s:
  // "contact terrain/box@2 appeared penetrating")
  ModelPtr plane_m = LoadModelFromString(DropModel(R"(<geom name="ground" type="plane" size="1 1 0.1"/>)"));
  ModelPtr field_m = LoadModelFromString(DropModel(R"(<geom name="ground" type="hfield" hfield="flat"/>)"));
  Model plane(plane_m.get()), field(field_m.get());
  RigidSimulator plane_sim(plane), field_sim(field);
  const State x0 = InitialState(plane_m.get(), "");
  HybridState a = plane_sim.Initialize(x0), b = field_sim.Initialize(x0);
  const std::vector<RigidEvent> ea = plane_sim.Advance(a, 0.6), eb = field_sim.Advance(b, 0.6);
  ASSERT_GE(ea.size(), 4u);
  ASSERT_EQ(ea.size(), eb.size());
  for (size_t i = 0; i < ea.size(); i++) {
    EXPECT_EQ(ea[i].kind, eb[i].kind) << i;
    EXPECT_EQ(ContactLabel(plane, ea[i].contact), ContactLabel(field, eb[i].contact)) << i;
    EXPECT_NEAR(ea[i].time, eb[i].time, 1e-12) << i;
    const Eigen::MatrixXd xa = ea[i].xi.Dense(), xb = eb[i].xi.Dense();
    EXPECT_LT((xa - xb).cwiseAbs().maxCoeff(), 1e-9 * std::max(1.0, xa.cwiseAbs().maxCoeff())) << i;
  }
  EXPECT_LT((a.x.qpos - b.x.qpos).cwiseAbs().maxCoeff(), 1e-12);
}

// Corner k of an octagonal puck (a prism, radius 0.12 m, height 0.1 m): the bottom ones first,
// to the 6 decimals the MJCF gets
Eigen::Vector3d PuckCorner(int k) {
  const double a = M_PI / 8 + (k % 8) * M_PI / 4;
  return {std::stod(std::to_string(0.12 * std::cos(a))), std::stod(std::to_string(0.12 * std::sin(a))), k < 8 ? -0.05 : 0.05};
}

// The puck as a mesh, tilted, dropped on a plane.
std::string PuckDrop() {
  std::string vertices;
  for (int k = 0; k < 16; k++) {
    const Eigen::Vector3d c = PuckCorner(k);
    vertices += std::to_string(c.x()) + " " + std::to_string(c.y()) + " " + std::to_string(c.z()) + "  ";
  }
  return R"(
<mujoco>
  <option timestep="0.001"/>
  <asset><mesh name="puck" vertex=")" + vertices + R"("/></asset>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="puck" pos="0.05 0.03 0.5" euler="10 20 5">
      <freejoint/><geom name="puck" type="mesh" mesh="puck" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";
}

TEST_F(OwnPoints, APuckMeshLandsOnAPlaneOnEveryCorner) {
  // MuJoCo lists a mesh's deepest hull vertex and at most three of its neighbours on the hull
  // graph: the rigid reference lost the puck's corners as it rocked onto them ("active contact
  // floor/puck@2 has no contact point within the detection margin" at 0.374 s). With every hull
  // vertex within the band it lands, rocks (48 touchdowns in 1 s) and comes to rest on its face.
  ModelPtr m = LoadModelFromString(PuckDrop());
  Model model(m.get());
  // the points: every hull vertex within the band, at its height (the mesh keeps its vertices in
  // single precision: 1e-8)
  const Eigen::Quaterniond q(Eigen::AngleAxisd(0.5, Eigen::Vector3d(1, 2, 0.5).normalized()));
  const double z0 = 0.07;
  const std::vector<ContactPoint> points = ListedPoints(model, FreePose(0, 0, z0, q));
  int within = 0;
  for (int k = 0; k < 16; k++) {
    const Eigen::Vector3d v = Eigen::Vector3d(0, 0, z0) + q * PuckCorner(k);
    if (v.z() >= Band(model)) continue;
    within++;
    const ContactPoint& p = Nearest(points, v - 0.5 * v.z() * Eigen::Vector3d::UnitZ());
    EXPECT_NEAR(p.gap, v.z(), 1e-8) << k;
    EXPECT_LT((p.pos - (v - 0.5 * v.z() * Eigen::Vector3d::UnitZ())).norm(), 1e-8) << k;
  }
  ASSERT_GE(within, 5);  // more than MuJoCo's four
  EXPECT_EQ(static_cast<int>(points.size()), within);

  RigidSimulator sim(model);
  HybridState s = sim.Initialize(InitialState(m.get(), ""));
  const std::vector<RigidEvent> events = sim.Advance(s, 1.0);
  EXPECT_GE(events.size(), 20u);
  // at rest on its face: the eight bottom corners held, the centre half the height up
  EXPECT_EQ(s.mode.contacts.size(), 8u);
  EXPECT_NEAR(s.x.qpos(2), 0.05, 1e-8);
  EXPECT_LT(s.x.qvel.norm(), 1e-9);
}

// A body of two boxes above the floor.
const char* kTwoBoxBody = R"(
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="limb"><freejoint/>
      <geom name="lower" type="box" size="0.05 0.05 0.05" mass="1"/>
      <geom name="upper" type="box" size="0.05 0.05 0.05" pos="0 0 0.2" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";

TEST_F(OwnPoints, ABodyOfSeveralGeomsIsListedAcrossTheBand) {
  // MuJoCo's midphase culls a body of several geoms against another by the body margins set at
  // compile time (0 here): the rigid model's band, widened on the geom gaps, was cut back to them
  // (Go2's calf box was listed only 1.2 mm from the floor, with a 4 cm band). The body margins now
  // cover the band: the lower box, level, half the band above the floor, lists its four vertices.
  ModelPtr m = LoadModelFromString(kTwoBoxBody);
  ASSERT_EQ(m->body_margin[1], 0);
  Model model(m.get());
  const double band = model.mj()->geom_margin[0] + model.mj()->geom_margin[1] + model.mj()->geom_gap[0] + model.mj()->geom_gap[1];
  ASSERT_GT(band, 0);
  const double s = 0.5 * band;
  const std::vector<ContactPoint> points = ListedPoints(model, FreePose(0, 0, 0.05 + s, Eigen::Quaterniond::Identity()));
  ASSERT_EQ(points.size(), 4u);
  for (const ContactPoint& p : points) {
    EXPECT_EQ(p.id.geom2, 1);
    EXPECT_NEAR(p.gap, s, 1e-15);
  }
}

}  // namespace
}  // namespace saltation::testing
