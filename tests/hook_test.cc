// The engine hook on MuJoCo's own simulation: bitwise-identical physics, event times, Ξ at the
// localised state, grazing, near misses, simultaneous groups, Zeno.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <memory>

#include "saltation/event_json.h"
#include "test_models.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

constexpr double kG = 9.81;
constexpr double kTwentyTwoHumanoidsSeconds = 0.25;

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

const HookEvent* First(const std::vector<HookEvent>& events, EventKind kind) {
  for (const HookEvent& e : events) {
    if (e.kind == kind) return &e;
  }
  return nullptr;
}

class HookTest : public MujocoTest {};

// A step that cannot advance time is an error, not a silent endless loop: a timestep of 0 or
// below (ConfigError), and one below the resolution of d->time (t + dt == t: NumericalError).
TEST_F(HookTest, ATimestepThatCannotAdvanceIsAnError) {
  for (const char* dt : {"0", "-0.001"}) {
    ModelPtr m = LoadModelFromString(DropBall(0.3, 0.5, "Euler", 0.001));
    m->opt.timestep = std::atof(dt);
    Hook hook(m.get());
    DataPtr d(mj_makeData(m.get()));
    EXPECT_THROW(hook.Step(d.get()), ConfigError) << dt;
  }
  ModelPtr m = LoadModelFromString(DropBall(0.3, 0.5, "Euler", 0.001));
  m->opt.timestep = 1e-300;
  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  d->time = 1.0;
  try {
    hook.Step(d.get());
    ADD_FAILURE() << "a step that left the time at 1 s was accepted";
  } catch (const NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("simulation time does not advance at t = 1.000000 s"), std::string::npos)
        << e.what();
  }
}

// A state MuJoCo has already reset on a bad acceleration (a stiff spring under explicit Euler,
// stepped once without the hook) is left huge, and MuJoCo 4.0.1's mj_step then no longer advances
// the time: the hook names the instability and MuJoCo's warning, not the timestep's resolution.
TEST_F(HookTest, AStuckUnstableStateIsNamedAsSuch) {
  ModelPtr m = LoadModelFromString(R"(<mujoco>
  <option timestep="0.01" integrator="Euler"/>
  <worldbody>
    <body pos="0 0 1">
      <joint type="slide" axis="1 0 0" stiffness="1e12" ref="-1"/>
      <geom type="sphere" size="0.1" mass="1"/>
    </body>
  </worldbody>
</mujoco>)");
  DataPtr d(mj_makeData(m.get()));
  mj_step(m.get(), d.get());  // MuJoCo resets on the bad acceleration and warns
  (void)TakeMujocoWarnings();
  ASSERT_EQ(d->warning[mjWARN_BADQACC].number, 1);
  Hook hook(m.get());
  try {
    hook.Step(d.get());
    ADD_FAILURE() << "a step that left the time at " << d->time << " s was accepted";
  } catch (const NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("MuJoCo's simulation became unstable at t = 0.010000 s: mj_step no longer "
                                         "advances the time (MuJoCo warned of a bad acceleration)"),
              std::string::npos)
        << e.what();
  }
}

// keep_events = false: on_event sees the very records of a kept run, and events() never holds
// more than one step's (bounded memory for long streams)
TEST_F(HookTest, StreamingKeepsOnlyTheLatestStep) {
  const std::string xml = DropBall(0.3, 0.8, "Euler", 0.001, "0.01 0.3");  // MuJoCo's ball bounces
  ModelPtr m = LoadModelFromString(xml);
  HookOptions streaming;
  streaming.keep_events = false;
  Hook kept(m.get()), streamed(m.get(), streaming);
  std::vector<std::string> seen;
  streamed.on_event = [&](HookEvent& ev) { seen.push_back(HookEventToJson(streamed.rigid_model(), ev)); };
  DataPtr d1(mj_makeData(m.get())), d2(mj_makeData(m.get()));
  size_t most = 0;
  while (d1->time < 2) {
    kept.Step(d1.get());
    streamed.Step(d2.get());
    most = std::max(most, streamed.events().size());
  }
  ASSERT_GE(kept.events().size(), 5u);
  ASSERT_EQ(seen.size(), kept.events().size());
  for (size_t i = 0; i < seen.size(); i++) EXPECT_EQ(seen[i], HookEventToJson(kept.rigid_model(), kept.events()[i]));
  EXPECT_LE(most, 3u);
}

// The hook never edits the caller's model and outlives it: the model deleted right after the
// hook is made, the run gives the same events as with the model alive, and the hook is destroyed
// last without touching freed memory (this crashed when the hook restored margins in ~Hook).
TEST_F(HookTest, ModelMayBeDeletedBeforeTheHook) {
  const std::string xml = DropBall(0.5, 0.5, "Euler", 0.001);
  ModelPtr kept = LoadModelFromString(xml);
  const std::vector<double> margins(kept->geom_margin, kept->geom_margin + kept->ngeom);
  Hook reference(kept.get());
  EXPECT_EQ(std::vector<double>(kept->geom_margin, kept->geom_margin + kept->ngeom), margins)
      << "the caller's model was edited";
  DataPtr d_ref(mj_makeData(kept.get()));
  const std::vector<HookEvent> expected = RunHook(reference, kept.get(), d_ref.get(), 1.0);
  ASSERT_GE(expected.size(), 2u);

  ModelPtr m = LoadModelFromString(xml);
  DataPtr d(mj_makeData(m.get()));
  auto hook = std::make_unique<Hook>(m.get());
  m.reset();  // the caller deletes its model first
  while (d->time < 1.0) hook->Step(d.get());
  ASSERT_EQ(hook->events().size(), expected.size());
  for (size_t i = 0; i < expected.size(); i++) {
    EXPECT_EQ(hook->events()[i].kind, expected[i].kind);
    EXPECT_EQ(hook->events()[i].time, expected[i].time);
  }
  hook.reset();  // and the hook after it
}

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

// MuJoCo's 22 humanoids (nv 594, sample 22_humanoids.xml) falling onto the floor and onto each
// other: every geom pair is tracked, the physics stays bit for bit that of plain mj_step with the
// widened gaps listing near-contacts (more contacts than plain), no contact or constraint buffer
// fills (mjWARN_CONTACTFULL / mjWARN_CNSTRFULL, in the stepped data or the hook's own), and
// events are seen. The first 0.25 s: the lowest humanoids land (Ξ on demand,
// as the 1 s benchmark TwentyTwoHumanoids measures it).
TEST_F(HookTest, TwentyTwoHumanoidsBitwiseWithoutBufferWarnings) {
  char error[1000] = "";
  ModelPtr plain(mj_loadXML(SALTATION_MUJOCO_MODELS "/humanoid/22_humanoids.xml", nullptr, error, 1000));
  ModelPtr hooked(mj_loadXML(SALTATION_MUJOCO_MODELS "/humanoid/22_humanoids.xml", nullptr, error, 1000));
  ASSERT_TRUE(plain && hooked) << error;
  ASSERT_EQ(plain->nv, 594);
  HookOptions options;
  options.xi_on_demand = true;
  Hook hook(hooked.get(), options);
  EXPECT_TRUE(hook.untracked_pairs().empty());
  DataPtr d1(mj_makeData(plain.get())), d2(mj_makeData(hooked.get()));
  int steps = 0, max_plain = 0, max_hooked = 0;
  while (d1->time < kTwentyTwoHumanoidsSeconds) {
    mj_step(plain.get(), d1.get());
    hook.Step(d2.get());
    steps++;
    ASSERT_EQ(std::memcmp(d1->qpos, d2->qpos, sizeof(mjtNum) * plain->nq), 0) << "qpos differs at step " << steps;
    ASSERT_EQ(std::memcmp(d1->qvel, d2->qvel, sizeof(mjtNum) * plain->nv), 0) << "qvel differs at step " << steps;
    max_plain = std::max(max_plain, d1->ncon);
    max_hooked = std::max(max_hooked, d2->ncon);
  }
  for (mjData* d : {d1.get(), d2.get()}) {
    EXPECT_EQ(d->warning[mjWARN_CONTACTFULL].number, 0);
    EXPECT_EQ(d->warning[mjWARN_CNSTRFULL].number, 0);
  }
  for (const std::string& w : TakeMujocoWarnings()) {
    EXPECT_EQ(w.find("arena memory"), std::string::npos) << w;  // the hook's own mjData too
  }
  EXPECT_GT(max_plain, 0);
  EXPECT_GE(max_hooked, max_plain);
  EXPECT_NE(First(hook.events(), EventKind::kTouchdown), nullptr);
  std::printf("22 humanoids, %d steps: %zu events, most contacts %d (plain %d)\n", steps, hook.events().size(),
              max_hooked, max_plain);
}

// The localisation's Euler sub-steps run MuJoCo's forward pass once at the start state and then
// only the integrator for each length h. That rests on a fact of MuJoCo (2.2.2 and 4.0.1) this test holds:
// mj_forward, then mj_Euler with timestep h, is bit for bit mj_step with timestep h — also with
// joint damping, whose implicit treatment depends on h (the humanoid has it) — as long as no
// solref time constant is below 2·timestep (refsafe makes the forward pass read the timestep
// then; the hook re-simulates whole steps in that case, next test).
TEST_F(HookTest, ForwardThenEulerIsOneStepOfAnyLength) {
  char error[1000] = "";
  ModelPtr m(mj_loadXML(SALTATION_MUJOCO_MODELS "/humanoid/humanoid.xml", nullptr, error, 1000));
  ASSERT_TRUE(m) << error;
  ASSERT_EQ(m->opt.integrator, mjINT_EULER);
  bool damped = false;
  for (int i = 0; i < m->nv; i++) damped = damped || m->dof_damping[i] > 0;
  EXPECT_TRUE(damped);
  DataPtr d(mj_makeData(m.get())), a(mj_makeData(m.get())), b(mj_makeData(m.get()));
  const double dt = m->opt.timestep;
  for (int k = 0; k < 250; k++) mj_step(m.get(), d.get());  // falling, feet on the floor
  ASSERT_GT(d->ncon, 0);
  mj_copyData(b.get(), m.get(), d.get());
  mj_forward(m.get(), b.get());
  // MuJoCo 4's forward pass leaves qpos as it is (2.2.2's normalised the free joint's quaternion
  // in qpos, and the integrator started from that): the hook's copy of qpos after the forward
  // pass (PrepareSubsteps) is now the state's own
  const std::vector<mjtNum> qpos(b->qpos, b->qpos + m->nq);
  EXPECT_EQ(std::memcmp(qpos.data(), d->qpos, sizeof(mjtNum) * m->nq), 0);
  for (double h : {0.1 * dt, 0.37 * dt, dt}) {
    mj_copyData(a.get(), m.get(), d.get());
    m->opt.timestep = h;
    mj_step(m.get(), a.get());
    b->time = d->time;
    mju_copy(b->qpos, qpos.data(), m->nq);
    mju_copy(b->qvel, d->qvel, m->nv);
    mju_copy(b->act, d->act, m->na);
    mj_Euler(m.get(), b.get());
    m->opt.timestep = dt;
    EXPECT_EQ(std::memcmp(a->qpos, b->qpos, sizeof(mjtNum) * m->nq), 0) << "h = " << h;
    EXPECT_EQ(std::memcmp(a->qvel, b->qvel, sizeof(mjtNum) * m->nv), 0) << "h = " << h;
    EXPECT_EQ(a->time, b->time);
  }
}

// The bracket of a localised touchdown holds a sign change of the guard along MuJoCo's own
// sub-steps (plain mj_step with the sub-step's length from the step's start state), also when
// the forward pass depends on the timestep: ball a is pulled by ball b (pushed by a motor)
// through a joint equality whose solref time constant (1 ms) is below 2·dt, so MuJoCo's refsafe
// raises it to 2·timestep, and a sub-step of length h < dt feels a different constraint force
// than a full step would. Ball a hits the wall at x = 0.35.
TEST_F(HookTest, TouchdownBracketHoldsOnMujocosOwnSubSteps) {
  const char* xml = R"(
<mujoco>
  <option gravity="0 0 0" timestep="0.001"/>
  <worldbody>
    <geom name="wall" type="box" pos="0.5 0 0" size="0.05 1 1"/>
    <body name="a">
      <joint name="xa" type="slide" axis="1 0 0"/>
      <geom name="a" type="sphere" size="0.1" mass="1"/>
    </body>
    <body name="b" pos="0 0 1.5">
      <joint name="xb" type="slide" axis="1 0 0"/>
      <geom name="b" type="sphere" size="0.1" mass="1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <equality><joint joint1="xa" joint2="xb" solref="0.001 1"/></equality>
  <actuator><motor joint="xb"/></actuator>
</mujoco>)";
  ModelPtr hooked = LoadModelFromString(xml), plain = LoadModelFromString(xml);
  Hook hook(hooked.get());
  DataPtr d(mj_makeData(hooked.get()));
  d->ctrl[0] = 5;
  const int wall = mj_name2id(hooked.get(), mjOBJ_GEOM, "wall");
  const HookEvent* td = nullptr;
  while (!td && d->time < 1) {
    hook.Step(d.get());
    for (const HookEvent& ev : hook.events()) {
      if ((ev.kind == EventKind::kTouchdown || ev.kind == EventKind::kGraze) && (ev.contact.geom1 == wall || ev.contact.geom2 == wall)) td = &ev;
    }
  }
  ASSERT_NE(td, nullptr);
  // MuJoCo alone: the start state of the step holding the bracket, then one step of each length
  const double dt = plain->opt.timestep;
  DataPtr p(mj_makeData(plain.get())), q(mj_makeData(plain.get()));
  p->ctrl[0] = 5;
  while (p->time + dt <= td->bracket_lo) mj_step(plain.get(), p.get());
  auto gap_after = [&](double h) {  // ball a's distance to the wall's face (x = 0.45)
    mj_copyData(q.get(), plain.get(), p.get());
    plain->opt.timestep = h;
    mj_step(plain.get(), q.get());
    plain->opt.timestep = dt;
    return 0.45 - (q->qpos[0] + 0.1);
  };
  const double lo = gap_after(td->bracket_lo - p->time), hi = gap_after(td->bracket_hi - p->time);
  const double at = gap_after(td->time - p->time);
  EXPECT_GT(q->nefc, 0);  // the equality is in force
  std::printf("[ sub-steps ] wall touchdown %.15f s, bracket %.1e s, MuJoCo's gap at its ends %+.2e / %+.2e m, at "
              "the event %+.2e m\n",
              td->time, td->bracket_hi - td->bracket_lo, lo, hi, at);
  // the gap computed here and MuJoCo's sphere–box distance the hook brackets differ by rounding
  // (measured 5.6e-17); a sub-step family other than MuJoCo's is off by 1.4e-7 m here
  EXPECT_GT(lo, -1e-15);
  EXPECT_LT(hi, 1e-15);
  EXPECT_GT(lo - hi, 0);
  EXPECT_LT(std::abs(at), 1e-15);
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
    const HookEvent* td = First(events, EventKind::kTouchdown);
    ASSERT_NE(td, nullptr);
    const double err = td->time - t_exact;
    std::printf("[ event time ] %-5s touchdown %.9f s, analytic %.9f s, error %.2e s, bracket %.1e s\n",
                integrator, td->time, t_exact, err, td->bracket_hi - td->bracket_lo);
    if (std::string(integrator) == "RK4") {
      EXPECT_LT(std::abs(err), 1e-12);  // the issue asks for 1e-6; measured 3.9e-16
    } else {
      EXPECT_NEAR(err, -0.0005, 0.0001);
      // against the sub-step family in closed form: from the last step state (q, v) above the
      // floor, a semi-implicit Euler sub-step of length s reaches gap(s) = h + q + s v − g s²
      ModelPtr plain = LoadModelFromString(DropBall(h, 0.5, integrator, 0.001));
      DataPtr p(mj_makeData(plain.get()));
      double t = 0, q = 0, v = 0;
      while (h + p->qpos[0] > 0) {
        t = p->time, q = p->qpos[0], v = p->qvel[0];
        mj_step(plain.get(), p.get());
      }
      const double s = (v + std::sqrt(v * v + 4 * kG * (h + q))) / (2 * kG);
      std::printf("[ event time ] Euler sub-step root %.15f s, hook %.15f s, difference %.1e s\n", t + s, td->time,
                  td->time - (t + s));
      EXPECT_NEAR(td->time, t + s, 1e-15);  // measured 0: the re-simulated end nearer the root
    }
    EXPECT_LE(td->bracket_lo, td->time);
    EXPECT_GE(td->bracket_hi, td->time);
    EXPECT_LE(td->bracket_hi - td->bracket_lo, 1e-13);
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
  const HookEvent* td = First(events, EventKind::kTouchdown);
  ASSERT_NE(td, nullptr);
  ASSERT_TRUE(td->has_xi);
  const double v_minus = td->rigid.x_minus.qvel(0);
  Eigen::Matrix2d expected;
  expected << -e, 0, -(1 + e) * kG / v_minus, -e;
  EXPECT_LT((td->rigid.xi.Dense() - expected).cwiseAbs().maxCoeff(), 1e-9) << td->rigid.xi.Dense();
  Model model(m.get());
  Data data(model);
  const RigidEvent core = TouchdownEvent(model, data, RestitutionTable(model), td->rigid.x_minus, td->rigid.mode_before,
                                         td->contact, model.options().contact_tol, DefaultForceTolerance(m.get()));
  EXPECT_EQ((core.xi.Dense() - td->rigid.xi.Dense()).cwiseAbs().maxCoeff(), 0.0);
}

// ‖Ξ₂₁‖·|v⁻| = (1+e)G whatever the landing speed, over three decades. A ball on one slide joint
// lands head-on at any speed: the grazing measure (the cosine in the kinetic metric, guards.h) is 1
// and no landing is flagged; the growth of ‖Ξ‖ as the speed falls is Ξ's, not a graze's.
TEST_F(HookTest, GrazingSweepKeepsXiTimesSpeedConstantAndFlagsNoHeadOnLanding) {
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
    EXPECT_NEAR(td->rigid.xi.transversality_rel, 1, 1e-15) << "v = " << speed;
    EXPECT_FALSE(td->grazing) << "v = " << speed;
    EXPECT_EQ(td->kind, EventKind::kTouchdown);
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
  const HookEvent* miss = First(events, EventKind::kNearMiss);
  ASSERT_NE(miss, nullptr);
  EXPECT_EQ(ContactLabel(hook.rigid_model(), miss->contact), "ball/ceiling");
  EXPECT_NEAR(miss->min_gap, clearance, 2e-5);
  EXPECT_EQ(First(events, EventKind::kTouchdown), nullptr);
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
    if (ev.kind != EventKind::kSimultaneous) continue;
    groups++;
    std::printf("[ simultaneous ] group %d of %d contacts at t = %.6f, order spread %.3f\n", ev.group, ev.group_size,
                ev.time, ev.order_spread);
    EXPECT_EQ(ev.group_size, 4);
    EXPECT_TRUE(std::isfinite(ev.order_spread));
    EXPECT_GT(ev.order_spread, 1e-3);  // the order matters: that is the point of reporting it
    EXPECT_EQ(ev.composite_first.n, 12);
  }
  EXPECT_EQ(groups, 1);
}

}  // namespace
}  // namespace saltation::testing

namespace saltation::testing {
namespace {

// A ball whose MuJoCo contact bounces (direct stiffness 20000 N/m, damping 20 N·s/m: effective
// restitution ≈ 0.8): the hook measures the restitution, sees the bounce intervals shrink
// geometrically, calls Zeno before the accumulation time, switches the contact to sustained and
// the run completes with a bounded number of events.
TEST_F(HookTest, ZenoBounceIsDetectedAndSwitchedToSustainedContact) {
  const char* xml = R"(
<mujoco>
  <option gravity="0 0 -9.81" timestep="0.0005"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1" condim="1" solref="-20000 -20" solimp="0.95 0.95 0.001"/>
    <body name="ball" pos="0 0 0.6">
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.1" mass="1" condim="1" solref="-20000 -20" solimp="0.95 0.95 0.001"/>
    </body>
  </worldbody>
</mujoco>)";
  ModelPtr m = LoadModelFromString(xml);
  HookOptions options;
  options.restitution = RestitutionSource::kAuto;
  Hook hook(m.get(), options);
  DataPtr d(mj_makeData(m.get()));
  const std::vector<HookEvent> events = RunHook(hook, m.get(), d.get(), 6.0);
  std::vector<double> touchdowns, measured;
  const HookEvent* zeno = nullptr;
  for (const HookEvent& ev : events) {
    if (ev.kind == EventKind::kTouchdown || ev.kind == EventKind::kGraze) touchdowns.push_back(ev.time);
    if (ev.kind == EventKind::kRestitution) measured.push_back(ev.restitution);
    if (ev.kind == EventKind::kZeno && !zeno) zeno = &ev;
  }
  ASSERT_NE(zeno, nullptr) << events.size() << " events, no zeno";
  ASSERT_GE(measured.size(), 2u);
  for (double e : measured) EXPECT_NEAR(e, 0.8, 0.03);
  // the accumulation time the measured intervals imply: t_last + T_last·r/(1 − r)
  ASSERT_GE(touchdowns.size(), 4u);
  const size_t n = touchdowns.size();
  const double T1 = touchdowns[n - 1] - touchdowns[n - 2], T0 = touchdowns[n - 2] - touchdowns[n - 3];
  const double r = T1 / T0, t_z = touchdowns[n - 1] + T1 * r / (1 - r);
  std::printf("[ zeno ] e_eff %.3f, interval ratio %.4f, detected at %.4f s, predicted accumulation %.4f s (hook %.4f s), %zu events\n",
              measured[0], zeno->ratio, zeno->time, t_z, zeno->accumulation_time, events.size());
  EXPECT_LT(zeno->time, zeno->accumulation_time);
  EXPECT_NEAR(zeno->accumulation_time, t_z, 0.05 * (t_z - zeno->time));
  EXPECT_NEAR(zeno->ratio, measured[0], 0.03);  // bounce intervals shrink like e
  // no touchdown reported after the switch; the contact is in the mode; the ball rests
  EXPECT_LE(touchdowns.back(), zeno->time);
  EXPECT_EQ(hook.mode().contacts.size(), 1u);
  EXPECT_LT(events.size(), 20u);
  EXPECT_NEAR(d->time, 6.0, 1e-3);
  EXPECT_LT(std::abs(d->qvel[0]), 1e-2);
}

// Rigid Φ·Ξ·Φ against MuJoCo's finite-difference chain on a ball drop, over a window from just
// before the touchdown to after the contact transient, as the contact stiffens (solref time
// constant τ, dampratio 0.3, RK4 with dt = τ/20), the rigid restitution matched to the effective
// one measured on MuJoCo's contact. Both chains are checked against direct finite differences of
// their own flows; the table shows how far apart they are. The difference decreases with τ but
// does not vanish: MuJoCo's damping force switches on in whole steps at contact onset, so its
// finite-difference Jacobian carries a term of size b ∝ 1/τ (the slope of a sawtooth of height
// b·v·dt), which this test measures as well.
TEST_F(HookTest, RigidAndCompliantSensitivitiesSideBySide) {
  auto xml = [](double tc) {
    char buf[1200];
    std::snprintf(buf, sizeof(buf), R"(
<mujoco>
  <option gravity="0 0 -9.81" timestep="%g" integrator="RK4"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1" condim="1" solref="%g 0.3" solimp="0.95 0.95 0.001"/>
    <body name="ball" pos="0 0 0.5">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.1" mass="1" condim="1" solref="%g 0.3" solimp="0.95 0.95 0.001"/>
    </body>
  </worldbody>
</mujoco>)", tc / 20, tc, tc);
    return std::string(buf);
  };
  std::printf("[ rigid vs compliant ]  tau (s)   e_eff   |Phi_r - Phi_c|/|Phi_c|   dvz(t1)/dz(t0)·tau\n");
  std::vector<double> diffs;
  for (double tc : {0.02, 0.01, 0.005, 0.002}) {
    // pass 1: the touchdown time and MuJoCo's effective restitution
    double e_eff = -1, t_touch = -1;
    {
      ModelPtr m = LoadModelFromString(xml(tc));
      HookOptions options;
      options.restitution = RestitutionSource::kAuto;
      Hook hook(m.get(), options);
      DataPtr d(mj_makeData(m.get()));
      d->qvel[0] = 0.5;
      for (const HookEvent& ev : RunHook(hook, m.get(), d.get(), 0.6)) {
        if (ev.kind == EventKind::kTouchdown && t_touch < 0) t_touch = ev.time;
        if (ev.kind == EventKind::kRestitution && e_eff < 0) e_eff = ev.restitution;
      }
    }
    ASSERT_GT(e_eff, 0.3);
    ASSERT_GT(t_touch, 0);
    // pass 2: both chains over [t_touch − 0.02, t_touch + 0.15]
    ModelPtr m = LoadModelFromString(xml(tc));
    HookOptions options;
    options.restitution = RestitutionSource::kOverride;
    options.restitution_override = e_eff;
    options.propagation = Propagation::kBoth;
    Hook hook(m.get(), options);
    DataPtr d(mj_makeData(m.get()));
    d->qvel[0] = 0.5;
    const double t0 = t_touch - 0.02, t1 = t_touch + 0.15;
    while (d->time < t0) mj_step(m.get(), d.get());
    const State x0 = StateFromData(m.get(), d.get());
    while (hook.phi_time() < t1 - 1e-12) hook.Step(d.get());
    const Eigen::MatrixXd R = hook.phi_rigid() * std::exp(hook.phi_rigid_log_scale());
    const Eigen::MatrixXd C = hook.phi_compliant() * std::exp(hook.phi_compliant_log_scale());
    const double diff = (R - C).norm() / C.norm();
    diffs.push_back(diff);

    // the compliant chain is MuJoCo's own sensitivity: central differences of its trajectory
    ModelPtr plain = LoadModelFromString(xml(tc));
    DataPtr w(mj_makeData(plain.get()));
    auto flow = [&](const State& x) {
      StateToData(plain.get(), x, w.get());
      mj_forward(plain.get(), w.get());
      while (w->time < hook.phi_time() - 1e-12) mj_step(plain.get(), w.get());
      return StateFromData(plain.get(), w.get());
    };
    const Eigen::MatrixXd C_fd = TangentJacobianFD(plain.get(), flow, x0, 1e-7);
    EXPECT_LT(RelativeError(C, C_fd), 1e-3) << CompareReport(C, C_fd, "chain", "FD");
    // the rigid chain is the rigid model's: the closed form Φ_after Ξ Φ_before of the vertical bounce
    const HookEvent* td = First(hook.events(), EventKind::kTouchdown);
    ASSERT_NE(td, nullptr);
    const double v = td->rigid.x_minus.qvel(1), ta = td->time - x0.time, tb = hook.phi_time() - td->time;
    Eigen::Matrix2d before, after, xi;
    before << 1, ta, 0, 1;
    after << 1, tb, 0, 1;
    xi << -e_eff, 0, -(1 + e_eff) * kG / v, -e_eff;
    const Eigen::Matrix2d zz = after * xi * before;
    EXPECT_LT((R.block(1, 1, 1, 1) - zz.block(0, 0, 1, 1)).norm() + std::abs(R(3, 1) - zz(1, 0)) +
                  std::abs(R(1, 3) - zz(0, 1)) + std::abs(R(3, 3) - zz(1, 1)),
              1e-5);
    std::printf("[ rigid vs compliant ] %8.3f %7.3f %24.4f %22.2f\n", tc, e_eff, diff, C(3, 1) * tc);
    // the onset term: MuJoCo's ∂vz(t1)/∂z(t0) grows like 1/τ (measured −0.85/τ … −1.02/τ)
    EXPECT_GT(-C(3, 1) * tc, 0.7);
    EXPECT_LT(-C(3, 1) * tc, 1.2);
  }
  for (size_t i = 1; i < diffs.size(); i++) EXPECT_LT(diffs[i], diffs[i - 1]) << "not monotone at " << i;
}

// With the measured (auto) restitution, every event's JSON `restitution` is the value its own
// impact used: the model's <custom> value until MuJoCo's effective restitution has been measured,
// the latest measured value after that — not whatever the table holds when the line is written.
TEST_F(HookTest, AutoRestitutionJsonRecordsTheValueEachImpactUsed) {
  const double model_e = 0.9;
  // a lightly damped soft contact: MuJoCo's ball bounces back well below e = 0.9
  ModelPtr m = LoadModelFromString(DropBall(0.3, model_e, "Euler", 0.001, "0.01 0.3"));
  HookOptions options;
  options.restitution = RestitutionSource::kAuto;
  Hook hook(m.get(), options);
  DataPtr d(mj_makeData(m.get()));
  const std::vector<HookEvent> events = RunHook(hook, m.get(), d.get(), 1.5);
  double measured = -1;
  int before_measurement = 0, after_measurement = 0;
  for (const HookEvent& ev : events) {
    if (ev.kind == EventKind::kRestitution) {
      measured = ev.restitution;
      continue;
    }
    if (!ev.has_xi || (ev.kind != EventKind::kTouchdown && ev.kind != EventKind::kGraze)) continue;
    const double expected = measured >= 0 ? measured : model_e;
    (measured >= 0 ? after_measurement : before_measurement)++;
    // the impact used it for the trigger's pair
    const ImpactResult& impact = ev.rigid.impact;
    bool found = false;
    for (size_t i = 0; i < impact.candidates.size(); i++) {
      if (!impact.candidates[i].SamePair(ev.contact)) continue;
      EXPECT_EQ(impact.restitution[i], expected) << "impact at t = " << ev.time;
      found = true;
    }
    EXPECT_TRUE(found);
    // and the JSON line says so (written after the whole run: the table has moved on since)
    const std::string json = HookEventToJson(hook.rigid_model(), ev);
    const size_t at = json.find("\"restitution\":");
    ASSERT_NE(at, std::string::npos) << json.substr(0, 200);
    EXPECT_EQ(std::strtod(json.c_str() + at + 14, nullptr), expected) << "event at t = " << ev.time;
  }
  std::printf("[ auto restitution ] model e = %.2f, measured e = %.4f, %d touchdowns before, %d after\n",
              model_e, measured, before_measurement, after_measurement);
  EXPECT_EQ(before_measurement, 1);
  EXPECT_GE(after_measurement, 2);
  EXPECT_GT(std::abs(measured - model_e), 0.05) << "the test needs a measured value unlike the model's";
}

// Each event carries its contact point: a ball of radius 0.1 on a slide joint over the plane
// z = 0 touches down and lifts off at the origin, and the JSON line says where.
TEST_F(HookTest, EventsCarryTheirContactPoint) {
  ModelPtr m = LoadModelFromString(DropBall(0.2, 0.0, "Euler", 0.001));
  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  const std::vector<HookEvent> events = RunHook(hook, m.get(), d.get(), 0.5);
  const HookEvent* td = First(events, EventKind::kTouchdown);
  ASSERT_NE(td, nullptr);
  EXPECT_LT(td->point.norm(), 1e-9) << td->point.transpose();
  EXPECT_EQ(td->point, td->rigid.point);
  const std::string json = HookEventToJson(hook.rigid_model(), *td);
  EXPECT_NE(json.find("\"point\":["), std::string::npos);
}

// Covariance through the bounce: P⁺ = Ξ P⁻ Ξᵀ stays symmetric positive semi-definite, and
// propagating with DΔ alone under-estimates the post-impact velocity variance.
TEST_F(HookTest, CovarianceThroughEventStaysPsdAndDResetUnderEstimates) {
  ModelPtr m = LoadModelFromString(DropBall(0.9, 0.5, "RK4", 0.001));
  HookOptions options;
  options.covariance = true;
  options.initial_covariance = 1e-4;
  Hook hook(m.get(), options);
  DataPtr d(mj_makeData(m.get()));
  RunHook(hook, m.get(), d.get(), 0.5);
  ASSERT_NE(First(hook.events(), EventKind::kTouchdown), nullptr);
  const Eigen::MatrixXd& P = hook.covariance();
  const Eigen::MatrixXd& P_d = hook.covariance_dreset();
  EXPECT_EQ((P - P.transpose()).norm(), 0.0);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(P);
  EXPECT_GE(eig.eigenvalues().minCoeff(), -1e-15);
  std::printf("[ covariance ] velocity variance after the bounce: Ξ %.4e, DΔ only %.4e\n", P(1, 1), P_d(1, 1));
  EXPECT_GT(P(1, 1), 2 * P_d(1, 1));
}

}  // namespace
}  // namespace saltation::testing

namespace saltation::testing {
namespace {

// Ξ on demand (HookOptions::xi_on_demand): the same events, times and modes as Ξ at every event,
// and once completed the same Ξ, composites and flags; before completion a liftoff's
// transversality is the guard's directional derivative, held to ∇gᵀF⁻ of the complete event.
TEST_F(HookTest, XiOnDemandGivesTheSameEventsAndXiOnceCompleted) {
  struct Case {
    const char* name;
    std::string path;
    double duration;
  };
  const std::vector<Case> cases = {{"ball_drop", ModelPath("ball_drop.xml"), 1.0},
                                   {"box_flat", ModelPath("box_flat.xml"), 1.0},
                                   {"hopper", ModelPath("hopper.xml"), 2.0},
                                   {"humanoid", SALTATION_MUJOCO_MODELS "/humanoid/humanoid.xml", 2.0}};
  int liftoffs = 0, simultaneous = 0, touchdowns = 0, kinematic_releases = 0;
  double worst_xi = 0, worst_rate = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    char error[1000] = "";
    ModelPtr m1(mj_loadXML(c.path.c_str(), nullptr, error, sizeof(error)));
    ModelPtr m2(mj_loadXML(c.path.c_str(), nullptr, error, sizeof(error)));
    ASSERT_TRUE(m1 && m2) << error;
    Hook eager(m1.get());
    HookOptions options;
    options.xi_on_demand = true;
    Hook lazy(m2.get(), options);
    DataPtr d1(mj_makeData(m1.get())), d2(mj_makeData(m2.get()));
    for (auto [m, d] : {std::pair{m1.get(), d1.get()}, std::pair{m2.get(), d2.get()}}) {
      const int key = mj_name2id(m, mjOBJ_KEY, "start") >= 0 ? mj_name2id(m, mjOBJ_KEY, "start")
                                                             : mj_name2id(m, mjOBJ_KEY, "throw");
      if (key >= 0) mj_resetDataKeyframe(m, d, key);
    }
    RunHook(eager, m1.get(), d1.get(), c.duration);
    RunHook(lazy, m2.get(), d2.get(), c.duration);
    ASSERT_EQ(eager.events().size(), lazy.events().size());
    EXPECT_EQ(eager.mode().contacts.size(), lazy.mode().contacts.size());
    for (size_t i = 0; i < eager.events().size(); i++) {
      const HookEvent& a = eager.events()[i];
      ASSERT_EQ(a.kind, lazy.events()[i].kind);
      ASSERT_EQ(a.time, lazy.events()[i].time);
      EXPECT_FALSE(a.xi_pending);
      const bool pending = lazy.events()[i].xi_pending;
      // every event with a Ξ waits for it, kinematic releases too (their transversality exact)
      EXPECT_EQ(pending, a.has_xi || a.kind == EventKind::kSimultaneous);
      if (pending && a.has_xi && a.rigid.kinematic_release) {
        EXPECT_EQ(lazy.events()[i].rigid.xi.transversality, a.rigid.xi.transversality);
        EXPECT_EQ(lazy.events()[i].rigid.xi.transversality_rel, a.rigid.xi.transversality_rel);
        kinematic_releases++;
      } else if (pending && a.has_xi && a.rigid.kind != EventKind::kTouchdown) {
        // before completion: the directional derivative of λ_n along F⁻, against ∇gᵀF⁻ relative
        // to ‖∇g‖‖F⁻‖ (both are differences of λ_n; near-grazing releases have ∇gᵀF⁻ ≪ that)
        const double rate = lazy.events()[i].rigid.xi.transversality;
        const double scale = a.rigid.xi.grad_g.norm() * a.rigid.xi.f_minus.norm();
        worst_rate = std::max(worst_rate, std::abs(rate - a.rigid.xi.transversality) / scale);
        EXPECT_TRUE(std::isnan(lazy.events()[i].rigid.xi.transversality_rel));
        liftoffs++;
      }
      if (pending) {
        // writing a record whose Ξ is still pending is refused with a message, not a crash
        try {
          HookEventToJson(lazy.rigid_model(), lazy.events()[i]);
          ADD_FAILURE() << "a pending event was written";
        } catch (const ConfigError& e) {
          EXPECT_NE(std::string(e.what()).find("CompleteXi"), std::string::npos);
        }
      }
      const HookEvent& b = lazy.CompletedEvent(i);
      EXPECT_FALSE(b.xi_pending);
      EXPECT_EQ(a.has_xi, b.has_xi);
      EXPECT_EQ(a.grazing, b.grazing);
      if (a.has_xi) {
        touchdowns += a.rigid.kind == EventKind::kTouchdown;
        const Eigen::MatrixXd xa = a.rigid.xi.Dense(), xb = b.rigid.xi.Dense();
        worst_xi = std::max(worst_xi, (xa - xb).norm() / std::max(1.0, xa.norm()));
        EXPECT_EQ(a.rigid.xi.transversality_rel, b.rigid.xi.transversality_rel);
      }
      if (a.kind == EventKind::kSimultaneous) {
        simultaneous++;
        EXPECT_EQ(a.order_spread, b.order_spread);
        ASSERT_EQ(a.composite_first.n, b.composite_first.n);
        EXPECT_EQ((a.composite_first.Dense() - b.composite_first.Dense()).norm(), 0);
      }
    }
  }
  std::printf("[ on demand    ] %d touchdowns, %d liftoffs/slips, %d kinematic releases, %d groups: Ξ "
              "differs by %.1e, liftoff rate by %.1e (of ‖∇g‖‖F⁻‖)\n", touchdowns, liftoffs, kinematic_releases,
              simultaneous, worst_xi, worst_rate);
  EXPECT_GT(touchdowns, 3);
  EXPECT_GT(liftoffs, 1);
  EXPECT_GT(simultaneous, 0);
  EXPECT_GT(kinematic_releases, 0);  // measured 8
  EXPECT_EQ(worst_xi, 0);        // the same functions at the same state: bit for bit
  EXPECT_LT(worst_rate, 2e-6);  // measured 1.3e-6 (humanoid)
}

}  // namespace
}  // namespace saltation::testing
