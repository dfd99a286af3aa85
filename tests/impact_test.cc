// Impact resets: closed forms (theory.md §9 item 1), the projection's properties on an
// articulated robot, DΔ against its finite-difference twin, rank-deficient multi-contact impacts.
#include <random>

#include "test_models.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

State ZeroState(const mjModel* m) {
  State x;
  x.qpos = Eigen::Map<const Eigen::VectorXd>(m->qpos0, m->nq);
  x.qvel = Eigen::VectorXd::Zero(m->nv);
  x.act = Eigen::VectorXd::Zero(m->na);
  return x;
}

// the first event of a run from x, or a test failure
RigidEvent FirstEvent(RigidSimulator& sim, const State& x, double t_end) {
  HybridState s = sim.Initialize(x);
  std::vector<RigidEvent> events = sim.Advance(s, t_end, 1);
  if (events.empty()) {
    ADD_FAILURE() << "no event before t = " << t_end;
    return {};
  }
  return events.front();
}

class Impact : public MujocoTest {};

TEST_F(Impact, TwoBlockPlasticCollisionMatchesClosedForm) {
  ModelPtr m = LoadModelFromString(kTwoBlocks);
  Model model(m.get());
  RigidSimulator sim(model);
  State x = ZeroState(m.get());
  x.qvel << 1, 0;
  const RigidEvent ev = FirstEvent(sim, x, 1.0);
  ASSERT_EQ(ev.kind, EventKind::kTouchdown);
  EXPECT_NEAR(ev.time, 0.3, 1e-12);  // gap 0.5 − 0.2 closed at 1 m/s

  const Eigen::MatrixXd P = PlasticProjection(model, sim.data(), ev.x_minus.qpos, {ev.contact});
  Eigen::MatrixXd P_expected(2, 2);
  P_expected << 2.0 / 3, -1.0 / 3, -2.0 / 3, 1.0 / 3;
  EXPECT_LT((P - P_expected).cwiseAbs().maxCoeff(), 1e-12) << CompareReport(P, P_expected, "P", "closed form");

  EXPECT_NEAR(ev.x_plus.qvel(0), 2.0 / 3, 1e-12);
  EXPECT_NEAR(ev.x_plus.qvel(1), -2.0 / 3, 1e-12);
  EXPECT_NEAR(ev.impact.kinetic_energy_minus - ev.impact.kinetic_energy_plus, 1.0 / 3, 1e-12);
  EXPECT_EQ(ev.mode_after.contacts.size(), 1u);  // plastic: the blocks move on together
  // DΔ's velocity block is P for a plastic impact
  EXPECT_LT((ev.xi.reset.DvDvDense() - P_expected).cwiseAbs().maxCoeff(), 1e-12);
}

// P = I − M⁻¹Jᵀ(JM⁻¹Jᵀ)⁺J on MuJoCo's humanoid at random joint angles, with every contact point
// within the detection margin of the floor as the contact set.
TEST_F(Impact, PlasticProjectionPropertiesOnRandomHumanoidConfigurations) {
  char error[1000] = "";
  ModelPtr m(mj_loadXML(SALTATION_MUJOCO_MODELS "/humanoid/humanoid.xml", nullptr, error, 1000));
  ASSERT_TRUE(m) << error;
  Model model(m.get());
  Data data(model);
  const int nv = m->nv;
  const unsigned seed = 20261202;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(-1, 1);
  int tested = 0;
  for (int trial = 0; trial < 20; trial++) {
    SCOPED_TRACE("seed " + std::to_string(seed) + ", trial " + std::to_string(trial));
    Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(m->qpos0, m->nq);
    for (int j = 1; j < m->njnt; j++) {  // hinge joints within their ranges
      const double lo = m->jnt_range[2 * j], hi = m->jnt_range[2 * j + 1];
      q(m->jnt_qposadr[j]) = 0.5 * (lo + hi) + 0.5 * (hi - lo) * unit(rng);
    }
    Eigen::Vector4d quat(1 + 0.2 * unit(rng), 0.2 * unit(rng), 0.2 * unit(rng), unit(rng) * 0.2);
    q.segment<4>(3) = quat.normalized();
    // lower the robot until its lowest point touches the floor
    EvaluatePosition(model, data.main(), q.data());
    std::vector<ContactPoint> points;
    ListContacts(model, data.main(), points);
    for (int pass = 0; pass < 3 && !points.empty(); pass++) {
      double lowest = 1e9;
      for (const ContactPoint& p : points) lowest = std::min(lowest, p.gap);
      q(2) -= lowest;
      EvaluatePosition(model, data.main(), q.data());
      ListContacts(model, data.main(), points);
    }
    q(2) -= 0.0;
    if (points.size() < 2) continue;
    std::vector<ContactId> ids;
    for (const ContactPoint& p : points) ids.push_back(p.id);
    const Eigen::MatrixXd P = PlasticProjection(model, data, q, ids);
    const Eigen::MatrixXd M = MassMatrix(model, data, q);
    ConstraintSet rows;
    EvaluatePosition(model, data.main(), q.data());  // the rows at q
    ListContacts(model, data.main(), points);
    ModeConstraints(model, data.main(), ids, points, rows, data.work());
    const Eigen::MatrixXd J = rows.J.topRows(rows.ncontact_rows);
    const double scale = M.norm();
    EXPECT_LT((P * P - P).norm(), 1e-9) << "P² ≠ P";
    EXPECT_LT((M * P - (M * P).transpose()).norm(), 1e-9 * scale) << "MP not symmetric";
    EXPECT_LT((J * P).norm(), 1e-9 * J.norm()) << "JP ≠ 0";
    EXPECT_GT((P - P.transpose()).norm(), 1e-3) << "P should not be symmetric";
    for (int k = 0; k < 5; k++) {
      Eigen::VectorXd v(nv);
      for (int i = 0; i < nv; i++) v(i) = unit(rng);
      const Eigen::VectorXd vp = P * v;
      EXPECT_LE(vp.dot(M * vp), v.dot(M * v) * (1 + 1e-12)) << "kinetic energy increased";
    }
    tested++;
  }
  EXPECT_GE(tested, 10) << "too few configurations had two or more contacts";
}

// DΔ (closed-form velocity block, configuration block at fixed impulse set) equals the
// finite-difference twin that re-solves the whole impact problem at each perturbed state.
TEST_F(Impact, ResetJacobianMatchesFiniteDifferenceTwin) {
  struct Case {
    const char* name;
    std::string xml;
    std::vector<double> qvel;
  };
  const std::vector<Case> cases = {
      {"two-link arm", kTwoLinkArm, {0, 0}},
      {"tilted box", kTiltedBox, {0.3, -0.2, 0, 1, -2, 0.5}},
      {"free ball", kFreeBall, {1, 0.5, 1, 3, -2, 5}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ModelPtr m = LoadModelFromString(c.xml);
    Model model(m.get());
    RigidSimulator sim(model);
    State x = ZeroState(m.get());
    if (c.name == std::string("two-link arm")) x.qpos << 0, 0.3;
    x.qvel = Eigen::Map<const Eigen::VectorXd>(c.qvel.data(), c.qvel.size());
    const RigidEvent ev = FirstEvent(sim, x, 2.0);
    ASSERT_EQ(ev.kind, EventKind::kTouchdown);
    const Eigen::MatrixXd D = ev.xi.reset.Dense();
    const Eigen::MatrixXd D_fd =
        ImpactResetJacobianFD(model, sim.data(), sim.restitution(), ev.x_minus, ev.impact.candidates, 1e-6);
    const double err = RelativeError(D, D_fd);
    std::printf("[ DΔ vs FD ] %-14s relative error %.2e\n", c.name, err);
    EXPECT_LT(err, 1e-8) << CompareReport(D, D_fd, "DΔ", "FD");
    // the configuration block is not trivially zero on these models
    EXPECT_GT(ev.xi.reset.dv_dq.norm(), 1e-3);
  }
}

// A box landing flat: four corners at once, J M⁻¹ Jᵀ rank deficient. Everything stays finite,
// the box comes to rest, and the rank is reported.
TEST_F(Impact, FlatBoxLandingIsRankDeficientButFinite) {
  for (int condim : {1, 3}) {
    SCOPED_TRACE("condim " + std::to_string(condim));
    ModelPtr m = LoadModelFromString(FlatBox(condim));
    Model model(m.get());
    RigidSimulator sim(model);
    HybridState s = sim.Initialize(ZeroState(m.get()));
    const std::vector<RigidEvent> events = sim.Advance(s, 1.0);
    ASSERT_EQ(events.size(), 1u);
    const RigidEvent& ev = events[0];
    EXPECT_EQ(ev.impact.candidates.size(), 4u);
    EXPECT_EQ(ev.impact.ImpulseSet().size(), 4u);
    EXPECT_EQ(ev.impact.nrow, condim == 1 ? 4 : 12);
    EXPECT_EQ(ev.impact.rank, condim == 1 ? 3 : 6);
    EXPECT_EQ(ev.rank_after, condim == 1 ? 3 : 6);
    EXPECT_EQ(ev.mode_after.contacts.size(), 4u);
    EXPECT_LT(ev.x_plus.qvel.norm(), 1e-12);
    EXPECT_NEAR(ev.impact.kinetic_energy_plus, 0, 1e-20);
    EXPECT_TRUE(ev.xi.Dense().allFinite());
    for (int k = 0; k < 4; k++) EXPECT_NEAR(ev.impact.normal_impulse(k), ev.impact.normal_impulse(0), 1e-9);
    // it stays at rest on its four corners: a = 0 in the rank-deficient mode
    EXPECT_LT(s.x.qvel.norm(), 1e-9);
    EXPECT_LT(ev.xi.f_plus.norm(), 1e-9);
  }
}

}  // namespace
}  // namespace saltation::testing

namespace saltation::testing {
namespace {

// A planar box landing on an edge (slide x, slide z, hinge y; condim 3): both corners of the edge
// touch at once, the y tangent rows are identically zero, and J M⁻¹ Jᵀ (6 rows) has rank 2.
TEST_F(Impact, PlanarBoxEdgeHasZeroRowsAndReportsTheRank) {
  ModelPtr m = LoadModelFromString(kPlanarBox);
  Model model(m.get());
  RigidSimulator sim(model);
  State x;
  x.qpos = Eigen::Vector3d(0, 0, 0.4);
  x.qvel = Eigen::Vector3d(0.5, 0, 1.0);
  HybridState s = sim.Initialize(x);
  const std::vector<RigidEvent> events = sim.Advance(s, 1.0, 1);
  ASSERT_EQ(events.size(), 1u);
  const RigidEvent& ev = events[0];
  EXPECT_EQ(ev.impact.candidates.size(), 2u);
  EXPECT_EQ(ev.impact.nrow, 6);
  EXPECT_EQ(ev.impact.rank, 2);
  ASSERT_EQ(ev.mode_after.contacts.size(), 2u);
  EXPECT_EQ(ev.rank_after, 2);
  const ModeDynamics dyn = EvaluateMode(model, sim.data(), ev.x_plus, ev.mode_after);
  EXPECT_EQ(dyn.constraints.J.rows(), 6);
  int zero_rows = 0;  // the y tangents of the two corners
  for (int r = 0; r < 6; r++) zero_rows += dyn.constraints.J.row(r).norm() == 0.0;
  EXPECT_EQ(zero_rows, 2);
  EXPECT_TRUE(dyn.qacc.allFinite());
  // the edge stays put while the box pivots: the corners' velocities vanish after the impact
  EXPECT_LT((dyn.constraints.J * ev.x_plus.qvel).norm(), 1e-12);
}

}  // namespace
}  // namespace saltation::testing
