// The command line's conventions (issue 16), one test each: help per subcommand, --version, the
// "--opt=value" form, a one-line usage error, keyframe names, output paths checked before the run,
// progress and --quiet, the same default start, rigid's note on MuJoCo's restitution, `report`
// forwarding to Python, and every option a command does not use rejected (issue 17).
#include <gmock/gmock.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli_util.h"

namespace saltation::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

int Lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

std::string Summary(const std::string& output) {
  const size_t at = output.find("summary:");
  return at == std::string::npos ? "" : output.substr(at, output.find('\n', at) - at);
}

TEST(CliConventions, HelpListsEverySubcommand) {
  const Result r = RunCli("--help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* command : {"record", "rigid", "compare", "floquet", "report"}) {
    EXPECT_THAT(r.output, HasSubstr("\n  " + std::string(command) + " ")) << command;
  }
  EXPECT_THAT(r.output, HasSubstr("--version"));
}

TEST(CliConventions, EverySubcommandHasItsOwnHelp) {
  std::vector<std::string> texts;
  for (const std::string command : {"record", "rigid", "compare", "floquet", "report"}) {
    for (const char* flag : {"--help", "-h"}) {
      const Result r = RunCli(command + " " + flag);
      EXPECT_EQ(r.exit_code, 0) << command << " " << flag << ": " << r.output;
      EXPECT_THAT(r.output, StartsWith("usage: saltation " + command)) << command;
    }
    texts.push_back(RunCli(command + " --help").output);
  }
  std::sort(texts.begin(), texts.end());
  EXPECT_EQ(std::unique(texts.begin(), texts.end()), texts.end()) << "two subcommands print the same help";
  // each help names the options its command takes, not the other's
  EXPECT_THAT(RunCli("record --help").output, HasSubstr("--csv"));
  EXPECT_THAT(RunCli("rigid --help").output, Not(HasSubstr("--csv")));
  EXPECT_THAT(RunCli("rigid --help").output, HasSubstr("--step"));
}

TEST(CliConventions, VersionNamesSaltationAndMujoco) {
  const Result r = RunCli("--version");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "saltation " SALTATION_VERSION_STRING " (MuJoCo " SALTATION_MUJOCO_VERSION ")\n");
  EXPECT_EQ(RunCli("--version extra").exit_code, 2);
}

TEST(CliConventions, EqualsFormIsTheSameAsASpace) {
  const Result spaced = RunCli("rigid --keyframe throw --duration 1 --restitution 0.5 --quiet");
  const Result equals = RunCli("rigid --keyframe=throw --duration=1 --restitution=0.5 --quiet");
  ASSERT_EQ(spaced.exit_code, 0) << spaced.output;
  ASSERT_EQ(equals.exit_code, 0) << equals.output;
  EXPECT_NE(Summary(equals.output), "");
  EXPECT_EQ(Summary(equals.output), Summary(spaced.output));
  // a switch given a value is an error, not ignored
  const Result flag = RunCli("rigid --quiet=yes");
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_THAT(flag.output, HasSubstr("option --quiet takes no value"));
  EXPECT_EQ(RunCli("floquet models/rimless_wheel.xml --section=sideways").exit_code, 2);
}

TEST(CliConventions, UsageErrorIsOneLineAndWhereTheHelpIs) {
  struct Case {
    std::string args, message, see;
  };
  for (const Case& c : std::vector<Case>{
           {"rigid --speed 3", "saltation rigid: unknown option '--speed'", "see `saltation rigid --help`"},
           {"record --duration abc", "saltation record: option --duration needs a finite number, got 'abc'",
            "see `saltation record --help`"},
           {"compare --taus 1,2", "saltation compare: --taus must be strictly decreasing", "see `saltation compare --help`"},
           {"floquet --bogus", "saltation floquet: unknown option '--bogus'", "see `saltation floquet --help`"},
           {"report", "saltation report: report needs the log to read", "see `saltation report --help`"},
           {"fly", "saltation: unknown command 'fly'", "see `saltation --help`"},
           {"", "saltation: no command given", "see `saltation --help`"},
           {"--duration 1 rigid", "saltation: the command comes first", "see `saltation --help`"}}) {
    const Result r = RunCli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.output;
    EXPECT_EQ(Lines(r.output), 2) << c.args << ": " << r.output;
    EXPECT_THAT(r.output, StartsWith(c.message)) << c.args;
    EXPECT_THAT(r.output, HasSubstr(c.see)) << c.args;
  }
}

TEST(CliConventions, WrongKeyframeListsTheKeyframesThatExist) {
  for (const char* command : {"rigid", "record", "floquet", "compare"}) {
    const Result r = RunCli(std::string(command) + " models/box_flat.xml --keyframe jump");
    EXPECT_EQ(r.exit_code, 1) << command << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr("model has no keyframe 'jump'; its keyframes: 'start' (or an index 0–0, or none for qpos0)"))
        << command;
  }
}

// --out /nonexistent/… of a run that would take minutes fails at once, before any event
TEST(CliConventions, OutputPathsAreCheckedBeforeTheRun) {
  const std::string bad = "/nonexistent/dir/x";
  for (const std::string args :
       {"rigid --duration 1000 --out " + bad, "record --duration 1000 --out " + bad,
        "record --duration 1000 --csv " + bad, "record --duration 1000 --propagate both --phi-out " + bad,
        "floquet models/rimless_wheel.xml --out " + bad, "compare models/vertical_ball.xml --out " + bad}) {
    const auto started = std::chrono::steady_clock::now();
    const Result r = RunCli(args);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_EQ(r.exit_code, 1) << args << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr("cannot write '" + bad + "': No such file or directory")) << args;
    EXPECT_THAT(r.output, Not(HasSubstr("touchdown"))) << args;
    EXPECT_THAT(r.output, Not(HasSubstr("summary"))) << args;
    EXPECT_LT(seconds, 10) << args;
  }
}

// progress on stderr only with --progress here (stderr is a pipe, not a terminal); none with --quiet
TEST(CliConventions, ProgressOnRequestAndNeverWithQuiet) {
  const Result plain = RunCli("rigid --duration 3");
  EXPECT_THAT(plain.output, Not(HasSubstr("rigid: ")));
  const Result shown = RunCli("rigid --duration 3 --progress");
  EXPECT_EQ(shown.exit_code, 0) << shown.output;
  // not a terminal: a line per tenth
  int lines = 0;
  for (size_t at = shown.output.find("\nrigid: "); at != std::string::npos; at = shown.output.find("\nrigid: ", at + 1)) lines++;
  EXPECT_GE(lines, 8) << shown.output;
  EXPECT_LE(lines, 12) << shown.output;
  EXPECT_THAT(shown.output, HasSubstr("rigid: 100% t = 3.0000 s"));
  const Result record = RunCli("record --duration 0.5 --progress");
  EXPECT_THAT(record.output, HasSubstr("record:  50%"));
  const Result quiet = RunCli("rigid --duration 3 --progress --quiet");
  EXPECT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_THAT(quiet.output, Not(HasSubstr("rigid: ")));
  EXPECT_THAT(quiet.output, Not(HasSubstr("touchdown  floor/ball")));
  EXPECT_THAT(quiet.output, HasSubstr("summary: 13 events"));
}

// on a terminal (script(1) gives the command one) progress shows without --progress, as one line
// rewritten in place and cleared before each event row; --quiet still silences it
TEST(CliConventions, ProgressOnATerminalWithoutAsking) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "script(1) (util-linux) is not installed";
  auto on_terminal = [](const std::string& args) {
    const std::string cmd = "cd " SALTATION_SOURCE_DIR " && script -qec '" SALTATION_CLI " " + args + "' /dev/null </dev/null";
    std::string output;
    if (FILE* pipe = popen(cmd.c_str(), "r")) {
      char buf[4096];
      for (size_t n; (n = fread(buf, 1, sizeof(buf), pipe)) > 0;) output.append(buf, n);
      pclose(pipe);
    }
    return output;
  };
  const std::string shown = on_terminal("rigid --duration 3");
  EXPECT_THAT(shown, HasSubstr("\rrigid: ")) << shown;
  EXPECT_THAT(shown, HasSubstr("\r\033[K    0.437090  touchdown")) << "the progress line is not cleared before a row";
  EXPECT_THAT(shown, HasSubstr("summary: 13 events"));
  const std::string quiet = on_terminal("rigid --duration 3 --quiet");
  EXPECT_THAT(quiet, HasSubstr("summary: 13 events"));
  EXPECT_THAT(quiet, Not(HasSubstr("rigid: ")));
}

// no --keyframe: the model's first keyframe when it has one (printed), else qpos0; the same in
// every command (scripts/run passes the default model's first keyframe, `throw`, explicitly)
TEST(CliConventions, TheSameDefaultStartEverywhere) {
  const Result by_default = RunCli("rigid --duration 3 --quiet");
  const Result named = RunCli("rigid --keyframe throw --duration 3 --quiet");
  ASSERT_EQ(by_default.exit_code, 0) << by_default.output;
  EXPECT_THAT(by_default.output, HasSubstr("start: keyframe 'throw' (the model's first; --keyframe none for qpos0)"));
  EXPECT_EQ(Summary(by_default.output), Summary(named.output));
  EXPECT_THAT(Summary(by_default.output), HasSubstr("13 events"));
  for (const char* command : {"record --duration 0.1", "floquet models/rimless_wheel.xml --max-iterations 3",
                              "compare --help"}) {
    if (std::string(command) == "compare --help") {
      EXPECT_THAT(RunCli(command).output, HasSubstr("first keyframe when it has one, else qpos0"));
      continue;
    }
    EXPECT_THAT(RunCli(command).output, HasSubstr("start: keyframe ")) << command;
  }
  const Result qpos0 = RunCli("rigid --keyframe none --duration 1 --quiet");
  EXPECT_THAT(qpos0.output, HasSubstr("start: qpos0 (--keyframe none)"));
  const std::string model = TempPath("nokey.xml");
  std::ofstream(model) << R"(<mujoco><worldbody><geom type="plane" size="1 1 .1"/>
    <body pos="0 0 1"><freejoint/><geom size=".1"/></body></worldbody></mujoco>)";
  const Result nokey = RunCli("rigid " + model + " --duration 1");
  EXPECT_THAT(nokey.output, HasSubstr("start: qpos0 (the model has no keyframe)"));
  // (and rigid's note says where its e comes from)
  EXPECT_THAT(nokey.output, HasSubstr("the rigid model uses e=0 by default (the MJCF sets no saltation_restitution)"));
  std::ifstream script(SALTATION_SOURCE_DIR "/scripts/run");
  std::stringstream text;
  text << script.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("--keyframe throw")) << "scripts/run's default start changed";
}

TEST(CliConventions, RigidExplainsWhyMujocoBouncesDifferently) {
  const Result r = RunCli("rigid --duration 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("note: MuJoCo's contact measured e=0.00 here (floor/ball at "));
  EXPECT_THAT(r.output, HasSubstr("the rigid model uses e=0.6 from the MJCF: the two bounce differently"));
  // the note sits under the table, before the summary
  EXPECT_LT(r.output.find("touchdown  floor/ball"), r.output.find("note: MuJoCo's"));
  EXPECT_LT(r.output.find("note: MuJoCo's"), r.output.find("summary:"));
}

// saltation report execs <python> -m saltation.report ARGS… and passes its exit status through
TEST(CliConventions, ReportForwardsToThePythonModule) {
  const std::string script = TempPath("fake_python.sh");
  std::ofstream(script) << "#!/bin/sh\n"
                           "[ \"$1\" = -c ] && exit 0\n"  // the module probe
                           "echo \"fake python: $*\"\nexit 7\n";
  ASSERT_EQ(std::system(("chmod +x " + script).c_str()), 0);
  const Result r = RunCli("report run.jsonl --out 'my report.html'", "SALTATION_PYTHON=" + script);
  EXPECT_EQ(r.exit_code, 7) << r.output;
  EXPECT_EQ(r.output, "fake python: -m saltation.report run.jsonl --out my report.html\n");
  const Result missing = RunCli("report run.jsonl", "SALTATION_PYTHON=/nonexistent/python");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.output, HasSubstr("cannot run /nonexistent/python: No such file or directory"));
}

TEST(CliConventions, ReportSaysWhenTheModuleIsMissing) {
  // a Python without the saltation package: the system's, isolated from any user site
  if (std::system("PYTHONNOUSERSITE=1 PYTHONPATH= /usr/bin/python3 -c 'import saltation' 2>/dev/null") == 0) {
    GTEST_SKIP() << "/usr/bin/python3 has the saltation package";
  }
  const Result r = RunCli("report run.jsonl", "PYTHONNOUSERSITE=1 PYTHONPATH= SALTATION_PYTHON=/usr/bin/python3");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the Python module saltation.report is not installed for /usr/bin/python3"));
}

// every option a command does not use is an error naming the command it belongs to
TEST(CliConventions, OptionsOfAnotherCommandAreErrors) {
  struct Case {
    std::string args, message;
  };
  for (const Case& c : std::vector<Case>{
           {"rigid --csv x.csv", "rigid does not use --csv (an option of record)"},
           {"rigid --propagate both", "rigid does not use --propagate (an option of record)"},
           {"rigid --phi-out x.json", "rigid does not use --phi-out (an option of record)"},
           {"rigid --near-miss 0.01", "rigid does not use --near-miss (an option of record)"},
           {"rigid --simultaneous 1e-6", "rigid does not use --simultaneous (an option of record)"},
           {"rigid --restitution auto", "--restitution auto needs MuJoCo's contacts: use record"},
           {"record --step 1e-3", "record does not use --step (an option of rigid)"},
           {"floquet --duration 1", "unknown option '--duration'"},
           {"compare --csv x.csv", "unknown option '--csv'"},
           {"record --out a.jsonl --csv a.jsonl", "--out and --csv name the same file 'a.jsonl'"}}) {
    const Result r = RunCli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.message)) << c.args;
  }
}

// an output path that is the model file is refused before it is opened (which would truncate it)
TEST(CliConventions, AnOutputPathThatIsTheModelIsRefused) {
  const std::string model = TempPath("victim.xml");
  ASSERT_EQ(std::system(("cp " SALTATION_SOURCE_DIR "/models/ball_drop.xml " + model).c_str()), 0);
  std::ifstream original_in(model);
  std::stringstream original;
  original << original_in.rdbuf();
  for (const std::string args : {"rigid " + model + " --out " + model, "record " + model + " --csv " + model,
                                 "record " + model + " --propagate both --phi-out " + model,
                                 "floquet " + model + " --out " + model, "compare " + model + " --out " + model}) {
    const Result r = RunCli(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr("'" + model + "' is the model file: writing it would destroy the model")) << args;
    std::ifstream now_in(model);
    std::stringstream now;
    now << now_in.rdbuf();
    ASSERT_EQ(now.str(), original.str()) << args << " changed the model file";
  }
}

}  // namespace
}  // namespace saltation::testing
