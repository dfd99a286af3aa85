// saltation report LOG.jsonl [--out report.html] [...]: runs `<python> -m saltation.report ARGS…`
// (the Python package renders the page), replacing this process (execvp): the module's output and
// exit status are the command's. <python> is the interpreter the build found
// (SALTATION_PYTHON_EXECUTABLE), or the environment's SALTATION_PYTHON.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli_common.h"
#include "commands.h"

namespace saltation::cli {
namespace {

const char* kReportUsage = R"(usage: saltation report LOG.jsonl [--out report.html] [options]

Writes a self-contained HTML page of a run recorded with `saltation record --out LOG.jsonl`: the
events over time, ‖Ξ‖ and the grazing measure, the largest-‖Ξ‖ events with their Ξ heat maps.
It runs `PYTHON -m saltation.report ARGS…` with the arguments given here (see
`PYTHON -m saltation.report --help` for its options); PYTHON is the interpreter the build found,
or the environment variable SALTATION_PYTHON when it is set. The exit status is the module's.

  -h, --help           this text
)";

// 0 when python has saltation.report, 3 when it has not (or not saltation), another status when
// python could not be run at all; the probe's output is discarded
int ProbeModule(const std::string& python) {
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (FILE* null = std::fopen("/dev/null", "w")) {
      dup2(fileno(null), STDOUT_FILENO);
      dup2(fileno(null), STDERR_FILENO);
    }
    const char* code =
        "import importlib.util as u, sys\n"
        "try:\n    found = u.find_spec('saltation.report') is not None\n"
        "except ImportError:\n    found = False\n"
        "sys.exit(0 if found else 3)\n";
    execlp(python.c_str(), python.c_str(), "-c", code, static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

int RunReport(const std::vector<std::string>& args) {
  bool log_given = false;
  for (ArgumentCursor cursor(args); cursor.Next();) {
    if (cursor.IsHelp()) {
      std::printf("%s", kReportUsage);
      return 0;
    }
    if (!cursor.IsOption()) log_given = true;
  }
  if (!log_given) throw UsageError("report needs the log to read: saltation report LOG.jsonl");
  const char* env = std::getenv("SALTATION_PYTHON");
  const std::string python = env && *env ? env : SALTATION_PYTHON_EXECUTABLE;
  if (python.empty()) throw ConfigError("no Python interpreter was found when saltation was built: set SALTATION_PYTHON");
  const int probe = ProbeModule(python);
  if (probe == 3) {
    throw ConfigError("the Python module saltation.report is not installed for " + python +
                      " (pip install . in the repository, or set SALTATION_PYTHON to an interpreter that has it)");
  }
  std::vector<std::string> argv_strings = {python, "-m", "saltation.report"};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  execvp(python.c_str(), argv.data());
  throw ConfigError("cannot run " + python + ": " + std::strerror(errno) + " (set SALTATION_PYTHON to a Python interpreter)");
}

}  // namespace saltation::cli
