// A step of the exact reference that takes an active contact out of its detection band names the
// cause (issue 14: Pile(35)'s "active contact floor/b1@7 has no contact point within the detection
// margin" named the floor contact a stage had thrown out, not the near-parallel capsule pair whose
// accelerations threw it; lost_contact.h).
//
// The model: a frictionless ball (radius 0.05, mass 1) on top of a fixed sphere (radius 0.1), its
// centre ρ = 0.15 above the sphere's, sliding at v = 1 m/s (v²/ρ = 6.7 m/s² < g: it stays on, held
// by λ = m(g − v²/ρ) = 3.14 N). RK4's second stage moves it by v h/2 along the tangent, which
// leaves the dome's surface by √(ρ² + (v h/2)²) − ρ: with h = 0.1 s, 0.0081 m, beyond the detection
// margin of 0.005 m set here. The accelerations move it h²|a|/2 = 0.033 m over the step (|a| = v²/ρ)
// against h|v| = 0.1 m: the speed over the step is the cause. With h = 1e-3 the same ball slides on
// without an error.
#include <string>

#include <gmock/gmock.h>

#include "saltation/errors.h"
#include "saltation/rigid_simulator.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

using ::testing::HasSubstr;

const char* kBallOnDome = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="dome" type="sphere" size="0.1" condim="1"/>
    <body name="ball" pos="0 0 0.15">
      <freejoint name="ball"/>
      <geom name="ball" type="sphere" size="0.05" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";

class LostContact : public MujocoTest {
 protected:
  // the ball on top of the dome, sliding along x at 1 m/s, run with step h; the error's message
  static std::string Run(double h, double* time_reached) {
    ModelPtr m = LoadModelFromString(kBallOnDome);
    Options options;
    options.detect_margin = 0.005;
    Model model(m.get(), options);
    SimulatorOptions sim_options;
    sim_options.step = h;
    RigidSimulator sim(model, sim_options);
    State x = InitialState(m.get(), "");
    x.qvel(0) = 1;
    HybridState s = sim.Initialize(x);
    EXPECT_EQ(s.mode.contacts.size(), 1u);
    try {
      sim.Advance(s, 0.1);
    } catch (const NumericalError& e) {
      *time_reached = s.x.time;
      return e.what();
    }
    *time_reached = s.x.time;
    return "";
  }
};

TEST_F(LostContact, AStepTooLongForTheCurvatureIsNamedTheCause) {
  double t = -1;
  const std::string message = Run(0.1, &t);
  std::printf("[ lost contact ] %s\n", message.c_str());
  EXPECT_EQ(t, 0);  // the first step
  EXPECT_THAT(message, HasSubstr("the RK4 step from t = 0 s (h = 0.1 s) took active contact dome/ball out of its "
                                 "detection band (inside the step its geoms are 0.00811 m apart; the margin is 0.005 m)"));
  // at the start: a = v²/ρ = 6.67 along z, v = 1 along x, the one contact's λ = m(g − v²/ρ) = 3.14 N
  EXPECT_THAT(message, HasSubstr("largest acceleration is 6.67 on dof ball.z (h²|a|/2 = 0.0333 over the step)"));
  EXPECT_THAT(message, HasSubstr("largest speed 1 on dof ball.x (h|v| = 0.1)"));
  EXPECT_THAT(message, HasSubstr("its largest normal force is contact dome/ball's, λ = 3.14 N"));
  EXPECT_THAT(message, HasSubstr("Cause: the speed over the step"));
}

TEST_F(LostContact, AShortStepKeepsTheContact) {
  double t = -1;
  EXPECT_EQ(Run(1e-3, &t), "");
  EXPECT_DOUBLE_EQ(t, 0.1);
}

}  // namespace
}  // namespace saltation::testing
