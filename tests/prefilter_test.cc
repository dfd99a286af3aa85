// The release pre-filter of the hook's per-step rigid-force guard (release_prefilter.h): the same
// events with the filter on (the default) and off, on every model of the library, MuJoCo's
// humanoid and 50 balls; ReleasePrefilter's contract on a resting ball; the measured restitution's
// release check on the new contact's island alone.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_families.h"
#include "release_prefilter.h"
#include "saltation/event_kind.h"
#include "saltation/hook.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

class PrefilterTest : public MujocoTest {};

struct Run {
  std::vector<HookEvent> events;
  long skipped = 0, steps = 0;
};

// the hook (eager Ξ) from the model's "start" keyframe (else its reset state) for `seconds`
Run RunHook(const mjModel* source, bool prefilter, double seconds) {
  ModelPtr m(mj_copyModel(nullptr, source));
  HookOptions options;
  options.release_prefilter = prefilter;
  Hook hook(m.get(), options);
  DataPtr d(mj_makeData(m.get()));
  const int key = mj_name2id(m.get(), mjOBJ_KEY, "start");
  if (key >= 0) mj_resetDataKeyframe(m.get(), d.get(), key);
  const long steps = std::lround(seconds / m->opt.timestep);
  for (long k = 0; k < steps; k++) hook.Step(d.get());
  Run run;
  run.events = hook.events();
  run.skipped = hook.guard_solves_skipped();
  run.steps = hook.guard_steps();
  return run;
}

// the number of records that differ (kind, contact, time to 1e-12 s, Ξ to 1e-12 relative)
int Differences(const Run& a, const Run& b, bool report) {
  int differ = std::abs(static_cast<int>(a.events.size()) - static_cast<int>(b.events.size()));
  if (differ && report) ADD_FAILURE() << a.events.size() << " records against " << b.events.size();
  const size_t n = std::min(a.events.size(), b.events.size());
  for (size_t i = 0; i < n; i++) {
    const HookEvent &x = a.events[i], &y = b.events[i];
    bool same = x.kind == y.kind && x.contact.geom1 == y.contact.geom1 && x.contact.geom2 == y.contact.geom2 &&
                std::abs(x.time - y.time) <= 1e-12 && x.has_xi == y.has_xi;
    if (same && x.has_xi) {
      const Eigen::MatrixXd X = x.rigid.xi.Dense(), Y = y.rigid.xi.Dense();
      same = X.rows() == Y.rows() && X.cols() == Y.cols() &&
             (X - Y).cwiseAbs().maxCoeff() <= 1e-12 * std::max(1.0, X.cwiseAbs().maxCoeff());
    }
    if (!same) {
      differ++;
      if (report) {
        ADD_FAILURE() << "record " << i << ": " << EventKindName(x.kind) << " at " << x.time << " s against "
                      << EventKindName(y.kind) << " at " << y.time << " s";
      }
    }
  }
  return differ;
}

void ExpectSameEvents(const std::string& name, const mjModel* m, double seconds, long* skipped, long* steps) {
  SCOPED_TRACE(name);
  const Run on = RunHook(m, true, seconds);
  const Run off = RunHook(m, false, seconds);
  std::printf("[ prefilter ] %-28s %3zu records, solves skipped on %ld of %ld steps with a mode\n", name.c_str(),
              on.events.size(), on.skipped, on.steps);
  EXPECT_EQ(off.skipped, 0);
  Differences(on, off, true);
  *skipped += on.skipped;
  *steps += on.steps;
}

TEST_F(PrefilterTest, SameEventsOnAndOffOnEveryModel) {
  long skipped = 0, steps = 0;
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(SALTATION_SOURCE_DIR "/models")) {
    if (entry.path().extension() == ".xml") files.push_back(entry.path().string());
  }
  for (const auto& entry : std::filesystem::directory_iterator(SALTATION_SOURCE_DIR "/tests/models")) {
    if (entry.path().extension() == ".xml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  for (const std::string& file : files) {
    char error[1000] = "";
    ModelPtr m(mj_loadXML(file.c_str(), nullptr, error, sizeof(error)));
    ASSERT_TRUE(m) << file << ": " << error;
    ExpectSameEvents(std::filesystem::path(file).filename().string(), m.get(), 3.0, &skipped, &steps);
  }
  {
    char error[1000] = "";
    ModelPtr m(mj_loadXML(SALTATION_MUJOCO_MODELS "/humanoid/humanoid.xml", nullptr, error, sizeof(error)));
    ASSERT_TRUE(m) << error;
    ExpectSameEvents("humanoid", m.get(), 3.0, &skipped, &steps);
  }
  {
    ModelPtr m = LoadModelFromString(families::Balls(50));
    ASSERT_TRUE(m);
    ExpectSameEvents("balls50", m.get(), 1.0, &skipped, &steps);
  }
  // the filter does skip (else the comparison would prove nothing)
  EXPECT_GT(skipped, steps / 2);
}

// ReleasePrefilter's contract on a ball resting on the floor (1 kg, g = 9.81: the share of its one
// contact is 9.81 N): skipped only once a solve has seen λ_n agree with MuJoCo's f_n, never below
// half the share, never without gravity
TEST_F(PrefilterTest, SkipsOnlySteadyContactsFarFromRelease) {
  const std::string ball = "<mujoco><option gravity='0 0 GRAVITY'/><worldbody><geom type='plane' size='5 5 0.1'/>"
                           "<body pos='0 0 0.1'><freejoint/><geom type='sphere' size='0.1' mass='1'/></body>"
                           "</worldbody></mujoco>";
  auto resting = [&](const std::string& gravity, ModelPtr& m, DataPtr& d) {
    std::string xml = ball;
    xml.replace(xml.find("GRAVITY"), 7, gravity);
    m = LoadModelFromString(xml);
    ASSERT_TRUE(m);
    d.reset(mj_makeData(m.get()));
    if (gravity == "0") d->xfrc_applied[6 * 1 + 2] = -9.81;  // pressed on the floor by a force instead
    for (int k = 0; k < 1000; k++) mj_step(m.get(), d.get());
  };
  ModelPtr m;
  DataPtr d;
  resting("-9.81", m, d);
  Model model(m.get());
  std::vector<ContactPoint> points;
  ListContacts(model, d.get(), points);
  ASSERT_EQ(points.size(), 1u);
  const std::vector<ContactId> ids = {points[0].id};
  const std::vector<int> match = {0};
  mjtNum f[6];
  mj_contactForce(m.get(), d.get(), points[0].mj_index, f);
  EXPECT_NEAR(f[0], 9.81, 1e-3);  // at rest MuJoCo carries the weight
  std::vector<char> skip;
  Eigen::VectorXd force;
  {
    ReleasePrefilter filter(m.get(), 1e-9, true);
    EXPECT_EQ(filter.Decide(m.get(), d.get(), ids, points, match, skip, force), 0);  // never solved yet
    force(0) = 9.81;  // the rigid λ_n agrees with f_n
    filter.Solved(ids, skip, force);
    EXPECT_EQ(filter.Decide(m.get(), d.get(), ids, points, match, skip, force), 1);
    EXPECT_EQ(force(0), 9.81);  // the stand-in: the last solved λ_n
    skip.assign(1, 0);
    force(0) = 9.81 * 0.9;  // a rigid λ_n 10% of the share away from f_n, λ unknown a step before
    filter.Solved(ids, skip, force);
    EXPECT_EQ(filter.Decide(m.get(), d.get(), ids, points, match, skip, force), 0);
  }
  {
    ReleasePrefilter filter(m.get(), 1e-9, true);
    filter.Decide(m.get(), d.get(), ids, points, match, skip, force);
    force(0) = 0.45 * 9.81;  // below half the share (and far from f_n): near release
    filter.Solved(ids, skip, force);
    EXPECT_EQ(filter.Decide(m.get(), d.get(), ids, points, match, skip, force), 0);
    force(0) = 0.45 * 9.81;  // the same λ_n one step later: steady, still below half the share
    skip.assign(1, 0);
    filter.Solved(ids, skip, force);
    EXPECT_EQ(filter.Decide(m.get(), d.get(), ids, points, match, skip, force), 0);
  }
  {
    ReleasePrefilter filter(m.get(), 1e-9, false);  // off
    filter.Decide(m.get(), d.get(), ids, points, match, skip, force);
    force(0) = 9.81;
    filter.Solved(ids, skip, force);
    EXPECT_EQ(filter.Decide(m.get(), d.get(), ids, points, match, skip, force), 0);
  }
  // without gravity there is no weight to compare with: never skipped (the ball pressed by a force)
  ModelPtr m0;
  DataPtr d0;
  resting("0", m0, d0);
  Model model0(m0.get());
  ReleasePrefilter filter(m0.get(), 1e-9, true);
  std::vector<ContactPoint> points0;
  ListContacts(model0, d0.get(), points0);
  ASSERT_EQ(points0.size(), 1u);
  const std::vector<ContactId> ids0 = {points0[0].id};
  mj_contactForce(m0.get(), d0.get(), points0[0].mj_index, f);
  EXPECT_NEAR(f[0], 9.81, 1e-3);
  filter.Decide(m0.get(), d0.get(), ids0, points0, match, skip, force);
  force(0) = 9.81;
  filter.Solved(ids, skip, force);
  EXPECT_EQ(filter.Decide(m0.get(), d0.get(), ids0, points0, match, skip, force), 0);
}

// The measured restitution's release check (ContactTracker::MeasureRestitution) on the new
// contact's island alone: ReleasePullingInIsland gives ReleasePulling's mode (contacts, order,
// frictionless flags) when nothing outside the island pulls, and leaves the other islands alone
TEST_F(PrefilterTest, ReleasePullingInIslandMatchesTheWholeMode) {
  ModelPtr m = LoadModelFromString(families::Balls(3));
  ASSERT_TRUE(m);
  DataPtr d(mj_makeData(m.get()));
  for (int k = 0; k < 1000; k++) mj_step(m.get(), d.get());  // all three at rest on the floor
  Model model(m.get());
  Data data(model);
  const State x = StateFromData(m.get(), d.get());
  EvaluatePosition(model, data.main(), x.qpos.data());
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  // the floor's (the widened detection band also lists the balls' near-contacts with each other)
  points.erase(std::remove_if(points.begin(), points.end(), [](const ContactPoint& p) { return p.id.geom1 != 0; }),
               points.end());
  ASSERT_EQ(points.size(), 3u);
  // ball 1's contact, first in a mode holding balls 0 and 2 (the order must be kept)
  auto ball_of = [&](const ContactPoint& p) { return m->geom_bodyid[p.id.geom2] - 1; };
  std::sort(points.begin(), points.end(), [&](const ContactPoint& a, const ContactPoint& b) { return ball_of(a) < ball_of(b); });
  Mode with;
  with.contacts = {points[1].id, points[0].id, points[2].id};
  const double tol = DefaultForceTolerance(m.get());
  auto pull = [&](int ball, double up) {
    for (mjData* w : {data.main(), data.aux()}) w->xfrc_applied[6 * (ball + 1) + 2] = up;
  };
  auto same = [](const Mode& a, const Mode& b) {
    if (a.contacts.size() != b.contacts.size()) return false;
    for (size_t k = 0; k < a.contacts.size(); k++) {
      if (!a.contacts[k].SamePair(b.contacts[k]) || a.contacts[k].anchor != b.contacts[k].anchor ||
          a.contacts[k].frictionless != b.contacts[k].frictionless) return false;
    }
    return true;
  };
  for (double up : {0.0, 20.0}) {  // resting; ball 1 pulled up by more than its weight (9.81 N)
    SCOPED_TRACE(up);
    pull(1, up);
    Mode whole = with, island = with;
    const std::vector<ContactId> a = ReleasePulling(model, data, x, whole, tol, nullptr);
    const std::vector<ContactId> b = ReleasePullingInIsland(model, data, x, island, with.contacts[0], tol);
    EXPECT_EQ(whole.contacts.size(), up > 0 ? 2u : 3u);
    EXPECT_TRUE(same(whole, island));
    EXPECT_EQ(a.size(), b.size());
  }
  // a pulling contact on another island (ball 0) is not its business: only the whole mode drops it
  pull(1, 0);
  pull(0, 20);
  Mode whole = with, island = with;
  ReleasePulling(model, data, x, whole, tol, nullptr);
  ReleasePullingInIsland(model, data, x, island, with.contacts[0], tol);
  EXPECT_EQ(whole.contacts.size(), 2u);
  EXPECT_EQ(island.contacts.size(), 3u);
}

}  // namespace
}  // namespace saltation::testing
