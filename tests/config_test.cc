// Configuration from MJCF <custom> fields, and runs on models without contacts.
#include <gmock/gmock.h>

#include "test_models.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

using ::testing::HasSubstr;

std::string WithCustom(const std::string& custom) {
  return R"(
<mujoco>
  <custom>)" + custom + R"(</custom>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body pos="0 0 1"><freejoint/><geom name="ball" type="sphere" size="0.1"/></body>
    <body pos="1 0 1"><freejoint/><geom type="sphere" size="0.1"/></body>
  </worldbody>
</mujoco>)";
}

class Config : public MujocoTest {};

TEST_F(Config, RestitutionDefaultsToZeroWithoutCustomFields) {
  ModelPtr m = LoadModelFromString(WithCustom(""));
  Model model(m.get());
  for (int g = 0; g < m->ngeom; g++) EXPECT_EQ(model.GeomRestitution(g), 0.0);
}

TEST_F(Config, PerGeomValueOverridesModelDefaultAndPairsTakeTheLarger) {
  ModelPtr m = LoadModelFromString(WithCustom(
      R"(<numeric name="saltation_restitution" data="0.25"/>
         <numeric name="saltation_restitution:ball" data="0.75"/>)"));
  Model model(m.get());
  const int floor = mj_name2id(m.get(), mjOBJ_GEOM, "floor");
  const int ball = mj_name2id(m.get(), mjOBJ_GEOM, "ball");
  EXPECT_EQ(model.GeomRestitution(floor), 0.25);
  EXPECT_EQ(model.GeomRestitution(ball), 0.75);
  EXPECT_EQ(model.GeomRestitution(2), 0.25);  // the unnamed sphere keeps the default
  const RestitutionTable restitution(model);
  EXPECT_EQ(restitution.Pair(floor, ball), 0.75);
  EXPECT_EQ(restitution.Pair(ball, floor), 0.75);
  EXPECT_EQ(restitution.Pair(floor, 2), 0.25);
  EXPECT_EQ(model.GeomName(2), "#2");
}

struct BadField {
  std::string custom;
  std::string message;
};
void PrintTo(const BadField& c, std::ostream* os) { *os << c.custom << " → \"" << c.message << "\""; }

class BadConfig : public MujocoTest, public ::testing::WithParamInterface<BadField> {};

TEST_P(BadConfig, IsRejectedWithAMessageNamingTheField) {
  ModelPtr m = LoadModelFromString(WithCustom(GetParam().custom));
  ASSERT_TRUE(m);
  TakeMujocoWarnings();  // the compiler warns about a NaN in the XML: that is the point here
  try {
    Model model(m.get());
    FAIL() << "no ConfigError for " << GetParam().custom;
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr(GetParam().message));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fields, BadConfig,
    ::testing::Values(
        BadField{R"(<numeric name="saltation_restitution" data="1.5"/>)",
                 "'saltation_restitution' = 1.5 is not a restitution coefficient"},
        BadField{R"(<numeric name="saltation_restitution" data="-0.1"/>)",
                 "'saltation_restitution' = -0.1"},
        BadField{R"(<numeric name="saltation_restitution:ball" data="nan"/>)",
                 "'saltation_restitution:ball' = nan"},
        BadField{R"(<numeric name="saltation_restitution" data="0.1 0.2"/>)",
                 "must hold exactly one value, it holds 2"},
        BadField{R"(<numeric name="saltation_restitution:wheel" data="0.5"/>)",
                 "names geom 'wheel', which the model does not have"},
        BadField{R"(<numeric name="saltation_restitition" data="0.5"/>)",
                 "unknown custom numeric field 'saltation_restitition'"}));

TEST_F(Config, RestitutionOverrideIsCheckedToo) {
  ModelPtr m = LoadModelFromString(WithCustom(""));
  Model model(m.get());
  RestitutionTable restitution(model);
  EXPECT_THROW(restitution.SetAll(2.0), ConfigError);
  EXPECT_THROW(restitution.SetAll(std::nan("")), ConfigError);
  EXPECT_THROW(restitution.SetPair(0, 1, -0.1), ConfigError);
  restitution.SetAll(0.4);
  EXPECT_EQ(restitution.Pair(0, 1), 0.4);
  restitution.SetPair(1, 0, 0.7);
  EXPECT_EQ(restitution.Pair(0, 1), 0.7);
}

TEST_F(Config, ModelWithoutContactsRunsAndReportsNoEvents) {
  ModelPtr m = LoadModelFromString(kPendulum);
  Model model(m.get());
  RigidSimulator sim(model);
  State x;
  x.qpos = Eigen::VectorXd::Zero(1);
  x.qvel = Eigen::VectorXd::Constant(1, 0.5);
  x.act.resize(0);
  HybridState s = sim.Initialize(x);
  EXPECT_TRUE(s.mode.contacts.empty());
  const std::vector<RigidEvent> events = sim.Advance(s, 1.0);
  EXPECT_TRUE(events.empty());
  EXPECT_DOUBLE_EQ(s.x.time, 1.0);
  EXPECT_GT(std::abs(s.x.qpos(0)), 0.1);  // it did swing
}

TEST_F(Config, NonFiniteStatesAreRejected) {
  ModelPtr m = LoadModelFromString(VerticalBall(0.5));
  Model model(m.get());
  RigidSimulator sim(model);
  State x;
  x.qpos = Eigen::VectorXd::Constant(1, std::nan(""));
  x.qvel = Eigen::VectorXd::Zero(1);
  x.act.resize(0);
  EXPECT_THROW(sim.Initialize(x), NumericalError);
  EXPECT_THROW(sim.SetControl(Eigen::VectorXd::Zero(3)), ConfigError);
}

TEST_F(Config, PenetratingInitialStateIsRejected) {
  ModelPtr m = LoadModelFromString(VerticalBall(0.5));
  Model model(m.get());
  RigidSimulator sim(model);
  State x;
  x.qpos = Eigen::VectorXd::Constant(1, -0.95);  // ball centre 0.05 above the floor, radius 0.1
  x.qvel = Eigen::VectorXd::Zero(1);
  x.act.resize(0);
  try {
    sim.Initialize(x);
    FAIL() << "penetration accepted";
  } catch (const NumericalError& e) {
    EXPECT_THAT(e.what(), HasSubstr("penetrates contact floor/ball by 0.05"));
  }
}

}  // namespace
}  // namespace saltation::testing
