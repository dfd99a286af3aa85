// Helpers shared by the subcommands of the `saltation` command line: argument walking, the start
// state, progress on stderr.
#ifndef SALTATION_TOOLS_CLI_COMMON_H_
#define SALTATION_TOOLS_CLI_COMMON_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <chrono>
#include <string>
#include <vector>

#include "saltation/saltation.h"

namespace saltation::cli {

// a mistake on the command line (exit status 2; main prints it on one line and "see `saltation
// CMD --help`"); other saltation::Error give exit status 1
class UsageError : public ConfigError {
 public:
  using ConfigError::ConfigError;
};

// Walks a subcommand's arguments in order, "--opt value" and "--opt=value" alike:
//   for (ArgumentCursor c(args); c.Next();) { if (c.arg() == "--out") out = c.Value(); ... }
class ArgumentCursor {
 public:
  explicit ArgumentCursor(const std::vector<std::string>& args) : args_(args) {}
  // moves to the next argument; false after the last
  bool Next();
  // the current argument; for "--opt=value", "--opt"
  const std::string& arg() const { return arg_; }
  // -h or --help
  bool IsHelp() const { return arg() == "-h" || arg() == "--help"; }
  // an option or a stray "-x" (not "-" alone, which is a path)
  bool IsOption() const { return arg_.size() > 1 && arg_[0] == '-'; }
  // the current option's value: after '=' or the next argument (consumed); UsageError when there is
  // none
  std::string Value();
  // the current option is a switch: UsageError when it was given "=value"
  void Flag() const;

 private:
  const std::vector<std::string>& args_;
  size_t next_ = 0;  // index of the argument after the current one
  std::string arg_;
  bool has_inline_ = false;
  std::string inline_value_;
};

// a finite number or UsageError naming the option
double ParseNumber(const std::string& option, const std::string& text);

// UsageError when the output path `path` of `option` names the model file itself (the same file,
// by device and inode): opening it for writing would destroy the model
void CheckNotTheModel(const std::string& option, const std::string& path, const std::string& model_path);

// the last case of a subcommand's option loop: an unknown option (UsageError), the model path, or
// one argument too many
void TakeModelArgument(const ArgumentCursor& cursor, std::string& model_path);

// The start state every command uses: the keyframe asked for (name or index; "none" is qpos0), or
// by default the model's first keyframe when it has one, else qpos0.
struct Start {
  std::string key;          // for InitialState / InitialControl ("" = qpos0)
  std::string description;  // "keyframe 'throw' (the model's first; --keyframe none for qpos0)", …
};
// ConfigError "model has no keyframe 'K'; its keyframes: 'a', 'b' (or an index 0–1, or none)" for
// a name the model does not have
Start ResolveStart(const mjModel* m, const std::string& requested);

// The controls of a run (--ctrl): `hold` the start keyframe's ctrl (InitialControl: 0 without a
// keyframe), `zero`, or a table file (control_table.h) whose law moves them over the run.
struct Controls {
  Eigen::VectorXd start;     // nu: the controls at the start time
  ControlLaw law;            // the table's (empty for hold and zero: the start controls are held)
  std::string description;   // for the "control:" line of the command's output
};
// ConfigError from the table reader (file, line, reason)
Controls ResolveControls(const mjModel* m, const Start& start, double start_time, const std::string& ctrl);

// Progress of a long run on stderr, one line rewritten in place: shown when stderr is a terminal
// or with --progress (then a line per 10 %), never with --quiet.
class Progress {
 public:
  Progress(const std::string& label, bool forced, bool quiet);
  bool enabled() const { return enabled_; }
  // fraction done in [0, 1] and a short note ("t = 1.20 s"); rate-limited on a terminal
  void Update(double fraction, const std::string& note);
  // a task with no fraction to show: "label: note"
  void Status(const std::string& note);
  // clears the line on a terminal
  void Done();

 private:
  std::string label_;
  bool enabled_ = false, terminal_ = false, shown_ = false;
  int last_tenth_ = -1;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace saltation::cli

#endif  // SALTATION_TOOLS_CLI_COMMON_H_
