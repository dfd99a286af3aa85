// Ξ against the exact event-driven reference: central differences of the rigid hybrid flow map
// from t0 (before the event) to t1 (after it) must equal Φ(t1 ← t⁺) Ξ Φ(t⁻ ← t0), where the two
// Φ are finite differences of each mode's own flow over the nominal intervals.
#include <cmath>
#include <cstdio>

#include "test_models.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

struct ReferenceCase {
  const char* name;
  std::string xml;
  std::vector<double> qpos;  // empty: the model's qpos0
  std::vector<double> qvel;
  double window_after;       // t1 − t_event (s)
};

std::ostream& operator<<(std::ostream& os, const ReferenceCase& c) { return os << c.name; }

struct Chain {
  Eigen::MatrixXd total;        // FD of the hybrid flow map
  Eigen::MatrixXd phi_before;   // FD of mode A's flow, t0 → t_event
  Eigen::MatrixXd phi_after;    // FD of mode B's flow, t_event → t1
  RigidEvent event;
};

Chain BuildChain(const Model& model, const ReferenceCase& c) {
  const mjModel* m = model.mj();
  RigidSimulator sim(model);
  State x0;
  x0.qpos = c.qpos.empty() ? Eigen::Map<const Eigen::VectorXd>(m->qpos0, m->nq).eval()
                           : Eigen::Map<const Eigen::VectorXd>(c.qpos.data(), c.qpos.size()).eval();
  x0.qvel = Eigen::Map<const Eigen::VectorXd>(c.qvel.data(), c.qvel.size());
  x0.act = Eigen::VectorXd::Zero(m->na);
  const HybridState s0 = sim.Initialize(x0);

  Chain chain;
  HybridState probe = s0;
  std::vector<RigidEvent> events = sim.Advance(probe, 5.0, 1);
  if (events.empty()) {
    ADD_FAILURE() << "no event";
    return chain;
  }
  chain.event = events.front();
  const double t_event = chain.event.time;
  const double t1 = t_event + c.window_after;
  HybridState nominal = s0;
  events = sim.Advance(nominal, t1);
  EXPECT_EQ(events.size(), 1u) << "the window must hold exactly one event";

  const double eps = 1e-5;
  chain.total = FlowJacobianFD(sim, s0, t1, eps, true);
  chain.phi_before = FlowJacobianFD(sim, s0, t_event, eps, false);
  const HybridState after{chain.event.x_plus, chain.event.mode_after};
  chain.phi_after = FlowJacobianFD(sim, after, t1, eps, false);
  return chain;
}

class SaltationReference : public MujocoTest, public ::testing::WithParamInterface<ReferenceCase> {};

TEST_P(SaltationReference, FlowJacobianEqualsPhiXiPhi) {
  const ReferenceCase& c = GetParam();
  ModelPtr m = LoadModelFromString(c.xml);
  Model model(m.get());
  const Chain chain = BuildChain(model, c);
  ASSERT_GT(chain.total.size(), 0);
  const Eigen::MatrixXd composed = chain.phi_after * chain.event.xi.Dense() * chain.phi_before;
  const double err = RelativeError(composed, chain.total);
  std::printf("[ Ξ vs reference ] %-14s event %-9s t = %.6f s  ‖Ξ‖ = %8.3f  rel. Frobenius error %.2e\n",
              c.name, EventKindName(chain.event.kind), chain.event.time, chain.event.xi.Norm(), err);
  EXPECT_LT(err, 1e-7) << CompareReport(composed, chain.total, "Φ Ξ Φ", "FD of flow");
  // the event is not trivial: Ξ differs from DΔ and from the identity
  EXPECT_GT((chain.event.xi.Dense() - chain.event.xi.reset.Dense()).norm(), 1e-2);
}

INSTANTIATE_TEST_SUITE_P(
    Models, SaltationReference,
    ::testing::Values(
        ReferenceCase{"slide ball", VerticalBall(0.5), {}, {0}, 0.1},
        ReferenceCase{"free ball", kFreeBall, {}, {1, 0.5, 1, 3, -2, 5}, 0.05},
        ReferenceCase{"two-link arm", kTwoLinkArm, {0, 0.3}, {0, 0}, 0.02},
        ReferenceCase{"box on corner", kTiltedBox, {}, {0.3, -0.2, 0, 1, -2, 0.5}, 0.02},
        ReferenceCase{"planar box", kPlanarBox, {0, 0, 0.4}, {0.5, 0, 1.0}, 0.02},
        ReferenceCase{"coupled balls", kCoupledBalls, {}, {0, 0}, 0.05}),
    [](const ::testing::TestParamInfo<ReferenceCase>& info) {
      std::string name = info.param.name;
      for (char& ch : name) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

// Without the configuration block ∂v⁺/∂q of DΔ the articulated arm's chain is far off: the block
// is computed and it is needed.
TEST(SaltationAblation, DroppingConfigurationBlockBreaksTwoLinkArm) {
  ModelPtr m = LoadModelFromString(kTwoLinkArm);
  Model model(m.get());
  const Chain chain = BuildChain(model, {"two-link arm", kTwoLinkArm, {0, 0.3}, {0, 0}, 0.02});
  ASSERT_GT(chain.total.size(), 0);
  const SaltationMatrix& xi = chain.event.xi;
  ResetJacobian without = xi.reset;
  without.dv_dq.setZero();
  const SaltationMatrix xi_without = ComputeSaltation(without, xi.f_minus, xi.f_plus, xi.grad_g);
  const double err_with = RelativeError(chain.phi_after * xi.Dense() * chain.phi_before, chain.total);
  const double err_without =
      RelativeError(chain.phi_after * xi_without.Dense() * chain.phi_before, chain.total);
  std::printf("[ ablation ] two-link arm: error with ∂v⁺/∂q %.2e, without %.2e\n", err_with, err_without);
  EXPECT_LT(err_with, 1e-7);
  EXPECT_GT(err_without, 0.05);
}

}  // namespace
}  // namespace saltation::testing

namespace saltation::testing {
namespace {

// The finite-difference twin of ∂F_A/∂x, integrated along the mode's flow as the variational
// equation dΦ/dt = (∂F_A/∂x) Φ, gives the same Φ as finite differences of the flow itself: on
// the ball sliding on the dome (in contact, curved surface) and the swinging two-link arm.
TEST(ModeVectorField, JacobianTwinIntegratesToFlowJacobian) {
  struct Case {
    const char* name;
    const char* xml;
    Eigen::VectorXd qpos, qvel;
    bool in_contact;
  };
  Eigen::VectorXd dome_q(2), dome_v(2), arm_q(2), arm_v(2);
  dome_q << 1.1 * std::sin(0.2), 1.1 * std::cos(0.2);
  dome_v << 0.3 * std::cos(0.2), -0.3 * std::sin(0.2);
  arm_q << 0, 0.3;
  arm_v << 0.5, -1;
  const std::vector<Case> cases = {{"ball on dome", kBallOnDome, dome_q, dome_v, true},
                                   {"two-link arm", kTwoLinkArm, arm_q, arm_v, false}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ModelPtr m = LoadModelFromString(c.xml);
    Model model(m.get());
    RigidSimulator sim(model);
    HybridState s0 = sim.Initialize(State{0, c.qpos, c.qvel, Eigen::VectorXd()});
    ASSERT_EQ(s0.mode.contacts.size(), c.in_contact ? 1u : 0u);
    const double T = 0.1, h = 1e-3;
    // variational equation by RK4 with the FD Jacobian along the nominal trajectory
    Eigen::MatrixXd phi = Eigen::MatrixXd::Identity(4, 4);
    HybridState s = s0;
    auto A = [&](const State& x) { return ModeVectorFieldJacobianFD(model, sim.data(), x, s.mode, 1e-6); };
    for (int k = 0; k < static_cast<int>(std::round(T / h)); k++) {
      const State x0 = s.x;
      const State xh = Rk4Step(model, sim.data(), x0, s.mode, h / 2);
      const State x1 = Rk4Step(model, sim.data(), x0, s.mode, h);
      const Eigen::MatrixXd k1 = A(x0) * phi;
      const Eigen::MatrixXd Ah = A(xh);
      const Eigen::MatrixXd k2 = Ah * (phi + h / 2 * k1);
      const Eigen::MatrixXd k3 = Ah * (phi + h / 2 * k2);
      const Eigen::MatrixXd k4 = A(x1) * (phi + h * k3);
      phi += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
      s.x = x1;
    }
    const Eigen::MatrixXd phi_fd = FlowJacobianFD(sim, s0, T, 1e-5, false);
    const double err = RelativeError(phi, phi_fd);
    std::printf("[ ∂F/∂x twin ] %-13s variational Φ vs FD of the flow: %.2e\n", c.name, err);
    EXPECT_LT(err, 1e-7) << CompareReport(phi, phi_fd, "variational", "FD");
  }
}

// CollidePairs (MuJoCo's narrow phase called for chosen pairs) gives exactly the points of a full
// collision pass: the humanoid lying on the floor, a box resting flat and one landing tilted.
TEST(Contacts, CollidePairsGivesTheFullPassPoints) {
  std::vector<ModelPtr> models;
  char error[1000] = "";
  models.emplace_back(mj_loadXML(SALTATION_MUJOCO_MODELS "/humanoid/humanoid.xml", nullptr, error, sizeof(error)));
  ASSERT_TRUE(models.back()) << error;
  models.push_back(LoadModelFromString(FlatBox(3)));
  models.push_back(LoadModelFromString(kTiltedBox));
  int compared = 0;
  for (const ModelPtr& m : models) {
    SCOPED_TRACE(compared);
    Model model(m.get());
    DataPtr d(mj_makeData(model.mj())), d2(mj_makeData(model.mj()));
    // a settled state: let MuJoCo's own simulation bring the bodies down
    for (int k = 0; k < 300; k++) mj_step(model.mj(), d.get());
    EvaluatePosition(model, d.get(), d->qpos);
    std::vector<ContactPoint> full;
    ListContacts(model, d.get(), full);
    ASSERT_FALSE(full.empty());
    std::vector<ContactId> ids;
    for (const ContactPoint& p : full) ids.push_back(p.id);
    mju_copy(d2->qpos, d->qpos, model.mj()->nq);
    mj_kinematics(model.mj(), d2.get());
    std::vector<ContactPoint> pairs;
    CollidePairs(model, d2.get(), ids, pairs);
    ASSERT_EQ(pairs.size(), full.size());
    for (const ContactPoint& p : full) {
      const int i = MatchContact(p.id, pairs);
      ASSERT_GE(i, 0);
      EXPECT_EQ((pairs[i].pos - p.pos).norm(), 0);
      EXPECT_EQ((pairs[i].frame - p.frame).norm(), 0);
      EXPECT_EQ(pairs[i].gap, p.gap);
      EXPECT_EQ(pairs[i].condim, p.condim);
      compared++;
    }
  }
  std::printf("[ collide     ] %d points identical to the full collision pass\n", compared);
}

// The propagation Jacobian (forward differences in the configuration, velocity and activation
// columns from MuJoCo's velocity stage with J̇(v) assembled) against the central-difference twin,
// in and out of contact, with quaternions, and on the humanoid lying on the floor in a mode of
// several sticking contacts.
TEST(ModeVectorField, PropagationJacobianEqualsTheCentralTwin) {
  struct Case {
    std::string name;
    ModelPtr m;
    State x;
    Mode mode;
  };
  std::vector<Case> cases;
  {
    ModelPtr m = LoadModelFromString(kBallOnDome);
    Model model(m.get());
    RigidSimulator sim(model);
    Eigen::VectorXd q(2), v(2);
    q << 1.1 * std::sin(0.2), 1.1 * std::cos(0.2);
    v << 0.3 * std::cos(0.2), -0.3 * std::sin(0.2);
    const HybridState s = sim.Initialize(State{0, q, v, Eigen::VectorXd()});
    cases.push_back({"ball on dome", std::move(m), s.x, s.mode});
  }
  {
    ModelPtr m = LoadModelFromString(kTwoLinkArm);
    Eigen::VectorXd q(2), v(2);
    q << 0, 0.3;
    v << 0.5, -1;
    cases.push_back({"two-link arm", std::move(m), State{0, q, v, Eigen::VectorXd()}, Mode{}});
  }
  {
    // a free ball rolling on the floor with spin: quaternion tangent, a sticking contact
    ModelPtr m = LoadModelFromString(kFreeBall);
    Model model(m.get());
    RigidSimulator sim(model);
    State x = StateFromData(m.get(), DataPtr(mj_makeData(m.get())).get());
    x.qpos(2) = 0.1;
    x.qvel << 0.4, -0.2, 0, 0.3, 1.0, -2.0;
    const HybridState s = sim.Initialize(x);
    cases.push_back({"rolling free ball", std::move(m), s.x, s.mode});
  }
  {
    char error[1000] = "";
    ModelPtr m(mj_loadXML(SALTATION_MUJOCO_MODELS "/humanoid/humanoid.xml", nullptr, error, sizeof(error)));
    ASSERT_TRUE(m) << error;
    Mode mode;
    State x;
    {
      Hook hook(m.get());
      DataPtr d(mj_makeData(m.get()));
      for (int k = 0; k < 400; k++) hook.Step(d.get());
      mode = hook.mode();
      x = StateFromData(m.get(), d.get());
    }
    cases.push_back({"humanoid lying", std::move(m), x, mode});
  }
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    Model model(c.m.get());
    Data data(model);
    const Eigen::MatrixXd fast = ModeVectorFieldJacobian(model, data, c.x, c.mode, 1e-6);
    const Eigen::MatrixXd twin = ModeVectorFieldJacobianFD(model, data, c.x, c.mode, 1e-6);
    const double err = RelativeError(fast, twin);
    std::printf("[ ∂F/∂x fast ] %-17s %zu contacts in the mode: %.2e against the central twin\n", c.name.c_str(),
                c.mode.contacts.size(), err);
    EXPECT_LT(err, 2e-6) << CompareReport(fast, twin, "fast", "twin");  // measured ≤ 1.65e-6 (the humanoid, with the tangent rows' ∂J/∂q in the centre's frame; 1.4e-6 before): O(ε) of forward differences
  }
  EXPECT_GE(cases.back().mode.contacts.size(), 3u);
}

}  // namespace
}  // namespace saltation::testing

namespace saltation::testing {
namespace {

// ∫ tr(∂F/∂x) dt along one mode's flow from s to t_end (Simpson on the RK4 grid)
double TraceIntegral(RigidSimulator& sim, HybridState s, double t_end) {
  const int n_steps = 400;
  const double h = (t_end - s.x.time) / n_steps;
  auto trace = [&](const State& x) {
    return ModeVectorFieldJacobianFD(sim.model(), sim.data(), x, s.mode, 1e-6).trace();
  };
  double sum = trace(s.x);
  for (int k = 1; k <= n_steps; k++) {
    const State mid = Rk4Step(sim.model(), sim.data(), s.x, s.mode, h / 2);
    s.x = Rk4Step(sim.model(), sim.data(), s.x, s.mode, h);
    sum += 4 * trace(mid) + (k < n_steps ? 2 : 1) * trace(s.x);
  }
  return sum * h / 6;
}

// Liouville through an event: det Φ(t1 ← t0) = det Ξ · exp(∫ tr ∂F/∂x dt), with Φ the finite
// differences of the exact hybrid flow, on the two-link arm's impact (tr ∂F/∂x ≠ 0: M(q) changes)
// and a damped pendulum striking a wall (damping makes the flow contract).
TEST(Monodromy, DeterminantEqualsProductOfXiDeterminantsTimesLiouvilleFactor) {
  const std::vector<ReferenceCase> cases = {
      {"two-link arm", kTwoLinkArm, {0, 0.3}, {0, 0}, 0.02},
      {"damped pendulum", kDampedPendulum, {0}, {0}, 0.05}};
  for (const ReferenceCase& c : cases) {
    SCOPED_TRACE(c.name);
    ModelPtr m = LoadModelFromString(c.xml);
    Model model(m.get());
    const Chain chain = BuildChain(model, c);
    ASSERT_GT(chain.total.size(), 0);
    RigidSimulator sim(model);
    State x0;
    x0.qpos = c.qpos.empty() ? Eigen::Map<const Eigen::VectorXd>(m->qpos0, m->nq).eval()
                             : Eigen::Map<const Eigen::VectorXd>(c.qpos.data(), c.qpos.size()).eval();
    x0.qvel = Eigen::Map<const Eigen::VectorXd>(c.qvel.data(), c.qvel.size());
    x0.act.resize(0);
    const HybridState s0 = sim.Initialize(x0);
    const RigidEvent& ev = chain.event;
    const double integral = TraceIntegral(sim, s0, ev.time) +
                            TraceIntegral(sim, HybridState{ev.x_plus, ev.mode_after}, ev.time + c.window_after);
    const double lhs = chain.total.determinant();
    const double rhs = ev.xi.Dense().determinant() * std::exp(integral);
    std::printf("[ Liouville ] %-13s det Φ = %.9f, det Ξ · exp(∫tr A) = %.9f · %.9f = %.9f\n", c.name, lhs,
                ev.xi.Dense().determinant(), std::exp(integral), rhs);
    EXPECT_NEAR(lhs, rhs, 1e-6 * std::abs(rhs));
    EXPECT_GT(std::abs(integral), 1e-2);  // the Liouville factor is not trivially 1
  }
}

}  // namespace
}  // namespace saltation::testing

namespace saltation::testing {
namespace {

// A ball sliding fast past the top of a dome clips it: its path dips 1 µm into the surface for
// 0.3 ms, inside one 1 ms step, with both step ends apart. The touchdown must be found where it
// is (closed form), not lost because no grid point saw the penetration.
TEST(RigidSimulator, FindsATouchdownWhosePenetrationFitsInsideOneStep) {
  ModelPtr m = LoadModelFromString(kBallOnDome);
  mju_zero3(m->opt.gravity);  // a straight pass
  Model model(m.get());
  const double speed = 10, x0 = -0.5045, z = 1.1 - 1e-6;
  // first contact: |(x, z)| = 1.1
  const double t_touch = (-std::sqrt(1.1 * 1.1 - z * z) - x0) / speed;
  for (double step : {1e-3, 1e-5}) {
    SimulatorOptions options;
    options.step = step;
    RigidSimulator sim(model, options);
    State x;
    x.qpos = Eigen::Vector2d(x0, z);
    x.qvel = Eigen::Vector2d(speed, 0);
    x.act.resize(0);
    HybridState s = sim.Initialize(x);
    const std::vector<RigidEvent> events = sim.Advance(s, 0.06, 1);
    ASSERT_EQ(events.size(), 1u) << "step " << step;
    EXPECT_EQ(events[0].kind, EventKind::kTouchdown);
    // at the coarse step no grid point falls inside the penetration [t_touch, t_leave]
    const double t_leave = t_touch + 2 * std::sqrt(1.1 * 1.1 - z * z) / speed;
    if (step == 1e-3) EXPECT_EQ(std::floor(t_touch / step), std::floor(t_leave / step));
    EXPECT_NEAR(events[0].time, t_touch, 1e-12) << "step " << step;
  }
}

}  // namespace
}  // namespace saltation::testing
