// The closed-form J̇ of a sphere's or a capsule end's contact on a plane (contact_jdot.h) against
// (1) the closed form of a capsule rocking on its cap through vertical, where MuJoCo's first
// tangent flips, and (2) its finite-difference twin, a five-point stencil of the world relative
// velocity, and ConstraintBias (which takes these rows from it), on a ball and a rod lying on a
// tilted table (MuJoCo allows planes only on static bodies), with penetration, slip and spin, the
// rod's axis near the table's normal (the frame flips) and away.
// (3) ConstraintBias per contact in a mode mixing it with a box's contact and a connect equality.
// (4) The mode vector field's Jacobian, which takes its J̇ from the closed form on these pairs,
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

// The frame-free twin on a static plane: the five-point stencil of the world relative velocity
// w(s) = J₂(c(s)) v at MuJoCo's point c(s) of q ⊕ s·v (geom1 on the world), projected on the
// centre's frame (the normal is constant). No contact frame enters but the centre's.
Eigen::VectorXd WorldStencil(const Model& model, Data& data, const State& x, const std::vector<ContactPoint>& centre) {
  const mjModel* m = model.mj();
  const double h = model.options().jdot_step;
  auto w = [&](double s) {
    Eigen::VectorXd q = x.qpos;
    mj_integratePos(m, q.data(), x.qvel.data(), s);
    EvaluatePosition(model, data.aux(), q.data());
    std::vector<ContactPoint> points;
    ListContacts(model, data.aux(), points);
    EXPECT_EQ(points.size(), centre.size()) << "s = " << s;
    Eigen::VectorXd out(3 * centre.size());
    RowMatrix jac(3, m->nv);
    for (size_t k = 0; k < centre.size(); k++) {
      // the point of the same pair nearest the centre's
      int best = -1;
      for (size_t j = 0; j < points.size(); j++) {
        if (points[j].id.geom2 != centre[k].id.geom2) continue;
        if (best < 0 || (points[j].pos - centre[k].pos).norm() < (points[best].pos - centre[k].pos).norm()) best = j;
      }
      mj_jac(m, data.aux(), jac.data(), nullptr, points.at(best).pos.data(), m->geom_bodyid[centre[k].id.geom2]);
      out.segment(3 * k, 3) = jac * x.qvel;
    }
    return out;
  };
  const Eigen::VectorXd wdot = (w(-2 * h) - 8 * w(-h) + 8 * w(h) - w(2 * h)) / (12 * h);
  Eigen::VectorXd bias(3 * centre.size());
  for (size_t k = 0; k < centre.size(); k++) bias.segment(3 * k, 3) = centre[k].frame * wdot.segment(3 * k, 3);
  return bias;
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
  EXPECT_LT(worst, 1e-15);  // measured 1.6e-16
}

constexpr double kTilt = 0.25;

const char* kTable = R"(
<mujoco>
  <compiler angle="radian"/>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="table" type="plane" size="2 2 0.1" axisangle="1 0.4 0 0.25" condim="3"/>
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

// the ball resting on the table, the rod's axis at `lean` from the table's normal about the
// table's x, its lower end on the table; both `depth` into it; velocities random
State OnTable(const mjModel* m, double lean, double depth, std::mt19937& rng) {
  State x;
  x.qpos.resize(m->nq);
  x.qvel.resize(m->nv);
  x.act.resize(0);
  const Eigen::Quaterniond table(Eigen::AngleAxisd(kTilt, Eigen::Vector3d(1, 0.4, 0).normalized()));
  const Eigen::Quaterniond rod = table * Eigen::Quaterniond(Eigen::AngleAxisd(lean, Eigen::Vector3d::UnitX()));
  const Eigen::Vector3d n = table * Eigen::Vector3d::UnitZ();
  const Eigen::Vector3d ball = table * Eigen::Vector3d(0.3, -0.2, 0) + n * (0.06 - depth);
  const Eigen::Vector3d end = table * Eigen::Vector3d(-0.25, 0.3, 0) + n * (0.035 - depth);
  const Eigen::Vector3d rod_centre = end + rod * Eigen::Vector3d(0, 0, 0.22);
  x.qpos << ball, 1, 0, 0, 0, rod_centre, rod.w(), rod.x(), rod.y(), rod.z();
  std::uniform_real_distribution<double> u(-1, 1);
  for (int i = 0; i < m->nv; i++) x.qvel(i) = 2 * u(rng);
  return x;
}

TEST_F(ContactJdotTest, BallAndRodOnATiltingTableMatchTheStencil) {
  ModelPtr m = LoadModelFromString(kTable);
  Model model(m.get());
  Data data(model);
  std::mt19937 rng(7);
  double worst = 0, worst_bias = 0;
  int cases = 0;
  for (int repeat = 0; repeat < 3; repeat++) {
    for (double lean : {-2e-4, 0.0, 3e-5, 0.6, 1.5707963267948966}) {
      for (double depth : {-1e-12, 1e-3}) {
        const State x = OnTable(m.get(), lean, depth, rng);
        const std::vector<ContactPoint> points = PointsAt(model, data.main(), x);
        ASSERT_GE(points.size(), 2u) << "lean " << lean;
        const Eigen::VectorXd closed = ClosedFormBias(model, data.main(), points, x.qvel);
        const Eigen::VectorXd twin = WorldStencil(model, data, x, points);
        // ConstraintBias takes these pairs' rows from the closed form (no stencil)
        const Eigen::VectorXd bias = ConstraintBias(model, data, x, Ids(points));
        const double scale = twin.cwiseAbs().maxCoeff();
        worst = std::max(worst, (closed - twin).cwiseAbs().maxCoeff() / scale);
        worst_bias = std::max(worst_bias, (bias - twin).cwiseAbs().maxCoeff() / scale);
        cases++;
      }
    }
  }
  std::printf("[ closed-form J̇ ] ball and rod on a tilted table, %d states: ContactJdot %.1e, ConstraintBias %.1e "
              "relative to the world-velocity stencil\n",
              cases, worst, worst_bias);
  EXPECT_LT(worst, 1e-11);       // measured 3.8e-12 (round-off of the stencil's 1/h)
  EXPECT_LT(worst_bias, 1e-11);  // measured 3.8e-12; with the five-point stencil it was 5.2e-8 within
                                 // 1e-3 rad of the normal (frames built from the axis' tiny projection)
}

// Per contact: in one mode, a ball on the floor (closed form), a box on the floor (stencil) and a
// connect equality (stencil, its translational rows by mj_jacDot) each keep the bias they have
// alone: the closed-form rows are ContactJdot's, the others ConstraintBias's without the ball.
const char* kMixed = R"(
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1" condim="3"/>
    <body name="ball" pos="0 0 0.05">
      <freejoint/>
      <geom name="ball" type="sphere" size="0.05" mass="0.5" condim="3"/>
    </body>
    <body name="box" pos="0.5 0 0.1">
      <freejoint/>
      <geom name="box" type="box" size="0.1 0.1 0.1" mass="1" condim="3"/>
      <body name="arm" pos="0 0 0.3">
        <joint name="swing" type="hinge" axis="0 1 0"/>
        <geom name="arm" type="capsule" fromto="0 0 0 0.2 0 0" size="0.02" mass="0.2" contype="0" conaffinity="0"/>
      </body>
    </body>
    <body name="bob" pos="0.7 0 0.4">
      <freejoint/>
      <geom name="bob" type="sphere" size="0.03" mass="0.1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <equality>
    <connect body1="arm" body2="bob" anchor="0.2 0 0"/>
  </equality>
</mujoco>)";

TEST_F(ContactJdotTest, MixedModeTakesTheClosedFormPerContact) {
  ModelPtr m = LoadModelFromString(kMixed);
  Model model(m.get());
  Data data(model);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  State x;
  x.qpos = Eigen::Map<const Eigen::VectorXd>(m->qpos0, m->nq);
  x.qpos(2) = 0.05 - 1e-4;  // the ball and the box just into the floor
  x.qpos(9) = 0.1 - 1e-4;
  x.qvel.resize(m->nv);
  for (int i = 0; i < m->nv; i++) x.qvel(i) = u(rng);
  x.act.resize(0);
  const std::vector<ContactPoint> points = PointsAt(model, data.main(), x);
  std::vector<ContactPoint> ball, box;
  for (const ContactPoint& p : points) (m->geom_type[p.id.geom2] == mjGEOM_SPHERE ? ball : box).push_back(p);
  ASSERT_EQ(ball.size(), 1u);
  ASSERT_GE(box.size(), 1u);
  const Eigen::VectorXd closed = ClosedFormBias(model, data.main(), ball, x.qvel);
  const Eigen::VectorXd without_ball = ConstraintBias(model, data, x, Ids(box));
  std::vector<ContactPoint> all = ball;
  all.insert(all.end(), box.begin(), box.end());
  const Eigen::VectorXd bias = ConstraintBias(model, data, x, Ids(all));
  ASSERT_EQ(bias.size(), closed.size() + without_ball.size());
  const double scale = bias.cwiseAbs().maxCoeff();
  const double err_ball = (bias.head(closed.size()) - closed).cwiseAbs().maxCoeff() / scale;
  const double err_rest = (bias.tail(without_ball.size()) - without_ball).cwiseAbs().maxCoeff() / scale;
  std::printf("[ closed-form J̇ ] mixed mode (%zu box points, connect): ball rows %.1e, others %.1e\n", box.size(),
              err_ball, err_rest);
  EXPECT_GT(without_ball.tail(3).cwiseAbs().maxCoeff(), 1e-3) << "the connect's bias must not be trivially zero";
  EXPECT_LT(err_ball, 1e-15);
  EXPECT_LT(err_rest, 1e-15);
}

TEST_F(ContactJdotTest, VectorFieldJacobianOnTheTableMatchesItsTwin) {
  ModelPtr m = LoadModelFromString(kTable);
  Model model(m.get());
  Data data(model);
  std::mt19937 rng(11);
  for (double lean : {0.6, 1.5707963267948966}) {
    const State x = OnTable(m.get(), lean, 1e-3, rng);
    const std::vector<ContactPoint> points = PointsAt(model, data.main(), x);
    Mode mode;
    mode.contacts = Ids(points);
    const Eigen::MatrixXd fast = ModeVectorFieldJacobian(model, data, x, mode, 1e-6);
    const Eigen::MatrixXd twin = ModeVectorFieldJacobianFD(model, data, x, mode, 1e-6);
    const double err = RelativeError(fast, twin);
    std::printf("[ closed-form J̇ ] ∂F/∂x on the table, lean %.1f, %zu contacts: %.1e against the twin\n", lean,
                points.size(), err);
    EXPECT_LT(err, 5e-6);  // measured 4.2e-6 and 3.3e-6, the same as with the stencil's J̇: O(ε) of forward differences
  }
}

}  // namespace
}  // namespace saltation::testing
