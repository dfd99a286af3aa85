// The hook's worker thread (HookOptions::worker_thread): the same records, Ξ, Φ and mode as the
// synchronous hook bit for bit, on every model of the suite and on a pile of 50 balls; on_event on
// the caller's thread in time order; a worker's error thrown on the caller's thread; Reset mid-run;
// destruction with a full queue.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

namespace saltation::testing {
namespace {

// bit equality of two matrices (NaN included: what the sync hook left NaN must be NaN)
bool SameBits(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0);
}

bool SameContact(const ContactId& a, const ContactId& b) {
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
    if (!SameContact(a.contact, b.contact)) return at + "contact";
    if (a.group != b.group || a.group_size != b.group_size) return at + "group";
    if (a.has_xi != b.has_xi || a.xi_pending != b.xi_pending || a.grazing != b.grazing) return at + "flags";
    if (!SameBits(a.point, b.point)) return at + "point";
    if (a.has_xi && !a.xi_pending && !SameBits(a.rigid.xi.Dense(), b.rigid.xi.Dense())) return at + "Xi";
    if (!SameBits(a.composite_first, b.composite_first) || !SameBits(a.composite_reverse, b.composite_reverse)) {
      return at + "composites";
    }
    if (std::memcmp(&a.restitution, &b.restitution, sizeof(double)) != 0) return at + "restitution";
  }
  return "";
}

std::string ModeDifference(const Mode& a, const Mode& b) {
  if (a.contacts.size() != b.contacts.size()) return "mode sizes differ";
  for (size_t k = 0; k < a.contacts.size(); k++) {
    if (!SameContact(a.contacts[k], b.contacts[k])) return "mode contact " + std::to_string(k) + " differs";
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
};

HookRun RunHook(const mjModel* m, HookOptions options, bool worker, int steps, bool complete_in_handler = false,
            int reset_at = -1) {
  options.worker_thread = worker;
  options.worker_queue = 3;
  Hook hook(m, options);
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
    if (k == reset_at) hook.Reset(d.get());
    hook.Step(d.get());
  }
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

// Reset in the middle of a run (the worker drained first): the same as the synchronous hook's
TEST_F(WorkerTest, ResetMidRunIsTheSynchronousOne) {
  ModelPtr m = LoadModelFromString(Balls(8));
  const HookRun sync = RunHook(m.get(), {}, false, 300, false, 40);
  const HookRun worker = RunHook(m.get(), {}, true, 300, false, 40);
  EXPECT_GT(sync.events.size(), 0u);
  ExpectSame(sync, worker, "reset at step 40");
}

// an error on the worker's thread (here a MuJoCo error raised by a control callback while the
// worker re-simulates a step) is thrown on the caller's thread by a later Step or wait, with the
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
  mjcb_control = FailOffTheMainThread;  // the worker's re-simulation (a localisation) calls it
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

TEST_F(WorkerTest, AQueueOfNoStepsIsAConfigError) {
  ModelPtr m = LoadModel(ModelPath("ball_drop.xml"));
  HookOptions options;
  options.worker_thread = true;
  options.worker_queue = 0;
  EXPECT_THROW(Hook(m.get(), options), ConfigError);
}

}  // namespace
}  // namespace saltation::testing
