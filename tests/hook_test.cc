// The engine hook on MuJoCo's own simulation: bitwise-identical physics, event times, Ξ at the
// localised state, grazing, near misses, simultaneous groups, Zeno.
#include <cmath>
#include <cstdio>
#include <cstring>

#include "test_models.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

constexpr double kG = 9.81;

// a ball on a slide joint dropped onto a plane; MuJoCo's soft contact tuned by solref
std::string DropBall(double height, double restitution, const char* integrator, double dt,
                     const char* solref = "0.02 1") {
  char buf[1500];
  std::snprintf(buf, sizeof(buf), R"(
<mujoco>
  <option gravity="0 0 -9.81" timestep="%g" integrator="%s"/>
  <custom><numeric name="saltation_restitution" data="%g"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1" condim="1" solref="%s"/>
    <body name="ball" pos="0 0 %.17g">
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.1" mass="1" condim="1" solref="%s"/>
    </body>
  </worldbody>
</mujoco>)", dt, integrator, restitution, solref, 0.1 + height, solref);
  return buf;
}

std::vector<HookEvent> RunHook(Hook& hook, mjModel* m, mjData* d, double duration) {
  while (d->time < duration) hook.Step(d);
  return hook.events();
}

const HookEvent* First(const std::vector<HookEvent>& events, const std::string& kind) {
  for (const HookEvent& e : events) {
    if (e.kind == kind) return &e;
  }
  return nullptr;
}

class HookTest : public MujocoTest {};

// Stepping through the hook gives exactly the physics of plain mj_step.
TEST_F(HookTest, PhysicsIsBitwiseIdenticalToPlainStep) {
  struct Case {
    const char* name;
    std::string xml;
    double duration;
  };
  char error[1000];
  std::vector<Case> cases = {{"ball", DropBall(0.5, 0.5, "Euler", 0.001), 1.0},
                             {"two-link arm", kTwoLinkArm, 1.0},
                             {"tilted box", kTiltedBox, 1.0}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ModelPtr plain = LoadModelFromString(c.xml);
    ModelPtr hooked = LoadModelFromString(c.xml);
    Hook hook(hooked.get());
    DataPtr d1(mj_makeData(plain.get())), d2(mj_makeData(hooked.get()));
    int steps = 0;
    while (d1->time < c.duration) {
      mj_step(plain.get(), d1.get());
      hook.Step(d2.get());
      steps++;
      ASSERT_EQ(std::memcmp(d1->qpos, d2->qpos, sizeof(mjtNum) * plain->nq), 0) << "qpos differs at step " << steps;
      ASSERT_EQ(std::memcmp(d1->qvel, d2->qvel, sizeof(mjtNum) * plain->nv), 0) << "qvel differs at step " << steps;
    }
    EXPECT_GT(hook.events().size(), 0u) << "the run should have contact events";
  }
  // and a humanoid falling over (many contacts, capsules and spheres on a plane)
  ModelPtr plain(mj_loadXML(SALTATION_MUJOCO_MODELS "/humanoid/humanoid.xml", nullptr, error, 1000));
  ModelPtr hooked(mj_loadXML(SALTATION_MUJOCO_MODELS "/humanoid/humanoid.xml", nullptr, error, 1000));
  ASSERT_TRUE(plain && hooked) << error;
  Hook hook(hooked.get());
  EXPECT_TRUE(hook.untracked_pairs().empty());
  DataPtr d1(mj_makeData(plain.get())), d2(mj_makeData(hooked.get()));
  for (int k = 0; k < 300; k++) {
    mj_step(plain.get(), d1.get());
    hook.Step(d2.get());
  }
  EXPECT_EQ(std::memcmp(d1->qpos, d2->qpos, sizeof(mjtNum) * plain->nq), 0);
  EXPECT_EQ(std::memcmp(d1->qvel, d2->qvel, sizeof(mjtNum) * plain->nv), 0);
  TakeMujocoWarnings();  // the humanoid's own warnings are not ours to judge
}

// RK4 with dt = 1 ms: free fall is integrated exactly, so the localised touchdown is the analytic
// time. Semi-implicit Euler lands early by its own O(dt) error (z_k = z0 − g t_k(t_k + dt)/2: the
// discrete trajectory reaches the floor about dt/2 before the continuous one).
TEST_F(HookTest, TouchdownTimeIsLocalisedInsideTheStep) {
  const double h = 0.9, t_exact = std::sqrt(2 * h / kG);
  for (const char* integrator : {"RK4", "Euler"}) {
    SCOPED_TRACE(integrator);
    ModelPtr m = LoadModelFromString(DropBall(h, 0.5, integrator, 0.001));
    Hook hook(m.get());
    DataPtr d(mj_makeData(m.get()));
    const std::vector<HookEvent> events = RunHook(hook, m.get(), d.get(), 0.6);
    const HookEvent* td = First(events, "touchdown");
    ASSERT_NE(td, nullptr);
    const double err = td->time - t_exact;
    std::printf("[ event time ] %-5s touchdown %.9f s, analytic %.9f s, error %.2e s, bracket %.1e s\n",
                integrator, td->time, t_exact, err, td->bracket_hi - td->bracket_lo);
    if (std::string(integrator) == "RK4") {
      EXPECT_LT(std::abs(err), 1e-6);
    } else {
      EXPECT_NEAR(err, -0.0005, 0.0001);
    }
    EXPECT_LE(td->bracket_lo, td->time);
    EXPECT_GE(td->bracket_hi, td->time);
  }
}

// Ξ logged at MuJoCo's touchdown is the rigid model's at that state: the closed form of theory.md
// §9 item 2 with the event's own v⁻, and the core's TouchdownEvent bit for bit.
TEST_F(HookTest, XiAtCompliantTouchdownEqualsCoreXi) {
  const double e = 0.5;
  ModelPtr m = LoadModelFromString(DropBall(0.9, e, "RK4", 0.001));
  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  const std::vector<HookEvent> events = RunHook(hook, m.get(), d.get(), 0.6);
  const HookEvent* td = First(events, "touchdown");
  ASSERT_NE(td, nullptr);
  ASSERT_TRUE(td->has_xi);
  const double v_minus = td->rigid.x_minus.qvel(0);
  Eigen::Matrix2d expected;
  expected << -e, 0, -(1 + e) * kG / v_minus, -e;
  EXPECT_LT((td->rigid.xi.Dense() - expected).cwiseAbs().maxCoeff(), 1e-9) << td->rigid.xi.Dense();
  Model model(m.get());
  Data data(model);
  const RigidEvent core = TouchdownEvent(model, data, td->rigid.x_minus, td->rigid.mode_before,
                                         td->contact, model.options().contact_tol, DefaultForceTolerance(m.get()));
  EXPECT_EQ((core.xi.Dense() - td->rigid.xi.Dense()).cwiseAbs().maxCoeff(), 0.0);
}

// Grazing: ‖Ξ₂₁‖·|v⁻| = (1+e)G whatever the landing speed, over three decades; the slow landings
// are flagged as grazing.
TEST_F(HookTest, GrazingSweepKeepsXiTimesSpeedConstantAndFlagsSlowLandings) {
  const double e = 0.5;
  std::printf("[ grazing sweep ]   v⁻ (m/s)    |Ξ21|·|v⁻|   transversality_rel  grazing\n");
  for (double speed : {2.0, 0.2, 0.02, 0.002}) {
    // dt = 10 µs: the slowest landing (a 0.2 µm drop) still takes 20 steps
    ModelPtr m = LoadModelFromString(DropBall(speed * speed / (2 * kG), e, "RK4", 1e-5));
    HookOptions options;
    options.model.min_bounce_speed = 0;  // keep e = 0.5 down to the slowest landing
    Hook hook(m.get(), options);
    DataPtr d(mj_makeData(m.get()));
    const HookEvent* td = nullptr;
    const std::vector<HookEvent> events = RunHook(hook, m.get(), d.get(), speed / kG + 1e-4);
    for (const HookEvent& ev : events) {
      if (ev.has_xi && ev.rigid.kind == EventKind::kTouchdown) {
        td = &ev;
        break;
      }
    }
    ASSERT_NE(td, nullptr) << "v = " << speed;
    const double v_minus = td->rigid.x_minus.qvel(0);
    const double product = std::abs(td->rigid.xi.Dense()(1, 0) * v_minus);
    std::printf("[ grazing sweep ] %10.4f %12.6f %18.2e  %s\n", -v_minus, product,
                td->rigid.xi.transversality_rel, td->grazing ? "yes" : "no");
    EXPECT_NEAR(product, (1 + e) * kG, 0.01 * (1 + e) * kG);
    EXPECT_NEAR(-v_minus, speed, 0.01 * speed);
    EXPECT_EQ(td->grazing, speed < 0.05) << "v = " << speed;
    EXPECT_EQ(td->kind, speed < 0.05 ? "graze" : "touchdown");
  }
}

// A ball tossed up towards a ceiling that it misses by half a millimetre: a near miss, no touchdown.
TEST_F(HookTest, NearMissIsRecorded) {
  const char* xml = R"(
<mujoco>
  <option gravity="0 0 -9.81" timestep="0.001" integrator="RK4"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <geom name="ceiling" type="box" pos="0 0 1.3" size="1 1 0.1"/>
    <body name="ball" pos="0 0 0.5">
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.1" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";
  ModelPtr m = LoadModelFromString(xml);
  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  const double clearance = 5e-4, rise = 1.2 - 0.6 - clearance;  // ball top to ceiling bottom
  d->qvel[0] = std::sqrt(2 * kG * rise);
  const std::vector<HookEvent> events = RunHook(hook, m.get(), d.get(), 0.5);
  const HookEvent* miss = First(events, "near_miss");
  ASSERT_NE(miss, nullptr);
  EXPECT_EQ(ContactLabel(hook.rigid_model(), miss->contact), "ball/ceiling");
  EXPECT_NEAR(miss->min_gap, clearance, 2e-5);
  EXPECT_EQ(First(events, "touchdown"), nullptr);
}

// A box landing flat: its four corners cross together, one simultaneous group, both orderings'
// composite Ξ computed and their spread reported.
TEST_F(HookTest, FlatBoxGivesOneSimultaneousGroupWithOrderSpread) {
  ModelPtr m = LoadModelFromString(FlatBox(3));
  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  const std::vector<HookEvent> events = RunHook(hook, m.get(), d.get(), 0.5);
  int groups = 0;
  for (const HookEvent& ev : events) {
    if (ev.kind != "simultaneous") continue;
    groups++;
    std::printf("[ simultaneous ] group %d of %g contacts at t = %.6f, order spread %.3f\n", ev.group, ev.ratio,
                ev.time, ev.order_spread);
    EXPECT_EQ(ev.ratio, 4);
    EXPECT_TRUE(std::isfinite(ev.order_spread));
    EXPECT_GT(ev.order_spread, 1e-3);  // the order matters: that is the point of reporting it
    EXPECT_EQ(ev.composite_first.rows(), 12);
  }
  EXPECT_EQ(groups, 1);
}

}  // namespace
}  // namespace saltation::testing
