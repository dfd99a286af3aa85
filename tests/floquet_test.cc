// Periodic orbits and Floquet multipliers on the exact rigid integrator.
#include <cmath>
#include <cstdio>
#include <memory>

#include "test_models.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

class Floquet : public MujocoTest {};

// the rimless wheel at its keyframe "start"
struct Wheel {
  ModelPtr m;
  std::unique_ptr<Model> model;
  std::unique_ptr<RigidSimulator> sim;
  HybridState start;
};

Wheel RimlessWheel() {
  Wheel w;
  char error[1000];
  w.m.reset(mj_loadXML(ModelPath("rimless_wheel.xml").c_str(), nullptr, error, sizeof(error)));
  if (!w.m) {
    ADD_FAILURE() << error;
    return w;
  }
  w.model = std::make_unique<Model>(w.m.get());
  w.sim = std::make_unique<RigidSimulator>(*w.model);
  DataPtr d(mj_makeData(w.m.get()));
  mj_resetDataKeyframe(w.m.get(), d.get(), mj_name2id(w.m.get(), mjOBJ_KEY, "start"));
  w.start = w.sim->Initialize(StateFromData(w.m.get(), d.get()));
  return w;
}

// Rimless wheel: the non-trivial multiplier of the step-to-step map is r² with r the ratio of
// angular momenta about the new contact point after and before the plastic, sticking impact. For
// point feet r = (I + m l² cos 2α)/(I + m l²); this wheel's feet are spheres of radius ρ on spokes
// of length L, which puts the contact points at the sphere bottoms:
//   r = (I + m (L² cos 2α + 2Lρ cos α + ρ²)) / (I + m (L² + 2Lρ cos α + ρ²))
// with I the wheel's inertia about the hub and m its mass (from the compiled model).
TEST_F(Floquet, RimlessWheelMultiplierMatchesAngularMomentumBalance) {
  Wheel w = RimlessWheel();
  ASSERT_TRUE(w.sim);
  const mjModel* m = w.m.get();
  const FloquetResult result = AnalyzePeriodicOrbit(*w.sim, w.start);
  ASSERT_TRUE(result.converged) << "residual " << result.residual;

  const int body = mj_name2id(m, mjOBJ_BODY, "wheel");
  const double mass = m->body_mass[body];
  double R[9];
  mju_quat2Mat(R, m->body_iquat + 4 * body);
  double I = 0;  // (R diag(inertia) Rᵀ)_yy
  for (int k = 0; k < 3; k++) I += R[3 + k] * R[3 + k] * m->body_inertia[3 * body + k];
  const double L = 0.5, rho = 0.02, alpha = M_PI / 8;
  const double r = (I + mass * (L * L * std::cos(2 * alpha) + 2 * L * rho * std::cos(alpha) + rho * rho)) /
                   (I + mass * (L * L + 2 * L * rho * std::cos(alpha) + rho * rho));
  std::printf("[ rimless wheel ] period %.6f s after %d steps, cyclic %zu, analytic r² = %.9f\n", result.period,
              result.iterations, result.cyclic.size(), r * r);
  auto nontrivial = [](const Eigen::VectorXcd& mu) {
    // the constrained subspace of one stance DOF holds {1 (trivial), r²}
    return std::abs(mu(0) - 1.0) < std::abs(mu(1) - 1.0) ? mu(1) : mu(0);
  };
  ASSERT_EQ(result.constrained_multipliers.size(), 2);
  const std::complex<double> chain = nontrivial(result.constrained_multipliers);
  const std::complex<double> shooting = nontrivial(result.constrained_shooting_multipliers);
  std::printf("[ rimless wheel ] multiplier: chain %.9f%+.2ei, shooting %.9f%+.2ei; full space:", chain.real(),
              chain.imag(), shooting.real(), shooting.imag());
  for (int i = 0; i < result.multipliers.size(); i++) std::printf(" %.4f", std::abs(result.multipliers(i)));
  std::printf("\n");
  EXPECT_NEAR(chain.real(), r * r, 1e-6);  // measured 5.7e-8 (chain), 1.3e-8 (shooting)
  EXPECT_NEAR(shooting.real(), r * r, 1e-6);
  EXPECT_NEAR(chain.imag(), 0, 1e-6);
  EXPECT_LT(result.agreement, 1e-4);
  EXPECT_EQ(result.verdict, "stable");
}

// With only a few return-map iterations the orbit is not yet found; Newton on the mid-period
// point and the period finishes the job and gives the same multiplier.
TEST_F(Floquet, NewtonRefinesAnUnsettledOrbit) {
  Wheel w = RimlessWheel();
  ASSERT_TRUE(w.sim);
  FloquetOptions options;
  options.max_iterations = 6;  // 0.618⁶ ≈ 0.06 of the initial error left: not settled
  const FloquetResult r = AnalyzePeriodicOrbit(*w.sim, w.start, options);
  std::printf("[ newton ] %d iterations then %d Newton steps, residual %.2e, period %.9f s\n", r.iterations - 1,
              r.newton_iterations, r.residual, r.period);
  EXPECT_TRUE(r.converged);
  EXPECT_GE(r.newton_iterations, 1);
  EXPECT_NEAR(r.period, 0.525399860, 1e-6);
  const std::complex<double> mu = std::abs(r.constrained_multipliers(0) - 1.0) < std::abs(r.constrained_multipliers(1) - 1.0)
                                      ? r.constrained_multipliers(1)
                                      : r.constrained_multipliers(0);
  EXPECT_NEAR(mu.real(), 0.618232914, 1e-5);
}

// An elastic ball bouncing on a floor: every perturbation of its energy persists, so both
// multipliers are 1 (a Jordan block: the period depends on the energy); neutrally stable.
TEST_F(Floquet, ElasticBallIsNeutrallyStableWithDoubleUnitMultiplier) {
  ModelPtr m = LoadModelFromString(VerticalBall(1.0));
  Options options;
  options.min_bounce_speed = 0;
  Model model(m.get(), options);
  RigidSimulator sim(model);
  State x;
  x.qpos = Eigen::VectorXd::Constant(1, -0.5);
  x.qvel = Eigen::VectorXd::Zero(1);
  const FloquetResult result = AnalyzePeriodicOrbit(sim, sim.Initialize(x));
  ASSERT_TRUE(result.converged);
  std::printf("[ elastic ball ] period %.6f s, multipliers %.9f%+.1ei, %.9f%+.1ei, verdict %s\n", result.period,
              result.multipliers(0).real(), result.multipliers(0).imag(), result.multipliers(1).real(),
              result.multipliers(1).imag(), result.verdict.c_str());
  for (int i = 0; i < 2; i++) {
    EXPECT_NEAR(std::abs(result.multipliers(i) - 1.0), 0, 1e-7);
    EXPECT_NEAR(std::abs(result.shooting_multipliers(i) - 1.0), 0, 1e-7);
  }
  // a Jordan block, not the identity: energy changes the period
  EXPECT_GT((result.monodromy - Eigen::Matrix2d::Identity()).norm(), 1e-2);
  EXPECT_EQ(result.verdict, "neutrally stable");
}

}  // namespace
}  // namespace saltation::testing
