// Helpers shared by the subcommands of the `saltation` command line.
#ifndef SALTATION_TOOLS_CLI_COMMON_H_
#define SALTATION_TOOLS_CLI_COMMON_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "saltation/saltation.h"

namespace saltation::cli {

// a mistake on the command line (exit status 2); other saltation::Error give exit status 1
class UsageError : public ConfigError {
 public:
  using ConfigError::ConfigError;
};

// Walks a subcommand's arguments in order:
//   for (ArgumentCursor c(args); c.Next();) { if (c.arg() == "--out") out = c.Value(); ... }
class ArgumentCursor {
 public:
  explicit ArgumentCursor(const std::vector<std::string>& args) : args_(args) {}
  // moves to the next argument; false after the last
  bool Next() { return ++next_ <= args_.size(); }
  // the current argument
  const std::string& arg() const { return args_[next_ - 1]; }
  // -h or --help
  bool IsHelp() const { return arg() == "-h" || arg() == "--help"; }
  // the current option's value, the argument after it (consumed); UsageError when there is none
  std::string Value();

 private:
  const std::vector<std::string>& args_;
  size_t next_ = 0;  // index of the argument after the current one
};

// a finite number or UsageError naming the option
double ParseNumber(const std::string& option, const std::string& text);

// the last case of a subcommand's option loop: an unknown option (UsageError with the usage), the
// model path, or one argument too many
void TakeModelArgument(const std::string& arg, std::string& model_path, const char* usage);

// writes text to path through a temporary file and a rename: never half-written
void WriteWhole(const std::string& path, const std::string& text);

}  // namespace saltation::cli

#endif  // SALTATION_TOOLS_CLI_COMMON_H_
