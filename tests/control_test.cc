// Controls over time and state in the exact rigid reference (Options::control, control_table.h).
//
// A ball of mass m on a vertical slide joint, pushed by a motor u, falls onto the floor (radius r,
// restitution e). With a = −G + u/m the acceleration at the touchdown and v⁻ the speed there,
//   Ξ = [[−e, 0], [(1 + e)·a/v⁻, −e]]
// (∇g = (1, 0), F± = (v±, a): the control is continuous, so a is the same on both sides).
//   - a ramp u = K t from a control table: z(t) = z0 − G t²/2 + K t³/(6m), the touchdown a root
//     of a cubic (RK4 integrates this cubic exactly);
//   - a feedback law u = −k z: z − z_eq = (z0 − z_eq) cos ωt, ω² = k/m, z_eq = −G/ω².
// Both are closed forms that share nothing with the library; a run that ignored the law would land
// at the free fall's √(2(z0 − r)/G) instead.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "saltation/control_table.h"
#include "saltation/errors.h"
#include "saltation/hook.h"
#include "saltation/rigid_simulator.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

constexpr double kG = 9.81, kMass = 2, kR = 0.05, kZ0 = 0.5, kE = 0.5;

// tests/models/motor_slide_ball.xml: actuators `lift` (the motor) and `unused` (gear 0)
ModelPtr LoadSlideBall() { return LoadModel(std::string(SALTATION_SOURCE_DIR) + "/tests/models/motor_slide_ball.xml"); }

std::string WriteTable(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/saltation_control_" + std::to_string(::getpid()) + "_" + name;
  std::ofstream(path) << text;
  return path;
}

// the first event of a rigid run from z0 at rest under `law`
RigidEvent FirstEvent(const mjModel* m, const ControlLaw& law) {
  Options options;
  options.control = law;
  Model model(m, options);
  RigidSimulator sim(model);
  State x = InitialState(m, "");
  x.qpos(0) = kZ0;
  HybridState s = sim.Initialize(x);
  const std::vector<RigidEvent> events = sim.Advance(s, 1.0, 1);
  if (events.empty()) throw NumericalError("no event");
  return events.front();
}

void ExpectXi(const RigidEvent& ev, double a, double v_minus, double tol) {
  const Eigen::MatrixXd xi = ev.xi.Dense();
  ASSERT_EQ(xi.rows(), 2);
  Eigen::Matrix2d closed;
  closed << -kE, 0, (1 + kE) * a / v_minus, -kE;
  std::printf("[ control      ] Ξ vs closed form: max relative error %.1e\n",
              (xi - closed).cwiseAbs().maxCoeff() / closed.cwiseAbs().maxCoeff());
  EXPECT_NEAR(xi(0, 0), -kE, tol);
  EXPECT_NEAR(xi(0, 1), 0, tol);
  EXPECT_NEAR(xi(1, 0), (1 + kE) * a / v_minus, tol * std::abs((1 + kE) * a / v_minus));
  EXPECT_NEAR(xi(1, 1), -kE, tol);
}

TEST(Control, RampFromATableMatchesTheClosedForm) {
  ModelPtr m = LoadSlideBall();
  ASSERT_TRUE(m);
  const double K = 30;  // N/s: u = K t, a(t) = −G + K t/m
  const ControlTable table =
      ControlTable::Read(m.get(), WriteTable("ramp.csv", "# a ramp\ntime,lift\n0,0\n1," + std::to_string(K) + "\n"),
                         Eigen::VectorXd::Zero(2));
  const RigidEvent ev = FirstEvent(m.get(), table.Law());
  // the touchdown: z0 − G t²/2 + K t³/(6m) = r, by Newton from the free fall's time
  double t = std::sqrt(2 * (kZ0 - kR) / kG);
  const double t_free = t;
  for (int i = 0; i < 50; i++) {
    const double f = kZ0 - kG * t * t / 2 + K * t * t * t / (6 * kMass) - kR;
    const double df = -kG * t + K * t * t / (2 * kMass);
    t -= f / df;
  }
  const double v = -kG * t + K * t * t / (2 * kMass), a = -kG + K * t / kMass;
  std::printf("[ control      ] ramp: touchdown %.12f s (closed form %.12f, free fall %.6f)\n", ev.time, t, t_free);
  EXPECT_EQ(ev.kind, EventKind::kTouchdown);
  EXPECT_NEAR(ev.time, t, 1e-12);
  EXPECT_GT(t - t_free, 0.01);  // the law matters by far more than the tolerance
  ExpectXi(ev, a, v, 1e-12);
}

TEST(Control, FeedbackLawMatchesTheClosedForm) {
  ModelPtr m = LoadSlideBall();
  ASSERT_TRUE(m);
  const double k = 40, w = std::sqrt(k / kMass), z_eq = -kG / (w * w);
  const ControlLaw law = [k](double, const mjtNum* qpos, const mjtNum*, mjtNum* ctrl) {
    ctrl[0] = -k * qpos[0];
    ctrl[1] = 0;
  };
  const RigidEvent ev = FirstEvent(m.get(), law);
  const double t = std::acos((kR - z_eq) / (kZ0 - z_eq)) / w;
  const double v = -(kZ0 - z_eq) * w * std::sin(w * t), a = -w * w * (kR - z_eq);
  std::printf("[ control      ] feedback: touchdown %.12f s (closed form %.12f)\n", ev.time, t);
  EXPECT_NEAR(ev.time, t, 1e-11);
  ExpectXi(ev, a, v, 1e-12);
}

TEST(Control, ALawGivingNonFiniteControlsIsAnError) {
  ModelPtr m = LoadSlideBall();
  const ControlLaw law = [](double t, const mjtNum*, const mjtNum*, mjtNum* ctrl) {
    ctrl[0] = t > 0.1 ? NAN : 0;
    ctrl[1] = 0;
  };
  try {
    FirstEvent(m.get(), law);
    FAIL() << "no error";
  } catch (const NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("control law gave a control that is not finite"), std::string::npos) << e.what();
  }
}

// Hook::controller: called before each step; the same as setting d->ctrl by hand before Step, bit
// for bit, and MuJoCo's soft touchdown within a step (1 ms) of the rigid ramp's 0.332344 s
TEST(Control, HookCallsItsControllerBeforeEachStep) {
  ModelPtr m = LoadSlideBall();
  ASSERT_TRUE(m);
  DataPtr a(mj_makeData(m.get())), b(mj_makeData(m.get()));
  a->qpos[0] = b->qpos[0] = kZ0;
  Hook with(m.get()), by_hand(m.get());
  int calls = 0;
  with.controller = [&calls](const mjModel* model, mjData* d) {
    EXPECT_EQ(model->nu, 2);
    d->ctrl[0] = 30 * d->time;
    calls++;
  };
  double touchdown = -1;
  with.on_event = [&touchdown](HookEvent& ev) {
    if (ev.kind == EventKind::kTouchdown && touchdown < 0) touchdown = ev.time;
  };
  for (int k = 0; k < 400; k++) {
    with.Step(a.get());
    b->ctrl[0] = 30 * b->time;
    by_hand.Step(b.get());
  }
  EXPECT_EQ(calls, 400);
  EXPECT_EQ(a->qpos[0], b->qpos[0]);
  EXPECT_EQ(a->qvel[0], b->qvel[0]);
  EXPECT_NEAR(touchdown, 0.332344, 1e-3);
}

TEST(ControlTable, InterpolatesClampsAndHoldsTheUnlisted) {
  ModelPtr m = LoadSlideBall();
  const ControlTable table = ControlTable::Read(
      m.get(), WriteTable("interp.csv", "time, unused\n\n0.5, 1\n1.5, 3\n2.0, -1\n"), Eigen::Vector2d(7, 8));
  mjtNum u[2];
  const double cases[][2] = {{0, 1}, {0.5, 1}, {1.0, 2}, {1.5, 3}, {1.75, 1}, {2.0, -1}, {9, -1}};
  for (const auto& c : cases) {
    table.Evaluate(c[0], u);
    EXPECT_EQ(u[0], 7) << "t = " << c[0];  // `lift` is not listed: held
    EXPECT_DOUBLE_EQ(u[1], c[1]) << "t = " << c[0];
  }
  // an index names an actuator too
  const ControlTable by_index = ControlTable::Read(m.get(), WriteTable("index.csv", "time,0\n0,4\n"), Eigen::Vector2d(0, 0));
  by_index.Evaluate(3, u);
  EXPECT_EQ(u[0], 4);
}

TEST(ControlTable, MalformedTablesAreRefusedWithFileLineAndReason) {
  ModelPtr m = LoadSlideBall();
  const Eigen::VectorXd held = Eigen::VectorXd::Zero(2);
  const std::pair<const char*, const char*> cases[] = {
      {"time,lift,elbow\n0,1,2\n", "line 1: 'elbow' is not an actuator of the model (its actuators: lift, unused)"},
      {"time,lift,lift\n0,1,2\n", "line 1: actuator 'lift' is listed twice"},
      {"t,lift\n0,1\n", "line 1: the header must start with 'time'"},
      {"time\n0\n", "line 1: the header names no actuator"},
      {"time,lift\n0,1\n0,2\n", "line 3: times must increase"},
      {"time,lift\n0,1\n1,nan\n", "line 3: value 'nan' is not a finite number"},
      {"time,lift\n0,1,2\n", "line 2: 3 values where the header has 2"},
      {"time,lift\n0\n", "line 2: 1 values where the header has 2"},
      {"time,lift\nzero,1\n", "line 2: time 'zero' is not a finite number"},
      {"time,lift\n", "has a header but no rows"},
      {"# nothing\n", "is empty"},
  };
  int i = 0;
  for (const auto& [text, message] : cases) {
    const std::string path = WriteTable("bad" + std::to_string(i++) + ".csv", text);
    try {
      ControlTable::Read(m.get(), path, held);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  try {
    ControlTable::Read(m.get(), "/nonexistent/ctrl.csv", held);
    ADD_FAILURE() << "accepted a missing file";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace saltation::testing
