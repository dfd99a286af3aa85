// A prescribed motion of the model's mocap bodies read from a CSV file (`rigid --mocap FILE`), as
// a MocapMotion (model.h) for Options::mocap_motion: surfaces the rigid reference sees moving
// (∂g/∂t at their strikes, impacts relative to them, Ξ with the time terms; events.h).
//
// The file: a header row `time,BODY.x,BODY.y,BODY.z,…` naming components of mocap bodies (any
// subset; a component not listed stays at the model's position), then one row per time, at least
// two, times strictly increasing; `#` starts a comment line, blank lines are skipped. Each listed
// component is the C² cubic spline through its rows with not-a-knot ends (MATLAB's `spline`; the
// line for two rows, the parabola for three), so a motion sampled every h from a smooth one comes
// back with position errors O(h⁴), velocity O(h³) and acceleration O(h²) — the strikes' ∂g/∂t is
// the spline's own derivative and Ξ's time term its second. Before the first row and after
// the last a body rests at the end row's position. Orientations stay the model's.
//
//   MocapTable::Read(m, path)   ConfigError naming the file and line on anything malformed (not
//                               a mocap body's component, a component listed twice, a missing or
//                               extra value, a value that is not a finite number, times not
//                               increasing, fewer than two rows), with the OS reason when the
//                               file cannot be read
//   Sample(t, mocap)            the pose and velocity of mocap body `mocap` (0…nmocap−1) at t
//   Motion()                    the table as a MocapMotion (a copy)
//
// Reads only the file and m's bodies; keeps no pointer to m.
#ifndef SALTATION_MOCAP_TABLE_H_
#define SALTATION_MOCAP_TABLE_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "saltation/model.h"

namespace saltation {

class MocapTable {
 public:
  static MocapTable Read(const mjModel* m, const std::string& path);

  MocapSample Sample(double t, int mocap) const;
  MocapMotion Motion() const;

  int rows() const { return static_cast<int>(times_.size()); }
  int columns() const { return static_cast<int>(columns_.size()); }
  double first_time() const { return times_.front(); }
  double last_time() const { return times_.back(); }

 private:
  struct Column {
    int mocap = -1;      // mocap index
    int axis = 0;        // 0 x, 1 y, 2 z
    std::vector<double> value, slope;  // per row
  };
  std::vector<double> times_;
  std::vector<Column> columns_;
  std::vector<MocapSample> rest_;  // per mocap body: the model's pose, at rest
};

}  // namespace saltation

#endif  // SALTATION_MOCAP_TABLE_H_
