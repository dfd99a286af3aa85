// Exact symmetries of a hybrid orbit: the cyclic coordinates (floquet.h) whose shift leaves the
// dynamics invariant, found by shifting — the hybrid flow over `duration` from the shifted state
// must equal the flow from s shifted by the same amount, to `tolerance` (a wheel's x on a level
// floor: yes; its x on a slope, or its roll angle: no). Reads the simulator's model and runs it;
// writes nothing else.
#ifndef SALTATION_SYMMETRY_H_
#define SALTATION_SYMMETRY_H_

#include <vector>

#include "saltation/rigid_simulator.h"

namespace saltation {

// the tangent indices among `candidates` that are exact symmetries; a shifted run that throws
// (the shift breaks a held contact) counts as no symmetry
std::vector<int> ExactSymmetries(RigidSimulator& sim, const HybridState& s, double duration,
                                 const std::vector<int>& candidates, double shift = 1e-2, double tolerance = 1e-9);

}  // namespace saltation

#endif  // SALTATION_SYMMETRY_H_
