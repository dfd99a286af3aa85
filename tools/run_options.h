// The command lines of `saltation rigid` and `saltation record`: their help texts and their
// options, each command accepting only its own (another command's option is a UsageError naming
// the command it belongs to).
#ifndef SALTATION_TOOLS_RUN_OPTIONS_H_
#define SALTATION_TOOLS_RUN_OPTIONS_H_

#include <string>
#include <vector>

namespace saltation::cli {

struct Args {
  std::string command;  // "rigid" or "record"
  bool help = false;    // -h / --help: print Usage(command) and stop
  std::string model;
  double duration = 2;
  std::string keyframe;
  double step = 1e-3;
  std::string start = "project";  // rigid: a penetrating start projected or refused
  double start_limit = 0.03;      // rigid: deepest penetration projected (m)
  int max_events = 10000;         // rigid: SimulatorOptions::max_events (events within 0.1 s)
  std::string restitution = "model";
  double grazing = 0.01;
  std::string out;
  bool quiet = false;
  bool progress = false;
  bool worker = false;  // record: HookOptions::worker_thread
  std::string csv;
  std::string propagate = "events";
  std::string phi_out;
  double near_miss = -1;
  double simultaneous = 1e-6;
  std::string ctrl = "hold";
  std::string mocap;  // rigid: a table of the mocap bodies' motion (mocap_table.h)  // hold | zero | a control table file (control_table.h)
};

// the arguments after the command word; UsageError on a bad one
Args ParseRunArgs(const std::string& command, const std::vector<std::string>& args);

// the --help text of rigid or record
const char* RunUsage(const std::string& command);

}  // namespace saltation::cli

#endif  // SALTATION_TOOLS_RUN_OPTIONS_H_
