// The closed-form J̇ of a sphere's or a capsule end's contact on a plane (contact_jdot.h) against
// (1) the closed form of a capsule rocking on its cap through vertical, where MuJoCo's first
// tangent flips, and (2) its finite-difference twin, the five-point stencil ConstraintBias, on a
// ball and a rod lying on a tilting table (a plane on a hinged body: the normal turns), with
// penetration, slip and spin, the rod's axis near the table's normal (the frame flips) and away.
// (3) The mode vector field's Jacobian, which takes its J̇ from the closed form on these pairs,
// against its central-difference twin on the table.
#include <cmath>
#include <cstdio>
#include <random>

#include "contact_jdot.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

// J̇v of every contact of d (position stage and mj_comVel at x.qvel), rows stacked in list order
Eigen::VectorXd ClosedFormBias(const Model& model, mjData* d, const std::vector<ContactPoint>& points,
                               const Eigen::VectorXd& qvel) {
  int nrow = 0;
  for (const ContactPoint& p : points) nrow += ContactRowCount(p);
  RowMatrix jdot(nrow, model.nv());
  int r = 0;
  for (const ContactPoint& p : points) {
    EXPECT_TRUE(HasContactJdot(model.mj(), p.id));
    EXPECT_TRUE(ContactJdot(model.mj(), d, p, qvel.data(), jdot.middleRows(r, ContactRowCount(p))));
    r += ContactRowCount(p);
  }
  return jdot * qvel;
}

std::vector<ContactPoint> PointsAt(const Model& model, mjData* d, const State& x) {
  EvaluatePosition(model, d, x.qpos.data());
  mju_copy(d->qvel, x.qvel.data(), model.nv());
  mj_comVel(model.mj(), d);
  std::vector<ContactPoint> points;
  ListContacts(model, d, points);
  return points;
}

std::vector<ContactId> Ids(const std::vector<ContactPoint>& points) {
  std::vector<ContactId> ids;
  for (const ContactPoint& p : points) ids.push_back(p.id);
  return ids;
}

constexpr double kHalf = 0.3, kRadius = 0.04;

const char* kRocker = R"(
<mujoco>
  <worldbody>
    <geom name="ground" type="plane" size="2 2 0.1" condim="3"/>
    <body name="rocker">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <joint name="pitch" type="hinge" axis="0 1 0"/>
      <geom name="rocker" type="capsule" fromto="0 0 -0.3 0 0 0.3" size="0.04" mass="0.7" condim="3"/>
    </body>
  </worldbody>
</mujoco>)";

class ContactJdotTest : public MujocoTest {};

// The cap's centre c turns about the body origin o: the relative velocity of the touching point
// changes at ω × (ω × (c − o)) = ω² L (sin θ, 0, cos θ) whatever the slip (contact_frame_test.cc).
TEST_F(ContactJdotTest, RockingCapsuleMatchesTheClosedFormThroughVertical) {
  ModelPtr m = LoadModelFromString(kRocker);
  Model model(m.get());
  Data data(model);
  const double omega = -3;
  double worst = 0;
  int flips = 0;
  Eigen::Vector3d first_tangent = Eigen::Vector3d::Zero();
  for (double theta : {-0.4, -3e-4, -1e-5, 0.0, 1e-5, 3e-4, 0.4}) {
    for (double slip : {0.0, -0.5}) {
      State x;
      x.qpos = Eigen::Vector3d(0.1, kRadius + kHalf * std::cos(theta), theta);
      x.qvel = Eigen::Vector3d(slip + omega * (kHalf * std::cos(theta) + kRadius), -omega * kHalf * std::sin(theta), omega);
      x.act.resize(0);
      const std::vector<ContactPoint> points = PointsAt(model, data.main(), x);
      ASSERT_EQ(points.size(), 1u) << "θ = " << theta;
      if (first_tangent.dot(points[0].frame.row(1)) < 0) flips++;
      first_tangent = points[0].frame.row(1);
      const Eigen::Vector3d world = omega * omega * kHalf * Eigen::Vector3d(std::sin(theta), 0, std::cos(theta));
      const Eigen::VectorXd expected = points[0].frame * world;
      const Eigen::VectorXd bias = ClosedFormBias(model, data.main(), points, x.qvel);
      const double err = (bias - expected).cwiseAbs().maxCoeff() / world.norm();
      worst = std::max(worst, err);
    }
  }
  std::printf("[ closed-form J̇ ] rocking capsule through vertical: %.1e relative to ω²L, %d tangent flips\n",
              worst, flips);
  EXPECT_GT(flips, 0) << "the states must straddle MuJoCo's tangent flip";
  EXPECT_LT(worst, 1e-14);
}

const char* kTable = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <body name="table">
      <joint name="tilt" type="hinge" axis="1 0.4 0" damping="0.1"/>
      <inertial pos="0 0 -0.05" mass="3" diaginertia="0.2 0.3 0.4"/>
      <geom name="top" type="plane" size="2 2 0.1" condim="3"/>
    </body>
    <body name="ball">
      <freejoint/>
      <geom name="ball" type="sphere" size="0.06" mass="0.5" condim="3"/>
    </body>
    <body name="rod">
      <freejoint/>
      <geom name="rod" type="capsule" fromto="0 0 -0.22 0 0 0.22" size="0.035" mass="0.4" condim="3"/>
    </body>
  </worldbody>
</mujoco>)";

// the table tilted by `tilt`, the ball resting on it at `ball_at` (table coordinates), the rod's
// axis at `lean` from the table's normal about the table's x, its lower end on the table at
// `rod_at`; both `depth` into it; velocities random
State OnTable(const mjModel* m, double tilt, double lean, double depth, std::mt19937& rng) {
  State x;
  x.qpos.resize(m->nq);
  x.qvel.resize(m->nv);
  x.act.resize(0);
  Eigen::Vector3d axis(1, 0.4, 0);
  axis.normalize();
  const Eigen::Quaterniond table(Eigen::AngleAxisd(tilt, axis));
  const Eigen::Quaterniond rod = table * Eigen::Quaterniond(Eigen::AngleAxisd(lean, Eigen::Vector3d::UnitX()));
  const Eigen::Vector3d n = table * Eigen::Vector3d::UnitZ();
  const Eigen::Vector3d ball = table * Eigen::Vector3d(0.3, -0.2, 0) + n * (0.06 - depth);
  const Eigen::Vector3d end = table * Eigen::Vector3d(-0.25, 0.3, 0) + n * (0.035 - depth);
  const Eigen::Vector3d rod_centre = end + rod * Eigen::Vector3d(0, 0, 0.22);
  x.qpos << tilt, ball, 1, 0, 0, 0, rod_centre, rod.w(), rod.x(), rod.y(), rod.z();
  std::uniform_real_distribution<double> u(-1, 1);
  for (int i = 0; i < m->nv; i++) x.qvel(i) = 2 * u(rng);
  return x;
}

TEST_F(ContactJdotTest, BallAndRodOnATiltingTableMatchTheStencil) {
  ModelPtr m = LoadModelFromString(kTable);
  Model model(m.get());
  Data data(model);
  std::mt19937 rng(7);
  double worst = 0;
  int cases = 0;
  for (double tilt : {0.0, 0.25}) {
    for (double lean : {-2e-4, 0.0, 3e-5, 0.6}) {
      for (double depth : {0.0, 1e-3}) {
        const State x = OnTable(m.get(), tilt, lean, depth, rng);
        const std::vector<ContactPoint> points = PointsAt(model, data.main(), x);
        ASSERT_GE(points.size(), 2u) << "tilt " << tilt << " lean " << lean;
        const Eigen::VectorXd closed = ClosedFormBias(model, data.main(), points, x.qvel);
        const Eigen::VectorXd stencil = ConstraintBias(model, data, x, Ids(points));
        const double err = (closed - stencil).cwiseAbs().maxCoeff() / stencil.cwiseAbs().maxCoeff();
        worst = std::max(worst, err);
        cases++;
      }
    }
  }
  std::printf("[ closed-form J̇ ] ball and rod on a tilting table, %d states: %.1e relative to the stencil\n", cases,
              worst);
  EXPECT_LT(worst, 1e-9);
}

TEST_F(ContactJdotTest, VectorFieldJacobianOnTheTableMatchesItsTwin) {
  ModelPtr m = LoadModelFromString(kTable);
  Model model(m.get());
  Data data(model);
  std::mt19937 rng(11);
  for (double lean : {0.0, 0.6}) {
    const State x = OnTable(m.get(), 0.25, lean, 1e-3, rng);
    const std::vector<ContactPoint> points = PointsAt(model, data.main(), x);
    Mode mode;
    mode.contacts = Ids(points);
    const Eigen::MatrixXd fast = ModeVectorFieldJacobian(model, data, x, mode, 1e-6);
    const Eigen::MatrixXd twin = ModeVectorFieldJacobianFD(model, data, x, mode, 1e-6);
    const double err = RelativeError(fast, twin);
    std::printf("[ closed-form J̇ ] ∂F/∂x on the table, lean %.1f, %zu contacts: %.1e against the twin\n", lean,
                points.size(), err);
    EXPECT_LT(err, 2e-6);
  }
}

}  // namespace
}  // namespace saltation::testing
