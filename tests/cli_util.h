// Running the `saltation` command line from the tests, as a user runs it.
#ifndef SALTATION_TESTS_CLI_UTIL_H_
#define SALTATION_TESTS_CLI_UTIL_H_

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace saltation::testing {

struct Result {
  int exit_code = -1;
  bool signaled = false;
  std::string output;  // stdout and stderr together
};

// runs `saltation ARGS` from the source tree with no standard input (ENV: assignments before it)
inline Result RunCli(const std::string& args, const std::string& env = "") {
  const std::string cmd = "cd " SALTATION_SOURCE_DIR " && " + env + " " SALTATION_CLI " " + args + " 2>&1 </dev/null";
  Result r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.signaled = WIFSIGNALED(status);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// A row of a command's event table ("time kind contact …", record's and rigid's alike).
struct TableRow {
  double time = 0;
  std::string kind, contact;
};
// the rows of `kind` whose contact starts with `contact`, in output order
inline std::vector<TableRow> TableRows(const std::string& output, const std::string& kind,
                                       const std::string& contact = "") {
  std::vector<TableRow> rows;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    TableRow r;
    if (fields >> r.time >> r.kind >> r.contact && r.kind == kind && r.contact.rfind(contact, 0) == 0) rows.push_back(r);
  }
  return rows;
}
// their times
inline std::vector<double> TableTimes(const std::string& output, const std::string& kind, const std::string& contact = "") {
  std::vector<double> times;
  for (const TableRow& r : TableRows(output, kind, contact)) times.push_back(r.time);
  return times;
}

// a temporary path of this process: ctest runs the cases as parallel processes, and each one writes
// its inputs when the parameterised cases are instantiated
inline std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/saltation_cli_" + std::to_string(getpid()) + "_" + name;
}

// every line a complete JSON object (structural check: braces and brackets balance outside strings)
inline bool WholeJsonObject(const std::string& line) {
  if (line.empty() || line.front() != '{' || line.back() != '}') return false;
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < line.size(); i++) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\') {
        i++;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '{' || c == '[') depth++;
    if (c == '}' || c == ']') depth--;
    if (depth < 0) return false;
    if (depth == 0 && i + 1 != line.size()) return false;
  }
  return depth == 0 && !in_string;
}

}  // namespace saltation::testing

#endif  // SALTATION_TESTS_CLI_UTIL_H_
