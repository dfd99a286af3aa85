// What floquet says when there is no periodic orbit: the repo's own hopper and ball_drop lose
// their energy at every impact and end on the ground, so the touchdown section is never reached
// again; the message says that, not "no touchdown" (rigid finds their touchdowns at once).
#include <gmock/gmock.h>

#include "test_util.h"

namespace saltation::testing {
namespace {

using ::testing::HasSubstr;

std::string FloquetError(const std::string& file, const char* key, double max_period) {
  char error[1000] = "";
  ModelPtr m(mj_loadXML(ModelPath(file).c_str(), nullptr, error, sizeof(error)));
  EXPECT_TRUE(m) << error;
  if (!m) return "";
  Model model(m.get());
  RigidSimulator sim(model);
  const int k = mj_name2id(m.get(), mjOBJ_KEY, key);
  State x;
  x.qpos = Eigen::Map<const Eigen::VectorXd>(m->key_qpos + k * m->nq, m->nq);
  x.qvel = Eigen::Map<const Eigen::VectorXd>(m->key_qvel + k * m->nv, m->nv);
  x.act = Eigen::VectorXd::Zero(m->na);
  FloquetOptions options;
  options.max_period = max_period;
  try {
    AnalyzePeriodicOrbit(sim, sim.Initialize(x), options);
  } catch (const NumericalError& e) {
    return e.what();
  }
  ADD_FAILURE() << file << ": floquet found an orbit";
  return "";
}

class FloquetMessages : public MujocoTest {};

TEST_F(FloquetMessages, HopperEndsOnTheGround) {
  const std::string msg = FloquetError("hopper.xml", "start", 5);
  EXPECT_THAT(msg, HasSubstr("to return to the Poincaré section: after 6 return(s) there was none"));
  EXPECT_THAT(msg, HasSubstr("it stays on the ground (1 contacts held)"));
  EXPECT_THAT(msg, HasSubstr("No periodic orbit passes through this state"));
}

TEST_F(FloquetMessages, BallDropEndsRolling) {
  const std::string msg = FloquetError("ball_drop.xml", "throw", 5);
  EXPECT_THAT(msg, HasSubstr("no touchdown within 5 s (FloquetOptions::max_period) after t = "));
  EXPECT_THAT(msg, HasSubstr("to return to the Poincaré section: after"));
  EXPECT_THAT(msg, HasSubstr("it stays on the ground (1 contacts held)"));
}

}  // namespace
}  // namespace saltation::testing
