// Floquet on a gait that has one: models/hopper_gait.xml (the hopper with a pump on its leg and a
// leg stop; models/README.md) hops periodically with two touchdowns per period (the foot's and the
// stop's). The orbit converges with chain, shooting and the half-step repetition agreeing, the
// trivial multiplier is 1, and without the pump the same search says what it looked for and did
// not find. models/biped_gait.xml (a planar biped whose legs are not alike: the right one pumped,
// with a stop; the left shorter and passive) pronks with three touchdowns and a liftoff per period;
// its orbit converges and checks out too, and its multipliers say it falls over (the pitch).
#include <gmock/gmock.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "test_util.h"

namespace saltation::testing {
namespace {

using ::testing::HasSubstr;

class FloquetGaits : public MujocoTest {};

State KeyState(const mjModel* m, const char* key) {
  const int k = mj_name2id(m, mjOBJ_KEY, key);
  State x;
  x.qpos = Eigen::Map<const Eigen::VectorXd>(m->key_qpos + k * m->nq, m->nq);
  x.qvel = Eigen::Map<const Eigen::VectorXd>(m->key_qvel + k * m->nv, m->nv);
  x.act = Eigen::VectorXd::Zero(m->na);
  return x;
}

ModelPtr LoadModel(const char* file) {
  char error[1000] = "";
  ModelPtr m(mj_loadXML(ModelPath(file).c_str(), nullptr, error, sizeof(error)));
  EXPECT_TRUE(m) << error;
  return m;
}

ModelPtr LoadHopperGait() { return LoadModel("hopper_gait.xml"); }

// measured (4.0.1, step 1e-3): period 0.649032504 s, 187 returns; constrained chain: trivial
// 0.999999999, rest 0.959001197, −0.519871027, 0.207579611; shooting and the half step agree to
// 5e-8 and 7e-8
TEST_F(FloquetGaits, HopperGaitConvergesWithChainShootingAndHalfStepAgreeing) {
  ModelPtr m = LoadHopperGait();
  ASSERT_TRUE(m);
  Model model(m.get());
  RigidSimulator sim(model);
  const FloquetResult r = AnalyzePeriodicOrbit(sim, sim.Initialize(KeyState(m.get(), "start")));
  ASSERT_TRUE(r.converged) << r.residual;
  EXPECT_TRUE(r.consistent) << (r.check_failures.empty() ? "" : r.check_failures.front());
  EXPECT_TRUE(r.cross_checked);
  EXPECT_EQ(r.section_events, 2);  // the foot's touchdown and the stop's
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_EQ(r.events[0].kind, EventKind::kTouchdown);
  EXPECT_EQ(r.events[1].kind, EventKind::kTouchdown);
  EXPECT_NEAR(r.period, 0.649032504, 1e-8);
  EXPECT_NEAR(r.check_period, r.period, 1e-8);
  EXPECT_LT(r.agreement, 2e-7);
  const FloquetSpectrum& c = r.constrained_spectrum;
  ASSERT_TRUE(c.has_trivial);
  EXPECT_NEAR(c.trivial, 1, 1e-8);
  EXPECT_NEAR(r.constrained_shooting_spectrum.trivial, 1, 2e-8);
  ASSERT_EQ(c.rest.size(), 3);
  const double expected[3] = {0.959001197, -0.519871027, 0.207579611};
  for (int i = 0; i < 3; i++) {
    EXPECT_NEAR(c.rest(i).real(), expected[i], 1e-6) << i;
    EXPECT_NEAR(c.rest(i).imag(), 0, 1e-9) << i;
    EXPECT_NEAR(std::abs(r.constrained_shooting_spectrum.rest(i) - c.rest(i)), 0, 2e-7) << i;
    EXPECT_NEAR(std::abs(r.check_spectrum.rest(i) - c.rest(i)), 0, 2e-7) << i;
  }
  EXPECT_EQ(r.verdict, "stable");
}

// the same hopper with the pump off (actuator damping 0): the impacts take the energy, the hops
// die out and no orbit passes through the start; the message says what was looked for
TEST_F(FloquetGaits, HopperWithoutItsPumpHasNoOrbitAndSaysSo) {
  ModelPtr m = LoadHopperGait();
  ASSERT_TRUE(m);
  ASSERT_EQ(m->nu, 1);
  ASSERT_EQ(m->actuator_damping[0], -1);
  m->actuator_damping[0] = 0;
  Model model(m.get());
  RigidSimulator sim(model);
  FloquetOptions options;
  options.max_period = 5;
  try {
    AnalyzePeriodicOrbit(sim, sim.Initialize(KeyState(m.get(), "start")), options);
    ADD_FAILURE() << "floquet found an orbit without the pump";
  } catch (const NumericalError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no touchdown within 5 s (FloquetOptions::max_period)"));
    EXPECT_THAT(e.what(), HasSubstr("to return to the Poincaré section: after"));
    EXPECT_THAT(e.what(), HasSubstr("No periodic orbit passes through this state"));
  }
}

// measured (4.0.1, step 1e-3): 64 returns, period 0.570743458 s (0.570743444 at half the step);
// the period's events: foot_r, foot_l (double support), foot_l lifts off, stop_r (take-off);
// constrained chain: trivial 0.999999999, rest 8.031843701 (the pitch: nothing holds the torso
// level, a pitched torso lands the legs tilted), 1.000000000 (the walk along x: a shift of rootx),
// −0.645159291, 0.390577764, 0.023812698, −0.008022263, −0.000877493; shooting agrees to 3e-7,
// the half step to 2.6e-7, chain and shooting 5.24e-7
TEST_F(FloquetGaits, PronkingBipedConvergesWithThreeTouchdownsPerPeriodAndFallsOver) {
  ModelPtr m = LoadModel("biped_gait.xml");
  ASSERT_TRUE(m);
  Model model(m.get());
  RigidSimulator sim(model);
  const FloquetResult r = AnalyzePeriodicOrbit(sim, sim.Initialize(KeyState(m.get(), "start")));
  ASSERT_TRUE(r.converged) << r.residual;
  EXPECT_TRUE(r.consistent) << (r.check_failures.empty() ? "" : r.check_failures.front());
  EXPECT_TRUE(r.cross_checked);
  EXPECT_EQ(r.section_events, 3);
  ASSERT_EQ(r.events.size(), 4u);
  int touchdowns = 0, liftoffs = 0;
  std::vector<std::string> feet;
  for (const RigidEvent& ev : r.events) {
    touchdowns += ev.kind == EventKind::kTouchdown;
    liftoffs += ev.kind == EventKind::kLiftoff;
    feet.push_back(model.GeomName(ev.contact.geom2));
  }
  EXPECT_EQ(touchdowns, 3);
  EXPECT_EQ(liftoffs, 1);
  // the same four contacts whichever event the period starts at
  std::sort(feet.begin(), feet.end());
  EXPECT_EQ(feet, (std::vector<std::string>{"foot_l", "foot_l", "foot_r", "stop_r"}));
  EXPECT_NEAR(r.period, 0.570743458, 1e-8);
  EXPECT_NEAR(r.check_period, r.period, 3e-8);
  EXPECT_LT(r.agreement, 1e-6);
  const FloquetSpectrum& c = r.constrained_spectrum;
  ASSERT_TRUE(c.has_trivial);
  EXPECT_NEAR(c.trivial, 1, 1e-8);
  EXPECT_NEAR(r.constrained_shooting_spectrum.trivial, 1, 5e-7);
  ASSERT_EQ(c.rest.size(), 11);
  const double expected[7] = {8.031843701, 1.000000000, -0.645159291, 0.390577764,
                              0.023812698, -0.008022263, -0.000877493};
  for (int i = 0; i < 7; i++) {
    EXPECT_NEAR(c.rest(i).real(), expected[i], 1e-6) << i;
    EXPECT_NEAR(c.rest(i).imag(), 0, 1e-9) << i;
    EXPECT_NEAR(std::abs(r.constrained_shooting_spectrum.rest(i) - c.rest(i)), 0, 5e-7) << i;
    EXPECT_NEAR(std::abs(r.check_spectrum.rest(i) - c.rest(i)), 0, 5e-7) << i;
  }
  EXPECT_EQ(r.verdict, "unstable");
}

}  // namespace
}  // namespace saltation::testing
