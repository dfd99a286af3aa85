// The version line and the check that the MuJoCo loaded is the one the program was built against.
#include <gmock/gmock.h>
#include <mujoco/mujoco.h>

#include <cstdlib>
#include <string>

#include "cli_util.h"
#include "saltation/version.h"

namespace saltation::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(Version, MujocoVersionNames) {
  EXPECT_EQ(MujocoVersionName(4000001), "4.0.1");  // MuJoCo 3.x and later
  EXPECT_EQ(MujocoVersionName(3003007), "3.3.7");
  EXPECT_EQ(MujocoVersionName(222), "2.2.2");      // 2.x
}

TEST(Version, LinkedMujocoIsThePinnedOne) {
  EXPECT_EQ(mj_version(), mjVERSION_HEADER);
  EXPECT_EQ(MujocoVersionName(mj_version()), SALTATION_MUJOCO_VERSION);  // MUJOCO_VERSION file
  EXPECT_STREQ(mj_versionString(), SALTATION_MUJOCO_VERSION);
  EXPECT_EQ(MujocoVersionMismatch(), "");
}

TEST(Version, MismatchMessageNamesBothVersions) {
  const std::string e = MujocoVersionMismatch(4000001, 3003000);
  EXPECT_THAT(e, HasSubstr("MuJoCo library version 3.3.0"));
  EXPECT_THAT(e, HasSubstr("built against, 4.0.1"));
  EXPECT_THAT(e, HasSubstr("refusing to start"));
}

TEST(Version, CliPrintsItsVersionAndMujocos) {
  const Result r = RunCli("--version");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, std::string("saltation ") + SALTATION_VERSION_STRING + " (MuJoCo " + SALTATION_MUJOCO_VERSION + ")\n");
}

// the CLI run against another MuJoCo (mj_version() interposed by a preloaded library) refuses to
// start, says why, and runs nothing
TEST(Version, CliRefusesAMismatchedMujoco) {
  const Result r = RunCli("--version", "LD_PRELOAD=" SALTATION_FAKE_MJ_VERSION_LIB);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("saltation: MuJoCo library version 3.3.0 (3003000) is not the version "
                                  "this program was built against, " SALTATION_MUJOCO_VERSION));
  EXPECT_THAT(r.output, Not(HasSubstr("(MuJoCo ")));
  const Result run = RunCli("rigid --duration 0.1", "LD_PRELOAD=" SALTATION_FAKE_MJ_VERSION_LIB);
  EXPECT_EQ(run.exit_code, 3) << run.output;
  EXPECT_THAT(run.output, Not(HasSubstr("summary")));
}

}  // namespace
}  // namespace saltation::testing
