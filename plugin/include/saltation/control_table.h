// A table of actuator controls over time, read from a CSV file (`--ctrl FILE`), as a ControlLaw
// (model.h) of time alone.
//
// The file: a header row `time,NAME,NAME,…` naming actuators of the model (by name, or by index
// 0…nu−1 for unnamed ones), then one row per time, times strictly increasing; `#` starts a comment
// line, blank lines are skipped. Between rows every listed control is interpolated linearly (the
// law is continuous; its rows are kinks, where the rigid reference's fixed RK4 step is only
// second-order: put rows on the step grid for full accuracy); before the first row it holds the
// first row, after the last the last. Actuators the header does not list keep `held` (the start's
// controls: the keyframe's, as --ctrl hold).
//
//   ControlTable::Read(m, path, held)   ConfigError naming the file and line on anything malformed
//                                       (unknown or repeated actuator, a missing or extra value, a
//                                       value that is not a finite number, times not increasing, no
//                                       row), with the OS reason when the file cannot be read
//   Evaluate(t, ctrl)                   writes the nu controls at t
//   Law()                               the table as a ControlLaw (a copy; state is not read)
//
// Reads only the file and m's actuator names; keeps no pointer to m.
#ifndef SALTATION_CONTROL_TABLE_H_
#define SALTATION_CONTROL_TABLE_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "saltation/model.h"

namespace saltation {

class ControlTable {
 public:
  static ControlTable Read(const mjModel* m, const std::string& path, const Eigen::VectorXd& held);

  void Evaluate(double t, mjtNum* ctrl) const;
  ControlLaw Law() const;

  double first_time() const { return times_.front(); }
  double last_time() const { return times_.back(); }
  int rows() const { return static_cast<int>(times_.size()); }
  const std::vector<int>& actuators() const { return actuators_; }

 private:
  std::vector<int> actuators_;             // the header's actuators, in column order
  std::vector<double> times_;              // one per row
  std::vector<Eigen::VectorXd> values_;    // one per row: the listed actuators' controls
  Eigen::VectorXd held_;                   // nu: the controls of actuators not listed
};

}  // namespace saltation

#endif  // SALTATION_CONTROL_TABLE_H_
