// The hook's worker thread (HookOptions::worker_thread): the same records, Ξ, Φ and mode as the
// synchronous hook bit for bit, on every model of the suite, on a pile of 50 balls and on 24
// articulated bodies landing together; on_event on the caller's thread in time order; a worker's
// error thrown on the caller's thread; Reset mid-run; destruction with a full queue. The worker
// replays the caller's steps: inputs set by the caller or a Hook::controller, mocap moved and d's
// state edited between steps are replayed bit for bit, the ArenaFallback's retaken steps too, and
// a replay that diverges is a NumericalError.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "same_bits.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

// the worker's records against the synchronous ones: the pair and the anchor bit for bit (not
// saltation::SameContact, which compares the anchor by value)
bool SameContactBits(const ContactId& a, const ContactId& b) {
  return a.geom1 == b.geom1 && a.geom2 == b.geom2 && SameBits(a.anchor, b.anchor);
}

// a readable first difference between two event streams ("" when they are the same bit for bit)
std::string Difference(const std::vector<HookEvent>& sync, const std::vector<HookEvent>& worker) {
  if (sync.size() != worker.size()) return "counts " + std::to_string(sync.size()) + " vs " + std::to_string(worker.size());
  for (size_t i = 0; i < sync.size(); i++) {
    const HookEvent& a = sync[i];
    const HookEvent& b = worker[i];
    const std::string at = "event " + std::to_string(i) + " (" + EventKindName(a.kind) + " at " + std::to_string(a.time) + "): ";
    if (a.kind != b.kind) return at + "kind " + EventKindName(b.kind);
    if (std::memcmp(&a.time, &b.time, sizeof(double)) != 0) return at + "time";
    if (!SameContactBits(a.contact, b.contact)) return at + "contact";
    if (a.group != b.group || a.group_size != b.group_size) return at + "group";
    if (a.has_xi != b.has_xi || a.xi_pending != b.xi_pending || a.grazing != b.grazing) return at + "flags";
    if (!SameBits(a.point, b.point)) return at + "point";
    if (a.has_xi && !a.xi_pending && !SameBits(a.rigid.xi.Dense(), b.rigid.xi.Dense())) return at + "Xi";
    if (a.composite_first.support != b.composite_first.support || !SameBits(a.composite_first.block, b.composite_first.block) ||
        a.composite_reverse.support != b.composite_reverse.support || !SameBits(a.composite_reverse.block, b.composite_reverse.block)) {
      return at + "composites";
    }
    if (std::memcmp(&a.restitution, &b.restitution, sizeof(double)) != 0) return at + "restitution";
  }
  return "";
}

std::string ModeDifference(const Mode& a, const Mode& b) {
  if (a.contacts.size() != b.contacts.size()) return "mode sizes differ";
  for (size_t k = 0; k < a.contacts.size(); k++) {
    if (!SameContactBits(a.contacts[k], b.contacts[k])) return "mode contact " + std::to_string(k) + " differs";
  }
  return "";
}

// one run of a hook: the records as on_event saw them (completed there when asked), the caller's
// thread each was delivered on, the final state and mode
struct HookRun {
  std::vector<HookEvent> streamed;
  bool all_on_caller = true;
  std::vector<HookEvent> events;
  Mode mode;
  Eigen::VectorXd qpos, qvel;
  Eigen::MatrixXd phi_rigid, phi_compliant, covariance;
  double phi_rigid_log_scale = 0, phi_compliant_log_scale = 0;
  long narrow_steps = 0;
  std::vector<mjtNum> after;  // d's state and inputs at the end (kWorkerStateBefore)
  int ncon = 0;               // d's contacts at the end
};

// what the caller does before step k (inputs, edits of d's state); a per-step Hook::controller
using CallerEdit = std::function<void(const mjModel*, mjData*, int)>;
using Controller = std::function<void(const mjModel*, mjData*)>;

HookRun RunHook(const mjModel* m, HookOptions options, bool worker, int steps, bool complete_in_handler = false,
            int reset_at = -1, const CallerEdit& edit = {}, const Controller& controller = {}) {
  options.worker_thread = worker;
  options.worker_queue = 3;
  Hook hook(m, options);
  hook.controller = controller;
  DataPtr d(mj_makeData(m));
  if (m->nkey > 0) mj_resetDataKeyframe(m, d.get(), 0);
  HookRun run;
  const std::thread::id caller = std::this_thread::get_id();
  hook.on_event = [&](HookEvent& ev) {
    run.all_on_caller = run.all_on_caller && std::this_thread::get_id() == caller;
    if (complete_in_handler) hook.CompleteXi(ev);
    run.streamed.push_back(ev);
  };
  for (int k = 0; k < steps; k++) {
    if (edit) edit(m, d.get(), k);
    if (k == reset_at) hook.Reset(d.get());
    hook.Step(d.get());
  }
  run.narrow_steps = hook.narrow_steps();
  run.after.resize(mj_stateSize(m, kWorkerStateBefore));
  mj_getState(m, d.get(), run.after.data(), kWorkerStateBefore);
  run.ncon = d->ncon;
  run.events = hook.events();  // waits for the worker
  run.mode = hook.mode();
  run.qpos = Eigen::Map<const Eigen::VectorXd>(d->qpos, m->nq);
  run.qvel = Eigen::Map<const Eigen::VectorXd>(d->qvel, m->nv);
  run.phi_rigid = hook.phi_rigid();
  run.phi_compliant = hook.phi_compliant();
  run.covariance = hook.covariance();
  run.phi_rigid_log_scale = hook.phi_rigid_log_scale();
  run.phi_compliant_log_scale = hook.phi_compliant_log_scale();
  return run;
}

void ExpectSame(const HookRun& sync, const HookRun& worker, const std::string& what) {
  EXPECT_EQ(Difference(sync.events, worker.events), "") << what;
  EXPECT_EQ(Difference(sync.streamed, worker.streamed), "") << what << " (on_event)";
  EXPECT_EQ(ModeDifference(sync.mode, worker.mode), "") << what;
  EXPECT_TRUE(SameBits(sync.qpos, worker.qpos) && SameBits(sync.qvel, worker.qvel)) << what << ": physics";
  EXPECT_TRUE(sync.after == worker.after) << what << ": d's state (time, act, warmstart, inputs, …)";
  EXPECT_EQ(sync.narrow_steps, worker.narrow_steps) << what;
  EXPECT_TRUE(SameBits(sync.phi_rigid, worker.phi_rigid)) << what << ": rigid Phi";
  EXPECT_TRUE(SameBits(sync.phi_compliant, worker.phi_compliant)) << what << ": compliant Phi";
  EXPECT_TRUE(SameBits(sync.covariance, worker.covariance)) << what << ": covariance";
  EXPECT_EQ(sync.phi_rigid_log_scale, worker.phi_rigid_log_scale) << what;
  EXPECT_EQ(sync.phi_compliant_log_scale, worker.phi_compliant_log_scale) << what;
  EXPECT_TRUE(worker.all_on_caller) << what << ": on_event ran on another thread";
  for (size_t i = 1; i < worker.streamed.size(); i++) {
    EXPECT_LE(worker.streamed[i - 1].time, worker.streamed[i].time) << what << ": on_event out of time order at " << i;
  }
}

// 50 balls on free joints dropped from staggered heights onto a plane and against each other
std::string Balls(int n) {
  std::string xml = R"(<mujoco><option timestep="0.002"/>
  <custom><numeric name="saltation_restitution" data="0.5"/></custom>
  <worldbody><geom name="floor" type="plane" size="3 3 0.1"/>)";
  for (int i = 0; i < n; i++) {
    char body[300];
    std::snprintf(body, sizeof(body),
                  R"(<body pos="%g %g %g"><freejoint/><geom type="sphere" size="0.05" mass="0.1"/></body>)",
                  0.12 * (i % 7) - 0.36, 0.12 * ((i / 7) % 7) - 0.36, 0.08 + 0.03 * (i % 5) + 0.11 * (i / 49));
    xml += body;
  }
  return xml + "</worldbody></mujoco>";
}

class WorkerTest : public MujocoTest {};

// Every model of the suite, 1500 steps, events with eager Ξ: records, Ξ, mode and physics are the
// synchronous hook's bit for bit.
TEST_F(WorkerTest, EveryModelOfTheSuiteGivesTheSynchronousResults) {
  int models = 0;
  for (const auto& entry : std::filesystem::directory_iterator(ModelPath(""))) {
    if (entry.path().extension() != ".xml") continue;
    ModelPtr m = LoadModel(entry.path().string());
    const HookRun sync = RunHook(m.get(), {}, false, 1500);
    const HookRun worker = RunHook(m.get(), {}, true, 1500);
    ExpectSame(sync, worker, entry.path().filename().string());
    models++;
  }
  EXPECT_GE(models, 20);
}

// Φ (rigid and compliant) and the covariance through Ξ, on models with touchdowns, liftoffs and
// simultaneous groups
TEST_F(WorkerTest, PhiAndCovarianceAreTheSynchronousOnes) {
  HookOptions options;
  options.propagation = Propagation::kBoth;
  options.covariance = true;
  options.initial_covariance = 1e-4;
  options.process_noise = 1e-6;
  for (const char* name : {"ball_drop.xml", "two_blocks.xml", "box_corner.xml", "hopper.xml"}) {
    ModelPtr m = LoadModel(ModelPath(name));
    const HookRun sync = RunHook(m.get(), options, false, 400);
    const HookRun worker = RunHook(m.get(), options, true, 400);
    EXPECT_GT(sync.phi_rigid.size(), 0) << name;
    ExpectSame(sync, worker, name);
  }
}

// 50 balls: eager Ξ, and Ξ on demand completed by the handler on the caller's thread while the
// worker keeps going (its own workspace)
TEST_F(WorkerTest, FiftyBallsGiveTheSynchronousResults) {
  ModelPtr m = LoadModelFromString(Balls(50));
  const HookRun sync = RunHook(m.get(), {}, false, 250);
  const HookRun worker = RunHook(m.get(), {}, true, 250);
  EXPECT_GE(sync.events.size(), 50u);
  ExpectSame(sync, worker, "50 balls");
  HookOptions lazy;
  lazy.xi_on_demand = true;
  const HookRun lazy_sync = RunHook(m.get(), lazy, false, 250, true);
  const HookRun lazy_worker = RunHook(m.get(), lazy, true, 250, true);
  ExpectSame(lazy_sync, lazy_worker, "50 balls, Xi completed in on_event");
  EXPECT_EQ(Difference(sync.streamed, lazy_worker.streamed), "") << "Xi on demand completed = eager Xi";
}

// 24 articulated bodies (a capsule torso on a free joint, two hinged capsule legs), dropped in
// rows of six from staggered heights, some tilted: one foot first, then the other, bounces, whole
// rows landing at once (simultaneous groups across trees), liftoffs of mode contacts, grazes and
// near misses; eager Ξ and Ξ on demand
std::string Ragdolls(int n) {
  std::string xml = R"(<mujoco><option timestep="0.002"/>
  <custom><numeric name="saltation_restitution" data="0.6"/></custom>
  <default><geom type="capsule" size="0.02"/><joint type="hinge" axis="0 1 0" range="-60 60" damping="0.01"/></default>
  <worldbody><geom name="floor" type="plane" size="3 3 0.1"/>)";
  for (int i = 0; i < n; i++) {
    char body[800];
    std::snprintf(body, sizeof(body),
                  R"(<body pos="%g %g %g" euler="0 %g 0"><freejoint/><geom fromto="-0.05 0 0 0.05 0 0" mass="0.5"/>
  <body pos="-0.05 0 0"><joint/><geom fromto="0 0 0 -0.02 0 -0.1" mass="0.1"/></body>
  <body pos="0.05 0 0"><joint/><geom fromto="0 0 0 0.02 0 -0.1" mass="0.1"/></body></body>)",
                  0.3 * (i % 6) - 0.75, 0.3 * (i / 6) - 0.45, 0.2 + 0.05 * (i / 6), (i % 3) * 8.0);
    xml += body;
  }
  return xml + "</worldbody></mujoco>";
}

TEST_F(WorkerTest, TwentyFourRagdollsGiveTheSynchronousResults) {
  ModelPtr m = LoadModelFromString(Ragdolls(24));
  const HookRun sync = RunHook(m.get(), {}, false, 300);
  const HookRun worker = RunHook(m.get(), {}, true, 300);
  // what the run is meant to hold (300 steps: 0.6 s)
  int touchdowns = 0, liftoffs = 0, groups = 0;
  for (const HookEvent& ev : sync.events) {
    touchdowns += ev.kind == EventKind::kTouchdown;
    liftoffs += ev.kind == EventKind::kLiftoff;
    groups += ev.kind == EventKind::kSimultaneous;
  }
  EXPECT_GE(touchdowns, 48);
  EXPECT_GE(liftoffs, 5);
  EXPECT_GE(groups, 20);
  ExpectSame(sync, worker, "24 ragdolls");
  HookOptions lazy;
  lazy.xi_on_demand = true;
  const HookRun lazy_sync = RunHook(m.get(), lazy, false, 300);
  const HookRun lazy_worker = RunHook(m.get(), lazy, true, 300);
  ExpectSame(lazy_sync, lazy_worker, "24 ragdolls, Xi on demand");
  EXPECT_EQ(lazy_sync.events.size(), sync.events.size());
}

// Reset in the middle of a run (the worker drained first): the same as the synchronous hook's
TEST_F(WorkerTest, ResetMidRunIsTheSynchronousOne) {
  ModelPtr m = LoadModelFromString(Balls(8));
  const HookRun sync = RunHook(m.get(), {}, false, 300, false, 40);
  const HookRun worker = RunHook(m.get(), {}, true, 300, false, 40);
  EXPECT_GT(sync.events.size(), 0u);
  ExpectSame(sync, worker, "reset at step 40");
}

// an error on the worker's thread (here a MuJoCo error raised by a control callback while the
// worker replays a step) is thrown on the caller's thread by a later Step or wait, with the
// records found before it delivered; the hook then starts afresh
std::thread::id main_thread;
void FailOffTheMainThread(const mjModel*, mjData*) {
  if (std::this_thread::get_id() != main_thread) mju_error("control callback failed on the worker");
}

TEST_F(WorkerTest, AWorkersErrorIsThrownOnTheCallersThread) {
  ModelPtr m = LoadModel(ModelPath("ball_drop.xml"));
  HookOptions options;
  options.worker_thread = true;
  options.worker_queue = 2;
  Hook hook(m.get(), options);
  DataPtr d(mj_makeData(m.get()));
  main_thread = std::this_thread::get_id();
  mjcb_control = FailOffTheMainThread;  // the worker's replay of the step calls it
  std::string message;
  int steps = 0;
  try {
    for (; steps < 2000; steps++) hook.Step(d.get());
    hook.Sync();
  } catch (const MujocoError& e) {
    message = e.what();
  }
  mjcb_control = nullptr;
  EXPECT_NE(message.find("control callback failed on the worker"), std::string::npos) << "no error after " << steps << " steps";
  EXPECT_LT(steps, 2000);
  // the hook goes on from the state reached, afresh
  const double t = d->time;
  for (int k = 0; k < 50; k++) hook.Step(d.get());
  hook.Sync();
  EXPECT_GT(d->time, t);
}

// destroying a hook whose queue is full (a slow worker: Φ of both kinds on 50 balls) returns
// promptly: the step in progress finishes, the queued ones are dropped
TEST_F(WorkerTest, DestructionWithAFullQueue) {
  ModelPtr m = LoadModelFromString(Balls(50));
  HookOptions options;
  options.worker_thread = true;
  options.worker_queue = 2;
  options.propagation = Propagation::kBoth;
  DataPtr d(mj_makeData(m.get()));
  for (int round = 0; round < 3; round++) {
    Hook hook(m.get(), options);
    for (int k = 0; k < 6; k++) hook.Step(d.get());
  }
  SUCCEED();
}

// A model of its own for the caller's inputs: a mocap paddle the caller moves (a ball bouncing on
// it), an actuated slider hopping on the floor under ctrl, and a ball on the floor the caller
// teleports. Its margins are the hook's to widen (sphere, box, plane).
constexpr const char* kInputsXml = R"(<mujoco><option timestep="0.002"/>
  <custom><numeric name="saltation_restitution" data="0.5"/></custom>
  <worldbody><geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="paddle" mocap="true" pos="0 0 0.2"><geom type="box" size="0.15 0.15 0.01"/></body>
    <body name="ball" pos="0.02 0 0.32"><freejoint/><geom type="sphere" size="0.04" mass="0.1"/></body>
    <body name="hopper" pos="0.6 0 0.06"><joint name="z" type="slide" axis="0 0 1"/>
      <geom type="sphere" size="0.05" mass="1"/></body>
    <body name="stone" pos="-0.6 0 0.05"><freejoint/><geom type="box" size="0.05 0.05 0.05" mass="0.5"/></body>
  </worldbody>
  <actuator><motor name="push" joint="z" gear="1"/></actuator></mujoco>)";

// the inputs at step k: the hopper pushed up in bursts, the paddle oscillating
void SetInputs(const mjModel*, mjData* d, int k) {
  d->ctrl[0] = k % 250 < 30 ? 40.0 : 0.0;
  d->mocap_pos[2] = 0.2 + 0.03 * std::sin(2 * M_PI * 3 * d->time);
}

// the caller's edits of d's state between steps: the stone lifted and thrown at step 300, the
// ball put back over the paddle at step 600, a push applied to the stone for a while
void EditState(const mjModel* m, mjData* d, int k) {
  if (k == 300) {
    d->qpos[m->jnt_qposadr[3] + 2] = 0.4;  // the stone's freejoint
    d->qvel[m->jnt_dofadr[3] + 0] = 0.5;
  }
  if (k == 600) {
    d->qpos[m->jnt_qposadr[0] + 0] = 0.01;  // the ball's
    d->qpos[m->jnt_qposadr[0] + 2] = 0.35;
    for (int i = 0; i < 6; i++) d->qvel[m->jnt_dofadr[0] + i] = 0;
  }
  d->xfrc_applied[6 * 4 + 0] = (k >= 700 && k < 720) ? 3.0 : 0.0;  // the stone's body
}

// The caller sets ctrl and moves the mocap body directly, or a Hook::controller does, and edits
// d's state between steps: the worker replays each step from what the caller left in d, so the
// records, the mode and d are the synchronous hook's bit for bit, and d is a bare mj_step's run
// with the same inputs and edits (its contact list included). (Checked to fail: with the mocap
// or the control left out of kWorkerStateBefore the replay diverges and the worker reports it.)
TEST_F(WorkerTest, TheCallersInputsAndEditsAreReplayed) {
  ModelPtr m = LoadModelFromString(kInputsXml);
  ASSERT_TRUE(m);
  const int steps = 1200;
  const CallerEdit direct = [](const mjModel* m, mjData* d, int k) {
    SetInputs(m, d, k);
    EditState(m, d, k);
  };
  const HookRun sync = RunHook(m.get(), {}, false, steps, false, -1, direct);
  const HookRun worker = RunHook(m.get(), {}, true, steps, false, -1, direct);
  ExpectSame(sync, worker, "inputs set by the caller");
  // events on the paddle (moved), the hopper (ctrl) and the stone (edited) all along the run
  int paddle = 0, hopper = 0, late = 0;
  const int paddle_geom = mj_name2id(m.get(), mjOBJ_BODY, "paddle"), hopper_body = mj_name2id(m.get(), mjOBJ_BODY, "hopper");
  for (const HookEvent& ev : sync.events) {
    if (ev.kind != EventKind::kTouchdown) continue;
    for (int g : {ev.contact.geom1, ev.contact.geom2}) {
      paddle += m->geom_bodyid[g] == paddle_geom;
      hopper += m->geom_bodyid[g] == hopper_body;
    }
    late += ev.time > 600 * m->opt.timestep;
  }
  EXPECT_GT(paddle, 2);
  EXPECT_GT(hopper, 2);
  EXPECT_GT(late, 2);

  // the same inputs from a Hook::controller (the caller still edits the state)
  int k_seen = 0;
  const Controller controller = [&k_seen](const mjModel* m, mjData* d) { SetInputs(m, d, k_seen++); };
  const CallerEdit edits = [](const mjModel* m, mjData* d, int k) { EditState(m, d, k); };
  const HookRun sync_c = RunHook(m.get(), {}, false, steps, false, -1, edits, controller);
  k_seen = 0;
  const HookRun worker_c = RunHook(m.get(), {}, true, steps, false, -1, edits, controller);
  ExpectSame(sync_c, worker_c, "inputs set by Hook::controller");
  EXPECT_EQ(Difference(sync.events, worker_c.events), "") << "the controller gives what the caller gave";

  // d is a bare run's: mj_step with the same inputs and edits
  DataPtr bare(mj_makeData(m.get()));
  for (int k = 0; k < steps; k++) {
    direct(m.get(), bare.get(), k);
    mj_step(m.get(), bare.get());
  }
  std::vector<mjtNum> state(mj_stateSize(m.get(), kWorkerStateBefore));
  mj_getState(m.get(), bare.get(), state.data(), kWorkerStateBefore);
  EXPECT_TRUE(state == worker.after) << "the worker hook's d is not the bare run's";
  EXPECT_EQ(bare->ncon, worker.ncon) << "the worker hook's d lists the bare run's contacts";
}

// a crowd of 120 bodies whose contacts fit a 400K arena while the hook's widened band does not:
// every step is retaken on the user's gaps (ArenaFallback), on the worker by its replay
std::string Crowd() {
  std::string xml = R"(<mujoco><size memory="400K"/><option timestep="0.002"/>
  <worldbody><geom type="plane" size="3 3 0.1"/>)";
  const char* geoms[] = {R"(<geom type="sphere" size="0.05"/>)", R"(<geom type="capsule" size="0.04 0.05"/>)",
                         R"(<geom type="box" size="0.05 0.05 0.05"/>)"};
  for (int i = 0; i < 120; i++) {
    char body[400];
    std::snprintf(body, sizeof(body), R"(<body pos="%g %g %g" euler="%d %d 0"><freejoint/>%s</body>)", (i % 8) * 0.13 - 0.5,
                  ((i / 8) % 5) * 0.13 - 0.3, 0.1 + 0.13 * (i / 40), (5 * i) % 30, (13 * i) % 30, geoms[i % 3]);
    xml += body;
  }
  return xml + "</worldbody></mujoco>";
}

TEST_F(WorkerTest, StepsWhoseBandFillsTheArenaAreRetakenByTheReplay) {
  ModelPtr m = LoadModelFromString(Crowd());
  ASSERT_TRUE(m);
  HookOptions options;
  options.xi_on_demand = true;
  const HookRun sync = RunHook(m.get(), options, false, 8);
  const HookRun worker = RunHook(m.get(), options, true, 8);
  EXPECT_EQ(sync.narrow_steps, 8);
  ExpectSame(sync, worker, "a crowd whose band fills the arena");
}

// A step the worker's replay does not reproduce (here a control callback that gives the worker's
// thread another control than the caller's) is a NumericalError naming the step's time and what
// differs, thrown on the caller's thread: never records computed from another trajectory than the
// caller's. (Checked to fail without the replay's comparison: no error, silently other numbers.)
std::thread::id caller_thread;
void OtherControlOffTheCallersThread(const mjModel*, mjData* d) {
  d->ctrl[0] = std::this_thread::get_id() == caller_thread ? 40.0 : 0.0;
}

TEST_F(WorkerTest, AReplayThatDivergesIsANumericalError) {
  ModelPtr m = LoadModelFromString(kInputsXml);
  ASSERT_TRUE(m);
  HookOptions options;
  options.worker_thread = true;
  Hook hook(m.get(), options);
  DataPtr d(mj_makeData(m.get()));
  caller_thread = std::this_thread::get_id();
  mjcb_control = OtherControlOffTheCallersThread;
  std::string message;
  try {
    for (int k = 0; k < 20; k++) hook.Step(d.get());
    hook.Sync();
  } catch (const NumericalError& e) {
    message = e.what();
  }
  mjcb_control = nullptr;
  EXPECT_NE(message.find("diverged from the caller's mj_step (qpos differs)"), std::string::npos) << message;
  EXPECT_NE(message.find("t = 0.000000 s"), std::string::npos) << message;
}

TEST_F(WorkerTest, AQueueOfNoStepsIsAConfigError) {
  ModelPtr m = LoadModel(ModelPath("ball_drop.xml"));
  HookOptions options;
  options.worker_thread = true;
  options.worker_queue = 0;
  EXPECT_THROW(Hook(m.get(), options), ConfigError);
}

}  // namespace
}  // namespace saltation::testing
