// Floquet's self-checks: the multipliers that are 1 by construction (the trivial one, exact
// symmetries) reported apart from the rest, and the cross-check at half the integrator step that
// fails loudly when the two disagree.
#include <gmock/gmock.h>

#include <cmath>
#include <cstdio>

#include "test_util.h"

namespace saltation::testing {
namespace {

using ::testing::HasSubstr;

class FloquetCheck : public MujocoTest {};

// a frictionless elastic ball bouncing while it drifts along x: x is cyclic and an exact symmetry
// (the floor is the same everywhere), z is not (the floor is at one height)
const char* kDriftingBall = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="1"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1" condim="1"/>
    <body name="ball" pos="0 0 1">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.1" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";

TEST_F(FloquetCheck, DriftingBallReportsItsSymmetryApartFromTheTrivialMultiplier) {
  ModelPtr m = LoadModelFromString(kDriftingBall);
  ASSERT_TRUE(m);
  Options model_options;
  model_options.min_bounce_speed = 0;
  Model model(m.get(), model_options);
  RigidSimulator sim(model);
  State x;
  x.qpos = Eigen::Vector2d(0, -0.5);
  x.qvel = Eigen::Vector2d(0.3, 0);
  x.act = Eigen::VectorXd::Zero(0);
  const FloquetResult r = AnalyzePeriodicOrbit(sim, sim.Initialize(x));
  ASSERT_TRUE(r.converged);
  ASSERT_EQ(r.cyclic, std::vector<int>({0}));
  ASSERT_EQ(r.symmetries, std::vector<int>({0}));  // z is not cyclic; x is, and shifting it changes nothing
  const FloquetSpectrum& s = r.spectrum;
  ASSERT_TRUE(s.has_trivial);
  ASSERT_EQ(s.symmetry.size(), 1u);
  ASSERT_EQ(s.rest.size(), 2);
  std::printf("[ drifting ball ] period %.9f s; trivial %.12f (%.1e), symmetry %.12f (%.1e), rest %.9f %.9f; %s\n",
              r.period, s.trivial, s.trivial_error, s.symmetry[0], s.symmetry_error[0], s.rest(0).real(),
              s.rest(1).real(), r.consistent ? "consistent" : "INCONSISTENT");
  EXPECT_NEAR(s.trivial, 1, 1e-7);
  EXPECT_NEAR(s.symmetry[0], 1, 1e-9);
  EXPECT_LT(s.symmetry_error[0], 1e-7);
  EXPECT_EQ(r.verdict, "neutrally stable");
  EXPECT_TRUE(r.consistent);
  EXPECT_TRUE(r.cross_checked);
}

// the rimless wheel on its slope: x, z and roll are cyclic but none is a symmetry on its own (x
// alone lifts the wheel off the slope, roll turns the spokes); a check tolerance below the
// half-step difference fails the cross-check with both values named
TEST_F(FloquetCheck, WheelHasNoSymmetryAndATightToleranceFailsTheCrossCheck) {
  char error[1000] = "";
  ModelPtr m(mj_loadXML(ModelPath("rimless_wheel.xml").c_str(), nullptr, error, sizeof(error)));
  ASSERT_TRUE(m) << error;
  Model model(m.get());
  RigidSimulator sim(model);
  DataPtr d(mj_makeData(m.get()));
  mj_resetDataKeyframe(m.get(), d.get(), mj_name2id(m.get(), mjOBJ_KEY, "start"));
  FloquetOptions options;
  options.check_tolerance = 1e-13;
  const FloquetResult r = AnalyzePeriodicOrbit(sim, sim.Initialize(StateFromData(m.get(), d.get())), options);
  ASSERT_TRUE(r.converged);
  EXPECT_EQ(r.cyclic.size(), 3u);
  EXPECT_TRUE(r.symmetries.empty());
  EXPECT_TRUE(r.cross_checked);
  EXPECT_FALSE(r.consistent);
  ASSERT_FALSE(r.check_failures.empty());
  for (const std::string& f : r.check_failures) std::printf("[ wheel, tolerance 1e-13 ] %s\n", f.c_str());
  EXPECT_THAT(r.check_failures.back(), HasSubstr("at half the step: differ by"));
  std::printf("[ wheel ] multiplier %.12f at step 1e-3, %.12f at half the step\n", r.constrained_spectrum.rest(0).real(),
              r.check_spectrum.rest(0).real());
}

}  // namespace
}  // namespace saltation::testing
