// Subcommands of the `saltation` command line that parse their own options. Each returns the
// process exit status (0 done, 1 bad model or state, 2 bad command line) and throws
// saltation::Error for the caller to print (UsageError: a mistake on the command line).
#ifndef SALTATION_TOOLS_COMMANDS_H_
#define SALTATION_TOOLS_COMMANDS_H_

#include <string>
#include <vector>

namespace saltation::cli {

// saltation floquet MODEL.xml [options]: periodic orbit and Floquet multipliers
int RunFloquet(const std::vector<std::string>& args);

// saltation compare MODEL.xml [options]: rigid vs MuJoCo's compliant sensitivity over a stiffness sweep
int RunCompare(const std::vector<std::string>& args);

// saltation report LOG.jsonl [...]: execs <python> -m saltation.report with the arguments (returns
// only for --help; throws when python cannot be run or lacks the module)
int RunReport(const std::vector<std::string>& args);

}  // namespace saltation::cli

#endif  // SALTATION_TOOLS_COMMANDS_H_
