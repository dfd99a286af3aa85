// The engine plugin `saltation.events` loaded into MuJoCo as a user loads it
// (mj_loadPluginLibrary) and driven by plain mj_step: physics bit for bit that of the model
// without it, the same events and Ξ as the C++ Hook, the documented sensor values, MuJoCo's own
// evaluations (mj_forward, mjd_transitionFD, mj_resetData) told from steps, clear config errors,
// markers in the scene.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "saltation/event_json.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

constexpr double kG = 9.81;

// a ball (free joint, friction) thrown onto a plane and a ramp box; restitution 0.5 from the
// <custom> field; `plugin` adds the instance (with `config` lines) and its sensor
std::string Scene(bool plugin, const std::string& config = "") {
  std::string xml = R"(
<mujoco>
  <option gravity="0 0 -9.81" timestep="0.002"/>
  <custom><numeric name="saltation_restitution" data="0.5"/></custom>)";
  if (plugin) {
    xml += R"(
  <extension><plugin plugin="saltation.events"><instance name="events">)" + config + R"(</instance></plugin></extension>)";
  }
  xml += R"(
  <worldbody>
    <geom name="floor" type="plane" size="3 3 0.1"/>
    <geom name="ramp" type="box" size="0.3 0.3 0.05" pos="1.2 0 0.05" euler="0 -10 0"/>
    <body name="ball" pos="0 0 0.6">
      <freejoint/>
      <geom name="ball" type="sphere" size="0.1" mass="1"/>
    </body>
    <body name="cube" pos="-0.5 0.3 0.4" euler="20 10 0">
      <freejoint/>
      <geom name="cube" type="box" size="0.08 0.08 0.08" mass="0.5"/>
    </body>
  </worldbody>
  <keyframe><key name="throw" qpos="0 0 0.6 1 0 0 0 -0.5 0.3 0.4 1 0 0 0" qvel="1.5 0 1 0 0 0 0 0 0 0 0 0"/></keyframe>)";
  if (plugin) xml += R"(
  <sensor><plugin name="saltation" instance="events"/></sensor>)";
  xml += "\n</mujoco>";
  return xml;
}

// a vertical ball dropped from rest with its bottom `height` above the floor
std::string VerticalDrop(double height, double restitution, const std::string& config = "") {
  char buf[1600];
  std::snprintf(buf, sizeof(buf), R"(
<mujoco>
  <option gravity="0 0 -9.81" timestep="0.0005"/>
  <extension><plugin plugin="saltation.events"><instance name="events">
    <config key="restitution" value="%g"/>%s</instance></plugin></extension>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1" condim="1"/>
    <body name="ball" pos="0 0 %.17g">
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.1" mass="1" condim="1"/>
    </body>
  </worldbody>
  <sensor><plugin name="saltation" instance="events"/></sensor>
</mujoco>)", restitution, config.c_str(), 0.1 + height);
  return buf;
}

std::string TempPath(const char* name) {
  return ::testing::TempDir() + "saltation_plugin_" + name + "_" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".jsonl";
}

std::vector<std::string> Lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// the sensor's values
std::vector<double> Sensor(const mjModel* m, const mjData* d) {
  for (int i = 0; i < m->nsensor; i++) {
    if (m->sensor_type[i] == mjSENS_PLUGIN) {
      return std::vector<double>(d->sensordata + m->sensor_adr[i],
                                 d->sensordata + m->sensor_adr[i] + m->sensor_dim[i]);
    }
  }
  return {};
}

void ResetToKey(const mjModel* m, mjData* d) { mj_resetDataKeyframe(m, d, 0); }

class PluginTest : public MujocoTest {
 protected:
  static void SetUpTestSuite() { mj_loadPluginLibrary(SALTATION_PLUGIN_LIBRARY); }
};

TEST_F(PluginTest, IsRegisteredUnderItsName) {
  int slot = -1;
  const mjpPlugin* p = mjp_getPlugin("saltation.events", &slot);
  ASSERT_NE(p, nullptr);
  EXPECT_GE(slot, 0);
  EXPECT_TRUE(p->capabilityflags & mjPLUGIN_SENSOR);
}

// Physics untouched: 3000 steps of the scene with the plugin and without it, bit for bit.
TEST_F(PluginTest, PhysicsIsBitwiseThatOfTheModelWithoutIt) {
  ModelPtr with = LoadModelFromString(Scene(true));
  ModelPtr without = LoadModelFromString(Scene(false));
  DataPtr dw(mj_makeData(with.get())), dn(mj_makeData(without.get()));
  ResetToKey(with.get(), dw.get());
  ResetToKey(without.get(), dn.get());
  for (int k = 0; k < 3000; k++) {
    mj_step(with.get(), dw.get());
    mj_step(without.get(), dn.get());
    ASSERT_EQ(std::memcmp(dw->qpos, dn->qpos, sizeof(mjtNum) * with->nq), 0) << "step " << k;
    ASSERT_EQ(std::memcmp(dw->qvel, dn->qvel, sizeof(mjtNum) * with->nv), 0) << "step " << k;
  }
  EXPECT_GE(Sensor(with.get(), dw.get())[0], 3) << "the run has events";
}

// The plugin (inside mj_step) and the C++ Hook (instead of mj_step) on the same model: the same
// records, byte for byte as JSON (times, Ξ, DΔ … to the last digit), and the sensor's last values
// are the Hook's last event's.
TEST_F(PluginTest, GivesTheHooksEventsBitForBit) {
  const std::string log = TempPath("log");
  std::remove(log.c_str());
  ModelPtr m = LoadModelFromString(Scene(true, "<config key=\"log\" value=\"" + log + "\"/>"));
  // the hook's own data on the same model without the log (its data would log to the same file)
  ModelPtr mh = LoadModelFromString(Scene(true));
  DataPtr d(mj_makeData(m.get())), dh(mj_makeData(mh.get()));
  ResetToKey(m.get(), d.get());
  ResetToKey(mh.get(), dh.get());
  Hook hook(mh.get());
  for (int k = 0; k < 3000; k++) {
    mj_step(m.get(), d.get());
    hook.Step(dh.get());
  }
  mj_forward(m.get(), d.get());  // the plugin follows the last step at the next evaluation
  ASSERT_EQ(std::memcmp(d->qpos, dh->qpos, sizeof(mjtNum) * m->nq), 0);
  // the hook found its last events one step after the plugin's run: compare what both have
  std::vector<std::string> lines = Lines(log);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].rfind("{\"kind\":\"header\",", 0), 0u) << lines[0];  // the log's header, then the records
  EXPECT_NE(lines[0].find("\"source\":\"plugin\""), std::string::npos);
  lines.erase(lines.begin());
  std::vector<std::string> expected;
  for (const HookEvent& ev : hook.events()) expected.push_back(HookEventToJson(hook.rigid_model(), ev));
  ASSERT_GE(expected.size(), 4u);
  ASSERT_EQ(lines.size(), expected.size());
  for (size_t i = 0; i < lines.size(); i++) EXPECT_EQ(lines[i], expected[i]) << "record " << i;

  const std::vector<double> s = Sensor(m.get(), d.get());
  ASSERT_EQ(s.size(), 11u);
  const HookEvent* last = nullptr;
  int with_xi = 0, others = 0;
  for (const HookEvent& ev : hook.events()) {
    if (ev.has_xi) {
      with_xi++;
      last = &ev;
    } else {
      others++;
    }
  }
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(s[0], with_xi);
  EXPECT_EQ(s[1], last->time);
  EXPECT_EQ(s[2], last->rigid.xi.Norm());
  EXPECT_EQ(s[3], last->rigid.xi.transversality_rel);
  EXPECT_EQ(s[4], last->grazing ? 1 : 0);
  EXPECT_EQ(s[5], hook.mode().contacts.size());
  EXPECT_EQ(s[6], others);
  EXPECT_EQ(s[7], 0) << "every state followed from the one before";
  EXPECT_EQ(s[8], 0) << "no propagation asked for";
  EXPECT_EQ(s[9], 0);
  EXPECT_EQ(s[10], 0);
  std::remove(log.c_str());
}

// propagation "both": the sensor's Φ values are the Hook's Φ on the same run, bit for bit
TEST_F(PluginTest, PublishesTheHooksPhiWithPropagationBoth) {
  ModelPtr m = LoadModelFromString(VerticalDrop(0.2, 0.5, "<config key=\"propagation\" value=\"both\"/>"));
  ModelPtr mh = LoadModelFromString(VerticalDrop(0.2, 0.5));
  DataPtr d(mj_makeData(m.get())), dh(mj_makeData(mh.get()));
  HookOptions options;
  options.propagation = Propagation::kBoth;
  options.restitution = RestitutionSource::kOverride;
  options.restitution_override = 0.5;
  Hook hook(mh.get(), options);
  for (int k = 0; k < 800; k++) {
    mj_step(m.get(), d.get());
    if (k < 799) hook.Step(dh.get());  // the plugin has followed one step less than mj_step ran
  }
  const std::vector<double> s = Sensor(m.get(), d.get());
  ASSERT_GE(s[0], 1);
  ASSERT_GT(hook.phi_rigid().size(), 0);
  EXPECT_EQ(s[8], std::log10(hook.phi_rigid().norm()) + hook.phi_rigid_log_scale() / std::log(10.0));
  EXPECT_EQ(s[9], std::log10(hook.phi_compliant().norm()) + hook.phi_compliant_log_scale() / std::log(10.0));
  const double ratio = std::exp(hook.phi_rigid_log_scale() - hook.phi_compliant_log_scale());
  EXPECT_EQ(s[10], (ratio * hook.phi_rigid() - hook.phi_compliant()).norm() / hook.phi_compliant().norm());
  EXPECT_GT(s[10], 0);
}

// A vertical drop onto the floor (restitution 0.6 from the config): the first touchdown at
// sqrt(2h/g) to the accuracy of MuJoCo's own trajectory, head-on (one DOF: the grazing measure,
// the cosine in the kinetic metric, is 1), and
// ‖Ξ‖₂ of the 2×2 Ξ = [[−e, 0], [−(1+e) g / v⁻, −e]] at v⁻ = −g t.
TEST_F(PluginTest, SensorReadsTheClosedFormOfAVerticalDrop) {
  const double h = 0.3, e = 0.6;
  ModelPtr m = LoadModelFromString(VerticalDrop(h, e));
  DataPtr d(mj_makeData(m.get()));
  const double t_td = std::sqrt(2 * h / kG);
  std::vector<double> s;
  while (d->time < t_td + 0.01) {
    mj_step(m.get(), d.get());
    s = Sensor(m.get(), d.get());
    if (s[0] >= 1) break;
  }
  ASSERT_EQ(s[0], 1);
  // MuJoCo's semi-implicit Euler runs ahead of the parabola by dt/2 (its own error, as the hook's)
  EXPECT_NEAR(s[1] - t_td, -m->opt.timestep / 2, 1e-5);
  const double v = -kG * s[1];
  EXPECT_NEAR(s[3], 1, 1e-15);
  Eigen::Matrix2d xi;
  xi << -e, 0, -(1 + e) * kG / v, -e;
  Eigen::JacobiSVD<Eigen::Matrix2d> svd(xi);
  std::printf("[ plugin drop ] t - sqrt(2h/g) %.2e s, transversality %.2e, |Xi| %.2e relative\n", s[1] - t_td,
              s[3] - 1, s[2] / svd.singularValues()(0) - 1);
  EXPECT_NEAR(s[2], svd.singularValues()(0), 1e-13 * svd.singularValues()(0));
  EXPECT_EQ(s[4], 0);
}

// MuJoCo's own evaluations between steps — mj_forward, mjd_transitionFD with sensor derivatives
// (which evaluates the plugin at perturbed states and controls) — change nothing: the same
// records, byte for byte, as plain stepping, and no discontinuity.
TEST_F(PluginTest, ForwardAndTransitionFDBetweenStepsAreNotSteps) {
  const std::string log_plain = TempPath("plain"), log_probed = TempPath("probed");
  std::remove(log_plain.c_str());
  std::remove(log_probed.c_str());
  ModelPtr plain = LoadModelFromString(Scene(true, "<config key=\"log\" value=\"" + log_plain + "\"/>"));
  ModelPtr probed = LoadModelFromString(Scene(true, "<config key=\"log\" value=\"" + log_probed + "\"/>"));
  DataPtr dp(mj_makeData(plain.get())), dq(mj_makeData(probed.get()));
  ResetToKey(plain.get(), dp.get());
  ResetToKey(probed.get(), dq.get());
  const int nx = 2 * probed->nv + probed->na, ns = probed->nsensordata, nu = std::max(1, static_cast<int>(probed->nu));
  std::vector<mjtNum> A(nx * nx), B(nx * nu), C(ns * nx), D(ns * nu);
  for (int k = 0; k < 1200; k++) {
    mj_step(plain.get(), dp.get());
    if (k % 3 == 0) mj_forward(probed.get(), dq.get());
    if (k % 5 == 0) mjd_transitionFD(probed.get(), dq.get(), 1e-6, 1, A.data(), B.data(), C.data(), D.data());
    mj_step(probed.get(), dq.get());
  }
  mj_forward(plain.get(), dp.get());
  mj_forward(probed.get(), dq.get());
  ASSERT_EQ(std::memcmp(dp->qpos, dq->qpos, sizeof(mjtNum) * plain->nq), 0);
  const std::vector<std::string> a = Lines(log_plain), b = Lines(log_probed);
  ASSERT_GE(a.size(), 3u);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); i++) EXPECT_EQ(a[i], b[i]) << "record " << i;
  EXPECT_EQ(Sensor(probed.get(), dq.get()), Sensor(plain.get(), dp.get()));
  EXPECT_EQ(Sensor(probed.get(), dq.get())[7], 0);
  std::remove(log_plain.c_str());
  std::remove(log_probed.c_str());
}

// mj_resetData starts the count again, and the run after it gives the records of a fresh run;
// a state edited between steps is a discontinuity (no event across it), counted in value [7].
TEST_F(PluginTest, ResetStartsAgainAndAnEditIsADiscontinuity) {
  const std::string log_fresh = TempPath("fresh"), log_reset = TempPath("reset");
  std::remove(log_fresh.c_str());
  std::remove(log_reset.c_str());
  ModelPtr fresh = LoadModelFromString(Scene(true, "<config key=\"log\" value=\"" + log_fresh + "\"/>"));
  ModelPtr reset = LoadModelFromString(Scene(true, "<config key=\"log\" value=\"" + log_reset + "\"/>"));
  DataPtr df(mj_makeData(fresh.get())), dr(mj_makeData(reset.get()));
  ResetToKey(fresh.get(), df.get());
  for (int k = 0; k < 1000; k++) mj_step(fresh.get(), df.get());
  mj_forward(fresh.get(), df.get());

  ResetToKey(reset.get(), dr.get());
  for (int k = 0; k < 700; k++) mj_step(reset.get(), dr.get());
  mj_forward(reset.get(), dr.get());
  const size_t before = Lines(log_reset).size();
  ASSERT_GE(Sensor(reset.get(), dr.get())[0], 1);
  ResetToKey(reset.get(), dr.get());
  mj_forward(reset.get(), dr.get());
  EXPECT_EQ(Sensor(reset.get(), dr.get())[0], 0) << "mj_resetData starts the count again";
  for (int k = 0; k < 1000; k++) mj_step(reset.get(), dr.get());
  mj_forward(reset.get(), dr.get());
  const std::vector<std::string> all = Lines(log_reset);
  std::vector<std::string> after(all.begin() + before, all.end()), fresh_lines = Lines(log_fresh);
  ASSERT_FALSE(fresh_lines.empty());
  fresh_lines.erase(fresh_lines.begin());  // the header: a log has one, at its start
  ASSERT_EQ(after.size(), fresh_lines.size());
  for (size_t i = 0; i < after.size(); i++) EXPECT_EQ(after[i], fresh_lines[i]) << "record " << i;
  EXPECT_EQ(Sensor(reset.get(), dr.get()), Sensor(fresh.get(), df.get()));

  // an edit: the ball's velocity changed between two steps
  dr->qvel[2] += 0.5;
  mj_step(reset.get(), dr.get());
  mj_step(reset.get(), dr.get());
  EXPECT_EQ(Sensor(reset.get(), dr.get())[7], 1);
  std::remove(log_fresh.c_str());
  std::remove(log_reset.c_str());
}

// MuJoCo's own reset of a diverging state inside plain mj_step (mj_resetData: the plugin's reset
// callback) restarts the plugin: it goes on with no error, no abort and no event across the reset
TEST_F(PluginTest, MujocosResetOfADivergingStateRestartsIt) {
  ModelPtr m = LoadModelFromString(R"(
<mujoco>
  <option timestep="0.01" gravity="0 0 -9.81"/>
  <extension><plugin plugin="saltation.events"><instance name="events"/></plugin></extension>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 .1"/>
    <body name="ball" pos="0 0 0.5">
      <joint name="z" type="slide" axis="0 0 1" stiffness="1e7" springref="0.5"/>
      <geom name="ball" size="0.1" mass="0.001"/>
    </body>
  </worldbody>
  <sensor><plugin name="saltation" instance="events"/></sensor>
</mujoco>)");
  DataPtr d(mj_makeData(m.get()));
  for (int k = 0; k < 20; k++) mj_step(m.get(), d.get());
  EXPECT_GT(d->warning[mjWARN_BADQACC].number, 0);
  const std::vector<double> s = Sensor(m.get(), d.get());
  EXPECT_EQ(s[0], 0);
  EXPECT_EQ(s[6], 0);
  TakeMujocoWarnings();  // MuJoCo's own instability warnings are the point here
}

// A bad value, an unknown key or a log that cannot be opened is a load error naming the key (the
// compiler makes an mjData, so the log is opened at load time).
TEST_F(PluginTest, BadConfigIsAClearError) {
  EXPECT_NE(CompileError(Scene(true, "<config key=\"grazing\" value=\"abc\"/>"))
                .find("saltation.events: config 'grazing' must be a number, not 'abc'"),
            std::string::npos);
  EXPECT_NE(CompileError(Scene(true, "<config key=\"restitution\" value=\"1.5\"/>"))
                .find("config 'restitution' must be in [0, 1] or 'auto', not '1.5'"),
            std::string::npos);
  EXPECT_NE(CompileError(Scene(true, "<config key=\"propagation\" value=\"all\"/>"))
                .find("config 'propagation' must be events, rigid, compliant or both, not 'all'"),
            std::string::npos);
  const std::string unknown = CompileError(Scene(true, "<config key=\"grazin\" value=\"0.1\"/>"));
  EXPECT_NE(unknown.find("grazin"), std::string::npos) << unknown;

  const std::string log = CompileError(Scene(true, "<config key=\"log\" value=\"/nonexistent/dir/x.jsonl\"/>"));
  EXPECT_NE(log.find("saltation.events: cannot open log '/nonexistent/dir/x.jsonl': No such file or directory"),
            std::string::npos) << log;

  // and after those errors the plugin works (MuJoCo's error path may skip destructors: nothing of
  // the plugin's may depend on them)
  ModelPtr m = LoadModelFromString(VerticalDrop(0.1, 0.5));
  DataPtr d(mj_makeData(m.get()));
  for (int k = 0; k < 600; k++) mj_step(m.get(), d.get());
  EXPECT_EQ(Sensor(m.get(), d.get())[0], 1);
}

// The visualize callback draws a marker at each recent event's contact point (mjv_updateScene,
// as simulate and mujoco.viewer call it).
TEST_F(PluginTest, DrawsMarkersIntoTheScene) {
  ModelPtr m = LoadModelFromString(VerticalDrop(0.2, 0.5));
  DataPtr d(mj_makeData(m.get()));
  mjvScene scn;
  mjv_defaultScene(&scn);
  mjv_makeScene(m.get(), &scn, 1000);
  mjvOption opt;
  mjv_defaultOption(&opt);
  mjvCamera cam;
  mjv_defaultCamera(&cam);
  mjvPerturb pert;
  mjv_defaultPerturb(&pert);
  auto decor = [&] {
    mjv_updateScene(m.get(), d.get(), &opt, &pert, &cam, mjCAT_ALL, &scn);
    int n = 0;
    for (int i = 0; i < scn.ngeom; i++) {
      if (scn.geoms[i].category == mjCAT_DECOR && scn.geoms[i].type == mjGEOM_SPHERE) n++;
    }
    return n;
  };
  const int before = decor();
  while (Sensor(m.get(), d.get())[0] < 1) mj_step(m.get(), d.get());
  const int after = decor();
  EXPECT_EQ(after, before + 1);
  mjv_freeScene(&scn);
}

}  // namespace
}  // namespace saltation::testing
