// Contact points of our own for a box against a box (own_points.h, box_box_points.cc): closed
// forms — a box lying flat on a box's face, overhanging two rims (the four corners of the support:
// its vertex, the other's vertex, two edge crossings), the same tilted by 1e-9…1e-3 rad (still four,
// where MuJoCo's box–box switches to one point), an edge across an edge — on a base turned and moved
// in the world; then the exact rigid reference on a cube dropped edge-first across a cube's edge
// (touchdown at √(2H/g), v⁺ = −e v⁻ and Ξ's vertical block as a bouncing point's, theory.md §9) and
// on a box landing flat on a box that bounced off the floor (the pile's first box-on-box landing,
// which stopped with "has no contact point within the detection margin"): it runs through and
// both end stacked.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "saltation/contacts.h"
#include "saltation/loading.h"
#include "saltation/rigid_simulator.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

class BoxBoxPoints : public MujocoTest {};

using Vec3 = Eigen::Vector3d;

// A base box (half sizes 0.2 0.15 0.1) turned and moved in the world, and a free box on it (half
// sizes 0.1 0.08 0.05).
const char* kBaseAndTop = R"(
<mujoco>
  <worldbody>
    <geom name="base" type="box" size="0.2 0.15 0.1" pos="0.3 -0.2 0.05" euler="20 -10 35"/>
    <body name="top"><freejoint/><geom name="top" type="box" size="0.1 0.08 0.05" mass="1"/></body>
  </worldbody>
</mujoco>)";

// The top box's centre and rotation in the base's frame => the box–box points ListContacts gives
// (and how many MuJoCo's own box–box gave, into `mujoco`)
std::vector<ContactPoint> PointsAt(const Model& model, const GeomPose& base, const Vec3& centre,
                                   const Eigen::Matrix3d& turn, int* mujoco = nullptr) {
  const Vec3 x = base.World(centre);
  const Eigen::Quaterniond q(base.R * turn);
  Eigen::VectorXd qpos(7);
  qpos << x.x(), x.y(), x.z(), q.w(), q.x(), q.y(), q.z();
  Data data(model);
  EvaluatePosition(model, data.main(), qpos.data());
  if (mujoco) *mujoco = data.main()->ncon;
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  return points;
}

// A point at `local` (base frame), signed distance `dist`, along the base's +z (geom1 → geom2 when
// the base is geom1) is among `points`, to `tol`.
void ExpectPoint(const Model& model, const std::vector<ContactPoint>& points, const GeomPose& base, const Vec3& local,
                 double dist, double tol, const char* what) {
  const int g_base = mj_name2id(model.mj(), mjOBJ_GEOM, "base");
  int found = 0;
  for (const ContactPoint& p : points) {
    if ((p.pos - base.World(local)).norm() > tol) continue;
    found++;
    EXPECT_NEAR(p.gap, dist, tol) << what;
    const Vec3 normal = (p.id.geom1 == g_base ? 1.0 : -1.0) * base.R.col(2);
    EXPECT_LT((p.frame.row(0).transpose() - normal).norm(), tol) << what;
  }
  EXPECT_EQ(found, 1) << what << ": a point at " << local.transpose() << " (base frame)";
}

TEST_F(BoxBoxPoints, FlatOnAFaceGivesTheFourCornersOfTheSupport) {
  // the top box 4 mm above the base's top face, overhanging its +x and +y rims: the overlap
  // [0.05, 0.2] × [0.02, 0.15] has the top's vertex (0.05, 0.02), the base's (0.2, 0.15), and where
  // the top's bottom edges cross the base's rims, (0.2, 0.02) and (0.05, 0.15)
  ModelPtr m = LoadModelFromString(kBaseAndTop);
  Model model(m.get());
  const GeomPose base = GeomPoseAtRest(model, "base");
  const double g = 0.004;
  const std::vector<ContactPoint> points =
      PointsAt(model, base, Vec3(0.15, 0.1, 0.1 + g + 0.05), Eigen::Matrix3d::Identity());
  const double z = 0.1 + 0.5 * g;
  ExpectPoint(model, points, base, Vec3(0.05, 0.02, z), g, 1e-15, "the top's vertex");
  ExpectPoint(model, points, base, Vec3(0.2, 0.15, z), g, 1e-15, "the base's vertex");
  ExpectPoint(model, points, base, Vec3(0.2, 0.02, z), g, 1e-15, "the top's x edge over the +x rim");
  ExpectPoint(model, points, base, Vec3(0.05, 0.15, z), g, 1e-15, "the top's y edge over the +y rim");
  EXPECT_EQ(points.size(), 4u);
}

TEST_F(BoxBoxPoints, NearlyFlatKeepsFourCornersWhereMuJoCoFlickers) {
  // the same support tilted by θ about axes in the face, its lowest point within 1e-6 m of the
  // face either way: always the four corners, each at the height of the top's surface there
  // (to θ² · size); MuJoCo's own box–box gives one point (an edge–edge axis) in some of these
  ModelPtr m = LoadModelFromString(kBaseAndTop);
  Model model(m.get());
  const GeomPose base = GeomPoseAtRest(model, "base");
  int samples = 0, mujoco_not_four = 0;
  for (const double theta : {1e-9, 1e-6, 1e-3}) {
    for (const double phi : {0.3, 1.9, 3.7, 5.1}) {
      for (const double lift : {-1e-6, -1e-9, 0.0, 1e-9, 1e-6}) {
        const Vec3 axis(std::cos(phi), std::sin(phi), 0);
        const Eigen::Matrix3d turn = Eigen::AngleAxisd(theta, axis).toRotationMatrix();
        const Vec3 centre(0.15, 0.1, 0.15 + lift);
        int mujoco = 0;
        const std::vector<ContactPoint> points = PointsAt(model, base, centre, turn, &mujoco);
        samples++;
        mujoco_not_four += mujoco != 4;
        // the four corners within 1 mm (a vertex over a side face, 3 cm away across it, joins
        // them where the top sinks below the base's top plane)
        std::vector<ContactPoint> corners;
        for (const ContactPoint& p : points) {
          if (p.gap < 1e-3) corners.push_back(p);
        }
        ASSERT_EQ(corners.size(), 4u) << "θ " << theta << " φ " << phi << " lift " << lift;
        // each point's distance is the top's bottom face's height over the base's face there
        const Vec3 bottom_normal = turn.col(2);
        for (const ContactPoint& p : corners) {
          const Vec3 local = base.R.transpose() * (p.pos - base.x);
          const Vec3 on_bottom(local.x(), local.y(), 0.1);  // the base's face below the point
          // the plane of the top's bottom face: points y with n·(y − (centre − 0.05 n)) = 0
          const Vec3 bottom = centre - 0.05 * bottom_normal;
          const double height = bottom_normal.dot(bottom - on_bottom) / bottom_normal.z();
          EXPECT_NEAR(p.gap, height, 1e-12 + 0.2 * theta * theta) << "θ " << theta << " φ " << phi;
        }
      }
    }
  }
  // the reason for our own points: MuJoCo's count changes within these samples
  EXPECT_GT(mujoco_not_four, 0) << "of " << samples;
}

TEST_F(BoxBoxPoints, NoPointIsCloserThanTheBoxes) {
  // random poses of two boxes within 0.1 m of each other: no listed point's distance is below the
  // pair's (mj_geomDistance), the property the edge–edge normal's cone tolerance and the face-axis
  // bound keep (in a Python replica's fuzzing, with n allowed 0.5 into a face 69 of 11829 such pairs
  // had a point up to 0.25 m below it; with neither, 244 of 7980)
  ModelPtr m = LoadModelFromString(R"(
<mujoco>
  <worldbody>
    <body name="a"><freejoint/><geom type="box" size="0.1 0.07 0.05"/></body>
    <body name="b"><freejoint/><geom type="box" size="0.2 0.15 0.1"/></body>
  </worldbody>
</mujoco>)");
  Model model(m.get());
  Data data(model);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> where(-0.35, 0.35);
  std::normal_distribution<double> normal;
  auto quaternion = [&] { return Eigen::Quaterniond(normal(rng), normal(rng), normal(rng), normal(rng)).normalized(); };
  int checked = 0;
  std::vector<ContactPoint> points;
  for (int sample = 0; sample < 6000; sample++) {
    const Eigen::Quaterniond qa = quaternion(), qb = quaternion();
    Eigen::VectorXd qpos(14);
    qpos << where(rng), where(rng), where(rng), qa.w(), qa.x(), qa.y(), qa.z(), 0, 0, 0, qb.w(), qb.x(), qb.y(), qb.z();
    EvaluatePosition(model, data.main(), qpos.data());
    mjtNum fromto[6];
    const double distance = mj_geomDistance(m.get(), data.main(), 0, 1, 0.2, fromto);
    if (!(distance > 0 && distance < 0.1)) continue;
    ListContacts(model, data.main(), points);
    for (const ContactPoint& p : points) EXPECT_GE(p.gap, distance - 1e-9) << "sample " << sample;
    checked += !points.empty();
  }
  EXPECT_GT(checked, 400);  // the samples whose pair MuJoCo's band has (549)
}

// A cube (half 0.1) turned 45° about y, its top an edge along y at z = 0.1√2, and a free cube (half
// 0.05) turned 45° about x above it, its bottom an edge along x at z = 0.3 − 0.05√2.
const char* kEdgeOnEdge = R"(
<mujoco>
  <option timestep="0.001"/>
  <custom><numeric name="saltation_restitution" data="0.5"/></custom>
  <worldbody>
    <geom name="base" type="box" size="0.1 0.1 0.1" euler="0 45 0"/>
    <body name="top" pos="0 0 0.3" euler="45 0 0"><freejoint/>
      <geom name="top" type="box" size="0.05 0.05 0.05" mass="1"/></body>
  </worldbody>
</mujoco>)";

TEST_F(BoxBoxPoints, AnEdgeAcrossAnEdgeIsOnePointAtTheEdgesDistance) {
  ModelPtr m = LoadModelFromString(kEdgeOnEdge);
  Model model(m.get());
  Data data(model);
  // 4 mm above the touching height, moved 1 cm along each edge (along x for the top's, y the base's)
  const double g = 0.004;
  Eigen::VectorXd qpos = Eigen::Map<const Eigen::VectorXd>(m->qpos0, m->nq);
  qpos(0) = 0.01, qpos(1) = -0.01, qpos(2) = 0.15 * std::sqrt(2.0) + g;
  EvaluatePosition(model, data.main(), qpos.data());
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  ASSERT_EQ(points.size(), 1u);
  // where the edges cross: x = 0 on the base's (along y), y = −0.01 on the top's (along x)
  EXPECT_LT((points[0].pos - Vec3(0, -0.01, 0.1 * std::sqrt(2.0) + 0.5 * g)).norm(), 1e-15);
  EXPECT_NEAR(points[0].gap, g, 1e-15);
  const double up = points[0].id.geom1 == mj_name2id(m.get(), mjOBJ_GEOM, "base") ? 1 : -1;
  EXPECT_LT((points[0].frame.row(0).transpose() - up * Vec3::UnitZ()).norm(), 1e-15);
}

TEST_F(BoxBoxPoints, ACubeDroppedEdgeFirstAcrossAnEdgeBouncesAsAPoint) {
  // H = 0.3 − 0.15√2 to the touch, at √(2H/g); the point right below the centre of mass, so the
  // impulse turns nothing: v⁺ = −e v⁻, and the vertical block of Ξ (z, v_z) is a bouncing point's,
  // [[−e, 0], [(1 + e) G / |v⁻|, −e]] (theory.md §9, item 2). The lowest edge is a minimum of the
  // height over the roll and the crossing stays put under pitch and yaw, so ∇g = e_z.
  ModelPtr m = LoadModelFromString(kEdgeOnEdge);
  Model model(m.get());
  RigidSimulator sim(model);
  HybridState s = sim.Initialize(InitialState(m.get(), ""));
  const std::vector<RigidEvent> events = sim.Advance(s, 0.2);
  ASSERT_EQ(events.size(), 1u);
  const RigidEvent& ev = events[0];
  const double G = -m->opt.gravity[2], e = 0.5, H = 0.3 - 0.15 * std::sqrt(2.0);
  ExpectPointBounce(ev, m->nv, H, G, e, Vec3(0, 0, 0.1 * std::sqrt(2.0)));
}

// The pile's first box-on-box landing (bench_families.h, Pile: b0 and b4 of 16 boxes): a box bounces
// off the floor (restitution 0.3) and a second, turned the same, offset by a few cm, lands flat on it.
const char* kTwoBoxes = R"(
<mujoco>
  <option timestep="0.002"/>
  <custom><numeric name="saltation_restitution" data="0.3"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="10 10 0.1"/>
    <body name="lower" pos="0 0 0.2"><freejoint/><geom name="lower" type="box" size="0.07 0.07 0.07" euler="0 0 20" mass="1"/></body>
    <body name="upper" pos="0.0414 0.0342 0.5"><freejoint/><geom name="upper" type="box" size="0.07 0.07 0.07" euler="0 0 20" mass="1"/></body>
  </worldbody>
</mujoco>)";

TEST_F(BoxBoxPoints, ABoxLandingFlatOnABoxRunsThroughAndEndsStacked) {
  ModelPtr m = LoadModelFromString(kTwoBoxes);
  Model model(m.get());
  RigidSimulator sim(model);
  HybridState s = sim.Initialize(InitialState(m.get(), ""));
  const int lower = mj_name2id(m.get(), mjOBJ_GEOM, "lower"), upper = mj_name2id(m.get(), mjOBJ_GEOM, "upper");
  std::vector<RigidEvent> events;
  RunRigid(sim, s, 2.0, [&](const RigidEvent& ev) { events.push_back(ev); });
  int box_on_box = 0;
  for (const RigidEvent& ev : events) {
    if (ev.kind == EventKind::kTouchdown && ev.contact.geom1 + ev.contact.geom2 == lower + upper) box_on_box++;
  }
  EXPECT_GT(box_on_box, 0);
  // stacked: the lower box on the floor, the upper on it, flat (4 + 4 contacts), still vertically
  // (a contact that touched sliding slips without friction, README: the boxes may glide on)
  EXPECT_NEAR(s.x.time, 2.0, 1e-12);
  EXPECT_EQ(s.mode.contacts.size(), 8u);
  EXPECT_NEAR(s.x.qpos(2), 0.07, 1e-12);
  EXPECT_NEAR(s.x.qpos(9), 0.21, 1e-12);
  EXPECT_LT(std::abs(s.x.qvel(2)) + std::abs(s.x.qvel(8)), 1e-13);  // 3.8e-15
}

}  // namespace
}  // namespace saltation::testing
