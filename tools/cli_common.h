// Helpers shared by the subcommands of the `saltation` command line.
#ifndef SALTATION_TOOLS_CLI_COMMON_H_
#define SALTATION_TOOLS_CLI_COMMON_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <string>

#include "saltation/saltation.h"

namespace saltation::cli {

// a mistake on the command line (exit status 2); other saltation::Error give exit status 1
class UsageError : public ConfigError {
 public:
  using ConfigError::ConfigError;
};

// a finite number or UsageError naming the option
double ParseNumber(const std::string& option, const std::string& text);

// the last case of a subcommand's option loop: an unknown option (UsageError with the usage), the
// model path, or one argument too many
void TakeModelArgument(const std::string& arg, std::string& model_path, const char* usage);

// writes text to path through a temporary file and a rename: never half-written
void WriteWhole(const std::string& path, const std::string& text);

// a row-major JSON array of arrays of A·exp(log_scale); non-finite entries as null
std::string MatrixJson(const Eigen::MatrixXd& A, double log_scale = 0);

// a JSON number (%.17g) or null
std::string JsonNumber(double x);

}  // namespace saltation::cli

#endif  // SALTATION_TOOLS_CLI_COMMON_H_
