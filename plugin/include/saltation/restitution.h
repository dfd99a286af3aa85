// Run-time restitution of the rigid model: the coefficient e each geom pair's impacts use.
//
// Model holds the per-geom values read from the MJCF <custom> fields (config.h) and never changes;
// a RestitutionTable starts from them (a pair uses the larger of its two geoms' values) and is
// what changes over a run: one value for every contact (a command-line override), or one pair's
// own value (the effective restitution the engine hook measures on MuJoCo's contact). The
// functions that solve impacts (SolveImpact, TouchdownEvent, CompleteEvent, ...) take the table
// explicitly and read it only; its owner (RigidSimulator, Hook) writes it.
#ifndef SALTATION_RESTITUTION_H_
#define SALTATION_RESTITUTION_H_

#include <map>
#include <utility>
#include <vector>

#include "saltation/model.h"

namespace saltation {

class RestitutionTable {
 public:
  // every pair 0 (no geoms known: Pair then answers 0, or an override)
  RestitutionTable() = default;
  // the model's per-geom <custom> values
  explicit RestitutionTable(const Model& model);

  // e of a contact between two geoms (either order): the pair's own value if one was set, else
  // the override for every contact if one was set, else the larger of the two geoms' values
  double Pair(int geom1, int geom2) const;
  // one value for every contact (drops the pairs' own values); ConfigError if not in [0, 1]
  void SetAll(double e);
  // one pair's own value; ConfigError if not in [0, 1]
  void SetPair(int geom1, int geom2, double e);

 private:
  std::vector<double> geom_;
  bool all_set_ = false;
  double all_ = 0;
  std::map<std::pair<int, int>, double> pair_;
};

}  // namespace saltation

#endif  // SALTATION_RESTITUTION_H_
