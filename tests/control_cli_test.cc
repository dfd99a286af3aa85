// `--ctrl hold|zero|FILE` of `rigid` and `record` (issue 13): a slide-joint ball of 2 kg pushed up
// by a motor, from a keyframe whose ctrl is 10 N. Closed forms: held 10 N, a = −G + 5 → touchdown
// at √(2·0.45/4.81) = 0.432562 s; zero, free fall → 0.302891 s; a table ramp u = 30 t (the keyframe's
// ctrl replaced) → the root of 0.45 − 4.905 t² + 2.5 t³ = 0, 0.332344 s (control_test.cc).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.h"

namespace saltation::testing {
namespace {

using ::testing::HasSubstr;



std::string Write(const std::string& name, const std::string& text) {
  const std::string path = TempPath(name);
  std::ofstream(path) << text;
  return path;
}

// the first touchdown's time in a command's table (−1 when there is none)
double FirstTouchdown(const std::string& output) {
  const std::vector<double> t = TableTimes(output, "touchdown");
  return t.empty() ? -1 : t.front();
}

std::string ramp_file() { return Write("ramp.csv", "time,lift\n0,0\n1,30\n"); }

class ControlCli : public ::testing::Test {
 protected:
  std::string model_ = "tests/models/motor_slide_ball.xml";
  std::string ramp_ = Write("ramp.csv", "time,lift\n0,0\n1,30\n");
};

TEST_F(ControlCli, RigidHoldsTheKeyframesCtrlByDefault) {
  const Result r = RunCli("rigid " + model_ + " --duration 0.5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("control: the keyframe's ctrl, held"));
  EXPECT_NEAR(FirstTouchdown(r.output), 0.432562, 1e-6) << r.output;
}

TEST_F(ControlCli, RigidWithZero) {
  const Result r = RunCli("rigid " + model_ + " --duration 0.5 --ctrl zero");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("control: 0, held (--ctrl zero)"));
  EXPECT_NEAR(FirstTouchdown(r.output), 0.302891, 1e-6) << r.output;
}

TEST_F(ControlCli, RigidFollowsATable) {
  const Result r = RunCli("rigid " + model_ + " --duration 0.5 --ctrl " + ramp_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("control: table " + ramp_ + ": 1 of 2 actuators over 2 rows, t = 0…1 s"));
  EXPECT_NEAR(FirstTouchdown(r.output), 0.332344, 1e-6) << r.output;
}

TEST_F(ControlCli, RecordAppliesTheTableStepByStep) {
  // MuJoCo holds each step's ctrl (the table at the step's start) and its contact is soft: the
  // touchdown is within a few steps (1 ms) of the rigid one, and far from the held run's
  const Result r = RunCli("record " + model_ + " --duration 0.5 --ctrl " + ramp_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("control: table"));
  EXPECT_NEAR(FirstTouchdown(r.output), 0.332344, 2e-3) << r.output;
  const Result held = RunCli("record " + model_ + " --duration 0.5");
  ASSERT_EQ(held.exit_code, 0) << held.output;
  EXPECT_NEAR(FirstTouchdown(held.output), 0.432562, 2e-3) << held.output;
  const Result zero = RunCli("record " + model_ + " --duration 0.5 --ctrl=zero");
  EXPECT_NEAR(FirstTouchdown(zero.output), 0.302891, 2e-3) << zero.output;
}

TEST_F(ControlCli, BadTablesAreClearErrors) {
  const std::string bad = Write("bad.csv", "time,lift\n0,1\n0.5,oops\n");
  for (const char* command : {"rigid", "record"}) {
    const Result r = RunCli(std::string(command) + " " + model_ + " --ctrl " + bad);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("control table " + bad + ", line 3: value 'oops' is not a finite number"));
    const Result missing = RunCli(std::string(command) + " " + model_ + " --ctrl /nonexistent.csv");
    EXPECT_EQ(missing.exit_code, 1) << missing.output;
    EXPECT_THAT(missing.output, HasSubstr("cannot read the control table /nonexistent.csv: No such file or directory"));
  }
  const Result none = RunCli("rigid models/ball_drop.xml --ctrl " + ramp_);
  EXPECT_EQ(none.exit_code, 1) << none.output;
  EXPECT_THAT(none.output, HasSubstr("the model has no actuators to control"));
}

TEST_F(ControlCli, FloquetTakesHoldOrZero) {
  const Result table = RunCli("floquet " + model_ + " --ctrl " + ramp_);
  EXPECT_EQ(table.exit_code, 2) << table.output;
  EXPECT_THAT(table.output, HasSubstr("floquet's --ctrl must be hold or zero"));
  // the bouncing ball loses energy at each impact (e = 0.5): no periodic orbit, but the control
  // line says what was held
  const Result zero = RunCli("floquet " + model_ + " --ctrl zero --max-iterations 3");
  EXPECT_THAT(zero.output, HasSubstr("control: 0, held (--ctrl zero)"));
  const Result hold = RunCli("floquet " + model_ + " --max-iterations 3");
  EXPECT_THAT(hold.output, HasSubstr("control: the keyframe's ctrl, held"));
}

// `rigid --mocap FILE`: a ball (on a slide joint, from 0.4 m rising at 0.5 m/s) strikes a paddle
// whose top face moves as 0.05 sin(6πt), from a table sampled every millisecond. The strike time
// is the first root of 0.4 + 0.5t − 4.905t² − 0.05 − 0.05 sin 6πt (moving_surface_test.cc holds
// the spline and Ξ to their closed forms); the still paddle is struck elsewhere.
TEST(MocapCli, RigidMovesTheMocapBodiesAsTheTableSays) {
  const std::string model = "tests/models/paddle.xml";
  const double kPi = 3.14159265358979323846;
  std::ostringstream table;
  table.precision(17);
  table << "time,paddle.z\n";
  for (int i = 0; i <= 1000; i++) table << i * 1e-3 << "," << 0.05 * std::sin(6 * kPi * i * 1e-3) - 0.02 << "\n";
  const std::string path = Write("paddle.csv", table.str());
  auto gap = [&](double t) { return 0.4 + 0.5 * t - 4.905 * t * t - 0.05 - 0.05 * std::sin(6 * kPi * t); };
  double lo = 0, hi = 0;
  while (gap(hi) > 0) lo = hi, hi += 1e-4;
  for (int i = 0; i < 100; i++) (gap(0.5 * (lo + hi)) > 0 ? lo : hi) = 0.5 * (lo + hi);
  const Result r = RunCli("rigid " + model + " --duration 0.45 --mocap " + path);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("mocap: table " + path + ": 1 coordinates of 1 mocap bodies over 1001 rows, t = 0…1 s"));
  EXPECT_NEAR(FirstTouchdown(r.output), lo, 1e-6) << r.output;
  const Result still = RunCli("rigid " + model + " --duration 0.45");
  EXPECT_GT(std::abs(FirstTouchdown(still.output) - lo), 1e-3) << still.output;
  const Result bad = RunCli("rigid " + model + " --mocap " + ramp_file());
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("line 1: 'lift' is not BODY.x, BODY.y or BODY.z"));
  const Result record = RunCli("record " + model + " --mocap " + path);
  EXPECT_EQ(record.exit_code, 2) << record.output;
  EXPECT_THAT(record.output, HasSubstr("record does not use --mocap (an option of rigid)"));
}

}  // namespace
}  // namespace saltation::testing
