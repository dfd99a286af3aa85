// The `saltation` command line, run as a user runs it: good runs, output files, bad input.
#include <gmock/gmock.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli_util.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = TempPath(name);
  std::ofstream(path) << text;
  return path;
}

TEST(Cli, DefaultModelRunsAndPrintsEvents) {
  const Result r = RunCli("rigid --keyframe throw --duration 3");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("models/ball_drop.xml"));
  EXPECT_THAT(r.output, HasSubstr("touchdown  floor/ball"));
  EXPECT_THAT(r.output, HasSubstr("summary: 13 events (13 touchdown)"));
  EXPECT_THAT(r.output, HasSubstr("grazing"));
}

TEST(Cli, JsonLinesLogHasOneCompleteObjectPerEvent) {
  const std::string out = TempPath("events.jsonl");
  std::remove(out.c_str());
  const Result r = RunCli("rigid models/ball_drop.xml --keyframe throw --duration 1 --quiet --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("summary: 2 events"));
  std::ifstream in(out);
  std::string line;
  int lines = 0;
  std::getline(in, line);  // the header (event_log_test.cc holds its content)
  EXPECT_THAT(line, HasSubstr("{\"kind\":\"header\",\"schema\":\"saltation.events/2\""));
  EXPECT_THAT(line, HasSubstr("\"source\":\"rigid\""));
  while (std::getline(in, line)) {
    lines++;
    EXPECT_EQ(line.front(), '{');
    EXPECT_EQ(line.back(), '}');
    for (const char* key : {"\"time\":", "\"kind\":\"touchdown\"", "\"geom1\":\"floor\"",
                            "\"geom2\":\"ball\"", "\"restitution\":0.6", "\"transversality\":",
                            "\"transversality_rel\":", "\"grazing\":", "\"f_minus\":[",
                            "\"f_plus\":[", "\"grad_g\":[", "\"dt_dx\":[", "\"xi\":{", "\"xi_norm\":",
                            "\"dreset\":{"}) {
      EXPECT_THAT(line, HasSubstr(key));
    }
    // Ξ is 12 × 12 for a free body, stored on DΔ (event_json.h)
    EXPECT_THAT(line, HasSubstr("\"xi\":{\"shape\":[12,12],\"base\":\"dreset\""));
  }
  EXPECT_EQ(lines, 2);
}

struct BadInput {
  const char* name;
  std::string args;
  int exit_code;
  std::string message;
};
// gtest shows a case as: saltation <args> → exit <code>, "<message>"
void PrintTo(const BadInput& c, std::ostream* os) {
  *os << "saltation " << c.args << " → exit " << c.exit_code << ", \"" << c.message << "\"";
}

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, ExitsNonZeroWithAClearMessage) {
  const Result r = RunCli(GetParam().args);
  EXPECT_FALSE(r.signaled) << r.output;
  EXPECT_EQ(r.exit_code, GetParam().exit_code) << r.output;
  EXPECT_THAT(r.output, HasSubstr(GetParam().message));
  EXPECT_THAT(r.output, Not(HasSubstr("Press Enter")));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CliBadInput,
    ::testing::Values(
        BadInput{"NoCommand", "", 2, "no command given"},
        BadInput{"UnknownCommand", "fly", 2, "unknown command 'fly'"},
        BadInput{"UnknownOption", "rigid --speed 3", 2, "unknown option '--speed'"},
        BadInput{"BadNumber", "rigid --duration abc", 2, "--duration needs a finite number, got 'abc'"},
        BadInput{"NegativeDuration", "rigid --duration -1", 2, "--duration must be positive"},
        BadInput{"MissingValue", "rigid --step", 2, "option --step needs a value"},
        BadInput{"RestitutionOutOfRange", "rigid --restitution 1.5", 2, "--restitution must be in [0, 1]"},
        BadInput{"ZeroEventLimit", "rigid --max-events 0", 2, "--max-events must be a whole number ≥ 1"},
        BadInput{"FractionalEventLimit", "rigid --max-events 2.5", 2, "--max-events must be a whole number ≥ 1"},
        BadInput{"MissingModel", "rigid /nonexistent/robot.xml", 1,
                 "cannot read model file '/nonexistent/robot.xml'"},
        BadInput{"MalformedModel", "rigid " + WriteFile("broken.xml", "<mujoco><worldbody><body>"), 1,
                 "could not load"},
        BadInput{"UnknownKeyframe", "rigid --keyframe jump", 1, "model has no keyframe 'jump'"},
        BadInput{"BadCustomField",
                 "rigid " + WriteFile("bad_custom.xml",
                                      "<mujoco><custom><numeric name=\"saltation_restitution\" "
                                      "data=\"2\"/></custom><worldbody/></mujoco>"),
                 1, "'saltation_restitution' = 2 is not a restitution coefficient"},
        BadInput{"Penetrating",
                 "rigid " + WriteFile("penetrating.xml",
                                      "<mujoco><worldbody><geom name=\"floor\" type=\"plane\" "
                                      "size=\"1 1 .1\"/><body pos=\"0 0 0.05\"><freejoint/><geom "
                                      "name=\"ball\" size=\"0.1\"/></body></worldbody></mujoco>"),
                 1, "initial state penetrates contact floor/ball by 0.05"},
        BadInput{"NanState",
                 "rigid " + WriteFile("nan.xml",
                                      "<mujoco><worldbody><body><joint type=\"slide\"/><geom "
                                      "size=\"0.1\"/></body></worldbody><keyframe><key "
                                      "qpos=\"nan\"/></keyframe></mujoco>") +
                     " --keyframe 0",
                 1, "initial state is not finite"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return std::string(info.param.name); });

// --keyframe applies the keyframe's ctrl too: a ball held at 0.5 m by a position actuator stays up
// with the keyframe whose target is 0.5 m, and lands with the one whose target is 0, in MuJoCo's
// simulation (record) and in the exact rigid model (rigid: the ctrl held constant)
TEST(Cli, KeyframeControlsAreApplied) {
  const std::string model = WriteFile("held.xml", R"(
<mujoco>
  <option gravity="0 0 -9.81" timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 .1"/>
    <body name="ball"><joint name="z" type="slide" axis="0 0 1"/><geom name="ball" size="0.1" mass="1"/></body>
  </worldbody>
  <actuator><position name="lift" joint="z" kp="2000" kv="100"/></actuator>
  <keyframe><key name="hold" qpos="0.5" ctrl="0.5"/><key name="drop" qpos="0.5" ctrl="0"/></keyframe>
</mujoco>)");
  for (const char* command : {"record", "rigid"}) {
    const Result held = RunCli(std::string(command) + " " + model + " --keyframe hold --duration 1 --quiet");
    ASSERT_EQ(held.exit_code, 0) << held.output;
    EXPECT_THAT(held.output, Not(HasSubstr("touchdown"))) << command;
    const Result dropped = RunCli(std::string(command) + " " + model + " --keyframe drop --duration 1 --quiet");
    ASSERT_EQ(dropped.exit_code, 0) << dropped.output;
    EXPECT_THAT(dropped.output, HasSubstr("1 touchdown")) << command;
  }
}

// A simulation that diverges: MuJoCo resets the state; record stops with the time before the
// step (not the reset's), exit 1, and the CSV of what came before is written like the JSON Lines.
TEST(Cli, UnstableSimulationNamesItsTimeAndKeepsTheCsv) {
  const std::string model = WriteFile("unstable.xml", R"(
<mujoco>
  <option timestep="0.01" gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 .1"/>
    <body name="ball" pos="0 0 0.5">
      <joint name="z" type="slide" axis="0 0 1" stiffness="1e7" springref="0.5"/>
      <geom name="ball" size="0.1" mass="0.001"/>
    </body>
  </worldbody>
</mujoco>)");
  const std::string csv = TempPath("unstable.csv");
  std::remove(csv.c_str());
  const Result r = RunCli("record " + model + " --duration 2 --csv " + csv);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("MuJoCo's simulation became unstable at t = 0.010000 s (bad acceleration): "
                                  "MuJoCo reset the state"));
  std::ifstream in(csv);
  std::string header, line, last;
  ASSERT_TRUE(std::getline(in, header)) << "no CSV written on the failure";
  EXPECT_THAT(header, HasSubstr("time,kind,group,geom1,geom2"));
  while (std::getline(in, line)) last = line;
  EXPECT_THAT(last, ::testing::StartsWith("0.01")) << "the failure is the CSV's last row";
  EXPECT_THAT(last, HasSubstr(",failure,")) << "the failure is the CSV's last row";
}

// The time of each JSON Lines record (its "time" field) and its kind
std::vector<std::pair<double, std::string>> TimesAndKinds(const std::string& path) {
  std::vector<std::pair<double, std::string>> records;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    EXPECT_TRUE(WholeJsonObject(line)) << line.substr(0, 120);
    const size_t t = line.find("\"time\":"), k = line.find("\"kind\":\"");
    if (line.find("\"kind\":\"header\"") != std::string::npos) continue;  // the log's description
    if (t == std::string::npos || k == std::string::npos) {
      ADD_FAILURE() << "a record without time or kind: " << line.substr(0, 120);
      continue;
    }
    const size_t kind_start = k + 8;
    records.emplace_back(std::strtod(line.c_str() + t + 7, nullptr),
                         line.substr(kind_start, line.find('"', kind_start) - kind_start));
  }
  return records;
}

// The rigid model's failure in the middle of a run: a slider with a negative stiffness (touching
// nothing) grows as e^(1414 t) until the state overflows at t ≈ 0.26 s, after the ball's touchdown
// at 0.226 s. Exit 1 naming the time; the touchdown is in the log, the failure is its last record.
TEST(Cli, RigidFailureIsTheLastRecord) {
  const std::string model = WriteFile("diverging.xml", R"(
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 .1"/>
    <body name="ball" pos="0 0 0.3"><freejoint/><geom name="ball" size="0.05"/></body>
    <body name="slider" pos="0 2 1">
      <joint name="x" type="slide" axis="1 0 0" stiffness="-2e6" springref="-1e-3"/>
      <geom size="0.05" mass="1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>)");
  const std::string out = TempPath("diverging.jsonl");
  const Result r = RunCli("rigid " + model + " --duration 2 --quiet --out " + out);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("saltation rigid: the rigid model failed at t = 0.2"));
  EXPECT_THAT(r.output, HasSubstr("state is not finite"));
  const auto records = TimesAndKinds(out);
  ASSERT_EQ(records.size(), 2u) << r.output;
  EXPECT_EQ(records[0].second, "touchdown");
  EXPECT_EQ(records[1].second, "failure");
  EXPECT_LE(records[0].first, records[1].first);
  EXPECT_NEAR(records[1].first, 0.26, 0.02);
}

// --max-events holds over the run (event_limit.h): a ball dropped 0.1 m with restitution 0.5
// bounces at t_n = t₁(1 + 2 Σ_{k<n} 0.5^k), t₁ = √(0.2/9.81); with at most 3 events within 0.1 s
// the 7th touchdown (0.423891 s, the 4th of the window the 4th opened) stops the run: exit 1 naming
// the limit and the time, the seven touchdowns in the log (the one the run stopped at the last, at
// the failure's time), the failure its last record. (Before, the run advanced one event per call and
// the limit never fired: 9 touchdowns, exit 0; then the 7th touchdown was left out of the log.)
TEST(Cli, EventsPastTheLimitStopTheRunNamingItAndTheTime) {
  const std::string model = WriteFile("bouncing.xml", R"(
<mujoco>
  <custom><numeric name="saltation_restitution" data="0.5"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 .1"/>
    <body name="ball" pos="0 0 0.15"><freejoint/><geom name="ball" size="0.05"/></body>
  </worldbody>
</mujoco>)");
  const std::string out = TempPath("bouncing.jsonl");
  const Result r = RunCli("rigid " + model + " --duration 0.5 --quiet --max-events 3 --out " + out);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the rigid model failed at t = 0.423891 s: more than 3 events within 0.1 s "
                                  "of simulated time (the limit max_events = 3)"));
  const auto records = TimesAndKinds(out);
  ASSERT_EQ(records.size(), 8u) << r.output;
  for (int n = 0; n < 7; n++) EXPECT_EQ(records[n].second, "touchdown");
  EXPECT_EQ(records[7].second, "failure");
  EXPECT_NEAR(records[5].first, std::sqrt(0.2 / 9.81) * 2.9375, 1e-13);   // the 6th touchdown
  EXPECT_NEAR(records[6].first, std::sqrt(0.2 / 9.81) * 2.96875, 1e-13);  // the 7th, the run's stop
  EXPECT_NEAR(records[7].first, records[6].first, 1e-12);
  // the default limit lets it come to rest: 9 touchdowns
  const Result through = RunCli("rigid " + model + " --duration 0.5 --quiet");
  EXPECT_EQ(through.exit_code, 0) << through.output;
  EXPECT_THAT(through.output, HasSubstr("summary: 9 events (9 touchdown)"));
}

// MuJoCo's reset on a bad velocity in the middle of a run (issue 17): a ball lands while a slider
// that touches nothing is pushed at 9e9 m/s² past MuJoCo's velocity limit (1e10 m/s) at t ≈ 1.11 s
// (its position, 5.6e9 m, is still below the limit). The run ends with exit 1 naming the cause and
// the time; the ball's records before it are in the JSON Lines and the CSV, the failure is the last
// record of both, and no record is later than it. (The slider's speed also makes the ball's
// dimensionless transversality tiny: its touchdown is flagged as a graze.)
TEST(Cli, ResetOnABadVelocityIsTheLastRecord) {
  const std::string model = WriteFile("runaway.xml", R"(
<mujoco>
  <option timestep="0.002" gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 .1"/>
    <body name="ball" pos="0 0 0.3"><freejoint/><geom name="ball" size="0.05"/></body>
    <body name="slider" pos="0 2 1">
      <joint name="x" type="slide" axis="1 0 0"/>
      <geom size="0.05" mass="1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator><motor joint="x" gear="9e9"/></actuator>
  <keyframe><key name="push" qpos="0 0 0.3 1 0 0 0 0" ctrl="1"/></keyframe>
</mujoco>)");
  const std::string out = TempPath("runaway.jsonl"), csv = TempPath("runaway.csv");
  const Result r = RunCli("record " + model + " --duration 5 --quiet --out " + out + " --csv " + csv);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("MuJoCo's simulation became unstable at t = 1.1"));
  EXPECT_THAT(r.output, HasSubstr("(bad velocity): MuJoCo reset the state"));
  const auto records = TimesAndKinds(out);
  ASSERT_GE(records.size(), 2u) << r.output;
  const auto& [failure_time, failure_kind] = records.back();
  EXPECT_EQ(failure_kind, "failure");
  EXPECT_GT(failure_time, 1.05);
  EXPECT_LT(failure_time, 1.2);
  int contacts = 0;
  for (size_t k = 0; k + 1 < records.size(); k++) {
    EXPECT_NE(records[k].second, "failure");
    EXPECT_LE(records[k].first, failure_time) << "a " << records[k].second << " record after the failure";
    contacts += records[k].second == "touchdown" || records[k].second == "graze";
  }
  EXPECT_GE(contacts, 1) << "the ball's landing before the failure is missing";
  std::printf("[ failure ] %zu records, the failure at t = %.4f s\n", records.size(), failure_time);
  std::ifstream in(csv);
  std::string line, last;
  int rows = 0;
  while (std::getline(in, line)) {
    last = line;
    rows++;
  }
  EXPECT_EQ(rows, static_cast<int>(records.size()) + 1) << "the CSV has a row per record and a header";
  EXPECT_THAT(last, HasSubstr(",failure,"));
}

TEST(Cli, FailedRunLeavesNoOutputFile) {
  const std::string out = TempPath("never.jsonl");
  std::remove(out.c_str());
  const Result r = RunCli("rigid /nonexistent.xml --out " + out);
  EXPECT_EQ(r.exit_code, 1);
  std::ifstream in(out);
  EXPECT_FALSE(in.good()) << "an output file was written by a failed run";
}

TEST(Cli, HelpExitsZero) {
  const Result r = RunCli("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("usage: saltation COMMAND"));
}

}  // namespace
}  // namespace saltation::testing

namespace saltation::testing {
namespace {

TEST(CliRecord, DefaultModelRecordsEventsCsvAndPhi) {
  const std::string out = TempPath("rec.jsonl"), csv = TempPath("rec.csv"), phi = TempPath("phi.json");
  for (const std::string& f : {out, csv, phi}) std::remove(f.c_str());
  const Result r = RunCli("record --keyframe throw --duration 1 --propagate both --out " + out + " --csv " +
                          csv + " --phi-out " + phi);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("touchdown     floor/ball"));
  EXPECT_THAT(r.output, HasSubstr("propagation both"));
  std::ifstream in(out);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    lines++;
    EXPECT_TRUE(WholeJsonObject(line)) << line;
  }
  EXPECT_GE(lines, 2);
  std::ifstream csv_in(csv);
  std::getline(csv_in, line);
  EXPECT_EQ(line, HookEventCsvHeader());
  std::ifstream phi_in(phi);
  std::getline(phi_in, line);
  EXPECT_TRUE(WholeJsonObject(line));
  EXPECT_THAT(line, HasSubstr("\"rigid\":[["));
  EXPECT_THAT(line, HasSubstr("\"compliant\":[["));
}

// --worker (the hook's bookkeeping on its worker thread) writes the same log, CSV and Φ, byte for
// byte, and the same table; the run ends 3 ms after a simultaneous group, whose records the
// worker is still making when the last step returns
TEST(CliRecord, WorkerWritesTheSameFiles) {
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  std::string files[2][3], tables[2];
  for (int worker = 0; worker < 2; worker++) {
    const std::string tag = worker ? "worker" : "sync";
    const std::string out = TempPath(tag + ".jsonl"), csv = TempPath(tag + ".csv"), phi = TempPath(tag + "_phi.json");
    const Result r = RunCli("record models/box_corner.xml --duration 0.6695 --propagate both --out " + out + " --csv " + csv +
                            " --phi-out " + phi + (worker ? " --worker" : ""));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    files[worker][0] = read(out);
    files[worker][1] = read(csv);
    files[worker][2] = read(phi);
    tables[worker] = r.output.substr(0, r.output.find("wrote"));
  }
  EXPECT_NE(files[0][0].find("\"simultaneous\""), std::string::npos);
  for (int f = 0; f < 3; f++) EXPECT_EQ(files[0][f], files[1][f]) << "file " << f;
  EXPECT_EQ(tables[0], tables[1]);
}

// A run killed with SIGKILL leaves a JSON Lines file whose every line is a whole record.
TEST(CliRecord, SigkillLeavesAParseablePrefix) {
  const std::string out = TempPath("killed.jsonl");
  std::remove(out.c_str());
  const std::string cmd = std::string("cd " SALTATION_SOURCE_DIR " && (" SALTATION_CLI
                                      " record " SALTATION_MUJOCO_MODELS "/humanoid/humanoid.xml --duration 60 --quiet --out ") +
                          out + " >/dev/null 2>&1 & pid=$!; sleep 2; kill -9 $pid; wait $pid 2>/dev/null; true)";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(out);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    lines++;
    EXPECT_TRUE(WholeJsonObject(line)) << "line " << lines << ": " << line.substr(0, 200);
  }
  std::printf("[ SIGKILL ] %d whole records before the kill\n", lines);
  EXPECT_GT(lines, 0);
}

// a ball above a floor with the given <option timestep>
std::string TimestepModel(const std::string& timestep) {
  return "<mujoco><option timestep=\"" + timestep + "\"/><worldbody><geom type=\"plane\" size=\"1 1 .1\"/>"
         "<body pos=\"0 0 1\"><freejoint/><geom size=\".1\"/></body></worldbody></mujoco>";
}

class CliRecordBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliRecordBadInput, ExitsNonZeroWithAClearMessage) {
  const Result r = RunCli(GetParam().args);
  EXPECT_FALSE(r.signaled) << r.output;
  EXPECT_EQ(r.exit_code, GetParam().exit_code) << r.output;
  EXPECT_THAT(r.output, HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CliRecordBadInput,
    ::testing::Values(
        BadInput{"BadPropagation", "record --propagate sideways", 2,
                 "propagation must be events, rigid, compliant or both, not 'sideways'"},
        BadInput{"PhiWithoutPropagation", "record --phi-out x.json", 2, "--phi-out needs --propagate"},
        BadInput{"BadRestitution", "record --restitution bouncy", 2, "--restitution needs a finite number"},
        BadInput{"AutoForRigid", "rigid --restitution auto", 2, "--restitution auto needs MuJoCo's contacts"},
        BadInput{"MissingModel", "record /no/such/model.xml", 1, "cannot read model file"},
        BadInput{"NegativeNearMiss", "record --near-miss -1", 2, "--near-miss must be non-negative"},
        BadInput{"UnwritableOutput", "record --duration 0.1 --out /no/such/dir/x.jsonl", 1,
                 "cannot write '/no/such/dir/x.jsonl': No such file or directory"},
        // a timestep that cannot end the run (these hung before)
        BadInput{"ZeroTimestep", "record " + WriteFile("dt0.xml", TimestepModel("0")), 1,
                 "the model's timestep must be positive and finite, not 0.000000 s"},
        BadInput{"NegativeTimestep", "record " + WriteFile("dtneg.xml", TimestepModel("-0.001")), 1,
                 "the model's timestep must be positive and finite, not -0.001000 s"},
        BadInput{"TinyTimestep", "record " + WriteFile("dttiny.xml", TimestepModel("1e-300")), 1,
                 "is more than 1e9 steps"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace saltation::testing

namespace saltation::testing {
namespace {

TEST(CliFloquet, RimlessWheelIsStableAndJsonHasBothMultiplierSets) {
  const std::string out = TempPath("floquet.json");
  std::remove(out.c_str());
  const Result r = RunCli("floquet models/rimless_wheel.xml --keyframe start --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("periodic orbit: converged"));
  // the trivial multiplier of the constraint-consistent chain is 1 to 1e-5, as the printed
  // "1.00000…" asserted on MuJoCo 2.2.2 (4.0.1's capsule–plane frames move it to 0.9999994: the
  // J̇v stencil of issue 14)
  const std::string key = "constraint-consistent, Φ/Ξ chain ";
  const size_t at = r.output.find(key);
  ASSERT_NE(at, std::string::npos) << r.output;
  EXPECT_NEAR(std::strtod(r.output.c_str() + at + key.size(), nullptr), 1.0, 1e-5) << r.output;
  EXPECT_THAT(r.output, HasSubstr("0.618233+0.0e+00i"));
  EXPECT_THAT(r.output, HasSubstr("verdict: stable"));
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  EXPECT_TRUE(WholeJsonObject(line));
  for (const char* key : {"\"multipliers\":[[", "\"shooting_multipliers\":[[", "\"verdict\":\"stable\"",
                          "\"monodromy\":[[", "\"period\":0.5253998"}) {
    EXPECT_THAT(line, HasSubstr(key));
  }
}

// the half-step cross-check printed beside the result; a disagreement beyond --check-tolerance is
// a failure naming both values (exit 1), and --no-cross-check leaves the repetition out
TEST(CliFloquet, CrossCheckIsPrintedAndADisagreementExitsOne) {
  Result r = RunCli("floquet models/rimless_wheel.xml --keyframe start --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("same at half the step (0.0005 s)"));
  EXPECT_THAT(r.output, HasSubstr("exact symmetries (cyclic coordinates): none"));
  EXPECT_THAT(r.output, HasSubstr("checks: consistent"));
  r = RunCli("floquet models/rimless_wheel.xml --keyframe start --quiet --check-tolerance 1e-13");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("checks: FAILED"));
  EXPECT_THAT(r.output, HasSubstr("at step 0.001 s, 0.61823"));
  EXPECT_THAT(r.output, HasSubstr("at half the step: differ by"));
  EXPECT_THAT(r.output, HasSubstr("the multipliers do not check out"));
  r = RunCli("floquet models/rimless_wheel.xml --keyframe start --quiet --no-cross-check");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("half the step (")));
  EXPECT_THAT(r.output, HasSubstr("no half-step cross-check"));
  r = RunCli("floquet models/rimless_wheel.xml --check-tolerance -1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--check-tolerance must be positive"));
}

// a gait with an energy source (models/hopper_gait.xml: a pump on the leg, a leg stop): the
// orbit has two touchdowns per period (foot, stop), converges and checks out (exit 0); the JSON
// says how many section events a period holds
TEST(CliFloquet, HopperGaitConvergesWithTwoTouchdownsPerPeriod) {
  const std::string out = TempPath("hopper_gait_floquet.json");
  std::remove(out.c_str());
  const Result r = RunCli("floquet models/hopper_gait.xml --quiet --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("periodic orbit: converged after"));
  EXPECT_THAT(r.output, HasSubstr("period 0.6490325"));
  EXPECT_THAT(r.output, HasSubstr("with 2 section events"));
  EXPECT_THAT(r.output, HasSubstr("rest 0.95900"));
  EXPECT_THAT(r.output, HasSubstr("verdict: stable"));
  EXPECT_THAT(r.output, HasSubstr("checks: consistent (trivial/symmetry multipliers 1, half step agrees)"));
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  EXPECT_TRUE(WholeJsonObject(line));
  EXPECT_THAT(line, HasSubstr("\"section_events\":2"));
  EXPECT_THAT(line, HasSubstr("\"consistent\":true"));
}

// a biped with an energy source (models/biped_gait.xml: the right leg pumped with a stop, the left
// shorter and passive): the orbit has three touchdowns per period, converges and checks out
// (exit 0: the run is consistent), and the verdict says the gait falls over (the torso's pitch,
// multiplier 8.03)
TEST(CliFloquet, BipedGaitConvergesWithThreeTouchdownsPerPeriodAndIsUnstable) {
  const std::string out = TempPath("biped_gait_floquet.json");
  std::remove(out.c_str());
  const Result r = RunCli("floquet models/biped_gait.xml --quiet --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("periodic orbit: converged after"));
  EXPECT_THAT(r.output, HasSubstr("period 0.5707434"));
  EXPECT_THAT(r.output, HasSubstr("with 3 section events"));
  EXPECT_THAT(r.output, HasSubstr("rest 8.03184"));
  const std::string agreement = "agreement of chain and shooting: ";
  const size_t at = r.output.find(agreement);
  ASSERT_NE(at, std::string::npos) << r.output;
  EXPECT_LT(std::stod(r.output.substr(at + agreement.size())), 1e-6);  // measured 5.24e-07
  EXPECT_THAT(r.output, HasSubstr("verdict: unstable"));
  EXPECT_THAT(r.output, HasSubstr("checks: consistent (trivial/symmetry multipliers 1, half step agrees)"));
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  EXPECT_TRUE(WholeJsonObject(line));
  EXPECT_THAT(line, HasSubstr("\"section_events\":3"));
  EXPECT_THAT(line, HasSubstr("\"consistent\":true"));
  EXPECT_THAT(line, HasSubstr("\"verdict\":\"unstable\""));
}

TEST(CliFloquet, ElasticBallIsReportedNeutrallyStableNotAnError) {
  const std::string model = TempPath("elastic.xml");
  std::ofstream(model) << R"(<mujoco><custom><numeric name="saltation_restitution" data="1"/></custom>
    <worldbody><geom name="floor" type="plane" size="1 1 .1"/>
    <body pos="0 0 1"><joint type="slide" axis="0 0 1"/><geom name="ball" size="0.1"/></body></worldbody>
    </mujoco>)";
  const Result r = RunCli("floquet " + model);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("verdict: neutrally stable"));
}

TEST(CliFloquet, BadInputExitsNonZeroWithAMessage) {
  Result r = RunCli("floquet models/rimless_wheel.xml --section sideways");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("--section must be touchdown or liftoff"));
  r = RunCli("floquet /no/such.xml");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("cannot read model file"));
  // a model that never touches anything has no orbit through a touchdown section
  const std::string model = TempPath("no_contact.xml");
  std::ofstream(model) << R"(<mujoco><worldbody><body><joint type="hinge" axis="0 1 0"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" contype="0" conaffinity="0"/></body>
    </worldbody></mujoco>)";
  r = RunCli("floquet " + model);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("no touchdown within 20"));
}

// rigid on a start that penetrates (a robot's keyframe with its feet in the floor): by default the
// start is projected out along the contact normal and the projection printed (5 mm, the ball's
// free joint alone); --start strict refuses it, --start-limit below the depth refuses it, and a
// value other than project/strict is a usage error.
TEST(Cli, RigidProjectsAPenetratingStartAndSaysSo) {
  const std::string model = WriteFile("sunk_ball.xml", R"(
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 .1"/>
    <body name="ball" pos="0 0 0.095"><freejoint/><geom name="ball" size="0.1"/></body>
  </worldbody>
</mujoco>)");
  const Result projected = RunCli("rigid " + model + " --duration 0.05 --quiet");
  EXPECT_EQ(projected.exit_code, 0) << projected.output;
  EXPECT_THAT(projected.output, HasSubstr("start projected out of penetration (--start strict refuses it): 1 contact, "
                                          "deepest floor/ball 5 mm"));
  EXPECT_THAT(projected.output, HasSubstr("the free joints alone moved"));
  const Result strict = RunCli("rigid " + model + " --duration 0.05 --quiet --start strict");
  EXPECT_EQ(strict.exit_code, 1) << strict.output;
  EXPECT_THAT(strict.output, HasSubstr("penetrat"));
  const Result limited = RunCli("rigid " + model + " --duration 0.05 --quiet --start-limit=0.001");
  EXPECT_EQ(limited.exit_code, 1) << limited.output;
  const Result bad = RunCli("rigid " + model + " --start maybe");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("--start must be project or strict"));
  const Result unused = RunCli("record " + model + " --start strict");
  EXPECT_EQ(unused.exit_code, 2) << unused.output;
}

TEST(Cli, RigidTableNamesTheFeaturesOfAFeatureChange) {
  // a slow ball rolls from the top face onto the ledge's edge and leaves on its rounded part: the
  // table's flags say which features the `feature` record passes between
  const std::string model = "tests/models/ledge_ball.xml";
  const Result r = RunCli("rigid " + model + " --duration 0.5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<TableRow> changes = TableRows(r.output, "feature", "marble/ledge");
  ASSERT_EQ(changes.size(), 1u) << r.output;
  EXPECT_THAT(r.output, HasSubstr("face->edge")) << r.output;
  EXPECT_EQ(TableRows(r.output, "liftoff", "marble/ledge").size(), 1u) << r.output;
}

}  // namespace
}  // namespace saltation::testing
