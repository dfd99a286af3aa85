// Writers on a full file system (issue 17): saltation::OutputFile itself, the viewer's Recorder
// (which writes through it), and every file every command writes. Two real OS failures, no test
// hook: /dev/full (every write fails: ENOSPC) and a file-size limit (ulimit -f / RLIMIT_FSIZE: the
// write that crosses it is cut short, the next fails with EFBIG, as on a disk that fills up mid-line).
// Each checks exit status 1 (or the error), the OS reason in the message, and no partial line.
#include <gmock/gmock.h>
#include <sys/resource.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "../viewer/recorder.h"
#include "cli_util.h"
#include "saltation/saltation.h"
#include "saltation/event_log_reader.h"
#include "saltation/output_file.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

using ::testing::HasSubstr;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// While it lives, files this process writes are limited to `bytes` and SIGXFSZ is ignored (a write
// past the limit fails with EFBIG)
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    previous_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, previous_);
  }

 private:
  rlimit saved_;
  void (*previous_)(int);
};

TEST(OutputFile, FullDiskLeavesTheLastWholeLineAndTheReason) {
  const std::string path = TempPath("limited.txt");
  OutputFile file(path);
  const std::string line(100, 'x');
  std::string error;
  int written = 0;
  {
    FileSizeLimit limit(1050);  // ten lines and half of the eleventh
    try {
      for (; written < 100; written++) file.WriteLine(line);
    } catch (const OutputError& e) {
      error = e.what();
    }
  }
  EXPECT_EQ(written, 10);
  EXPECT_EQ(error, "could not write '" + path + "': File too large");
  const std::string text = ReadAll(path);
  EXPECT_EQ(text.size(), 10u * 101) << "a partial line was left";
  EXPECT_EQ(file.size(), 10 * 101);
  EXPECT_EQ(text.back(), '\n');
  // the file is closed and every later write gives the same error
  EXPECT_FALSE(file.is_open());
  try {
    file.WriteLine("more");
    ADD_FAILURE() << "a write after the failure succeeded";
  } catch (const OutputError& e) {
    EXPECT_EQ(std::string(e.what()), error);
  }
}

TEST(OutputFile, DeviceFullAndUnwritablePathsNameTheReason) {
  OutputFile full("/dev/full");
  try {
    full.WriteLine("x");
    ADD_FAILURE() << "wrote to /dev/full";
  } catch (const OutputError& e) {
    EXPECT_EQ(std::string(e.what()), "could not write '/dev/full': No space left on device");
  }
  try {
    OutputFile missing("/nonexistent/dir/x.jsonl");
    ADD_FAILURE() << "opened a file in a missing directory";
  } catch (const OutputError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write '/nonexistent/dir/x.jsonl': No such file or directory");
  }
  EXPECT_THROW(OutputFile("/dev/full").WriteLines("no newline"), Error);
}

// the viewer's recorder: its two files through OutputFile; a failed write stops the recording
// with the reason and leaves whole lines
TEST(OutputFile, ViewerRecorderStopsWithTheReasonAndWholeLines) {
  ModelPtr m = LoadModel(DefaultModelPath());
  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  mj_resetDataKeyframe(m.get(), d.get(), 0);
  mj_forward(m.get(), d.get());
  std::vector<HookEvent> events;
  hook.on_event = [&](const HookEvent& ev) { events.push_back(ev); };
  while (d->time < 3 && events.size() < 2) hook.Step(d.get());
  ASSERT_FALSE(events.empty());
  const std::string base = TempPath("recording");
  saltation_viewer::Recorder recorder;
  ASSERT_EQ(recorder.Open(base), "");
  std::string error;
  {
    FileSizeLimit limit(8000);
    for (int k = 0; k < 1000 && error.empty(); k++) {
      HookEvent ev = events[k % events.size()];
      ev.time = 0.01 * k;  // a run's records in time order
      error = recorder.Write(hook, DefaultModelPath(), ev);
    }
  }
  EXPECT_THAT(error, HasSubstr("could not write '" + base));
  EXPECT_THAT(error, HasSubstr("': File too large"));
  EXPECT_EQ(recorder.error(), error);
  EXPECT_FALSE(recorder.active());
  for (const std::string& path : {base + ".jsonl", base + ".csv"}) {
    const std::string text = ReadAll(path);
    ASSERT_FALSE(text.empty()) << path;
    EXPECT_EQ(text.back(), '\n') << path << " ends in a partial line";
  }
  std::istringstream jsonl(ReadAll(base + ".jsonl"));
  int lines = 0;
  for (std::string line; std::getline(jsonl, line); lines++) EXPECT_TRUE(WholeJsonObject(line)) << line.substr(0, 80);
  EXPECT_GT(lines, 0);
  EXPECT_EQ(recorder.Open("/nonexistent/dir/rec"), "cannot write '/nonexistent/dir/rec.jsonl': No such file or directory");

  // a log holds one run of one model: a record earlier than the last (the run was reset) or of
  // another model stops the recording with the reason, the file a whole log of what came before
  for (const bool reset : {true, false}) {
    const std::string one = TempPath(reset ? "reset_run" : "other_model");
    ASSERT_EQ(recorder.Open(one), "");
    HookEvent later = events[0], earlier = events[0];
    later.time = 1.0;
    earlier.time = 0.5;
    EXPECT_EQ(recorder.Write(hook, DefaultModelPath(), later), "");
    const std::string stop = reset ? recorder.Write(hook, DefaultModelPath(), earlier)
                                   : recorder.Write(hook, "another.xml", later);
    EXPECT_THAT(stop, HasSubstr(reset ? "the run was reset" : "another model was loaded"));
    EXPECT_FALSE(recorder.active());
    const EventLog log = ReadEventLog(one + ".jsonl");
    EXPECT_EQ(log.header.source, "viewer");
    ASSERT_EQ(log.records.size(), 1u);
  }
}

struct Writer {
  const char* name;
  std::string args;  // OUT is replaced by the path
  bool json_lines;   // every line a JSON object (else CSV: as many commas as the header)
  int blocks;        // ulimit -f (512-byte blocks): the file-size limit, within a few lines
};

void PrintTo(const Writer& w, std::ostream* os) { *os << "saltation " << w.args; }

std::string WithPath(std::string args, const std::string& path) { return args.replace(args.find("OUT"), 3, path); }

const Writer kWriters[] = {
    {"RigidOut", "rigid --duration 3 --quiet --out OUT", true, 40},  // 13 events, 48 kB
    {"RecordOut", "record models/hopper.xml --duration 3 --quiet --out OUT", true, 30},  // 21 records, 31 kB
    {"RecordCsv", "record models/hopper.xml --duration 3 --quiet --csv OUT", false, 2},  // 2.1 kB
    {"RecordPhi", "record --duration 0.5 --quiet --propagate both --phi-out OUT", true, 2},
    {"FloquetOut", "floquet models/rimless_wheel.xml --quiet --out OUT", true, 2},
    {"CompareOut", "compare models/vertical_ball.xml --taus 0.005 --integrator RK4 --dampratio 0.3 --window 0.43,0.5 --out OUT",
     true, 2},
};

class CliFullDisk : public ::testing::TestWithParam<Writer> {};

// /dev/full: the write fails with ENOSPC; the command exits 1 naming the file and the reason
TEST_P(CliFullDisk, DeviceFullExitsOneWithTheReason) {
  const Result r = RunCli(WithPath(GetParam().args, "/dev/full"));
  EXPECT_FALSE(r.signaled);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("could not write '/dev/full': No space left on device"));
}

// a file-size limit a few lines long: the file keeps whole lines only (an empty file when the
// first line is longer), exit 1 with "File too large"
TEST_P(CliFullDisk, FileSizeLimitLeavesWholeLinesOnly) {
  const std::string path = TempPath(std::string(GetParam().name) + ".out");
  std::remove(path.c_str());
  const Result r = RunCli(WithPath(GetParam().args, path), "ulimit -f " + std::to_string(GetParam().blocks) + ";");
  EXPECT_FALSE(r.signaled);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("could not write '" + path + "': File too large"));
  const std::string text = ReadAll(path);
  EXPECT_LE(text.size(), 512u * GetParam().blocks);
  if (text.empty()) return;
  EXPECT_EQ(text.back(), '\n') << "a partial line was left";
  std::istringstream in(text);
  std::string line, header;
  int lines = 0;
  while (std::getline(in, line)) {
    if (lines++ == 0) header = line;
    if (GetParam().json_lines) {
      EXPECT_TRUE(WholeJsonObject(line)) << line.substr(0, 80);
    } else {
      EXPECT_EQ(std::count(line.begin(), line.end(), ','), std::count(header.begin(), header.end(), ',')) << line;
    }
  }
  std::printf("[ whole lines ] %s: %d lines, %zu bytes kept\n", GetParam().name, lines, text.size());
}

INSTANTIATE_TEST_SUITE_P(Writers, CliFullDisk, ::testing::ValuesIn(kWriters),
                         [](const ::testing::TestParamInfo<Writer>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace saltation::testing
