// A contact point outside the mode followed through one step: which of its pair's points at the
// step's start a point at the step's end continues, and the identity a guard follows in between.
// One implementation for the exact reference (rigid_simulator.cc) and the engine hook's
// localisation (crossings.cc).
//
// Points of a pair are told apart by their anchors (contacts.h: the nearest anchor matches). A
// point can slide over its geoms much faster than they move: the corner of two box faces lying
// flat on each other is an edge–edge point of two nearly parallel edges and runs along them at
// ~v/angle (~1 mm per 1 ms step in a pile of boxes), so that at the step's end it lies nearer to a
// neighbour's start anchor than to its own. Matched to the start anchors alone, a touchdown at the
// step's end is taken for the neighbour's: its guard follows the neighbour and the crossing goes
// unlocated, or is located on the wrong point and too late.
//
//   CarriedAnchors::Begin    (the step's start points)     => a new step (nothing copied yet)
//   CarriedAnchors::NeedsRates (a pair)                    => whether it has several start points
//                            whose rates are not known yet (the caller then computes the pair's
//                            points a short sub-step δ into the step and calls Carry)
//   CarriedAnchors::Carry    (a pair, its points δ into the step of length h)
//                            => each start point of the pair with its anchor carried over the whole
//                               step at its rate, (h/δ)·(its nearest point's anchor at δ − its own)
//   CarriedAnchors::StartOf  (a point at the step's end)   => the start point whose carried anchor
//                            lands nearest to its anchor (its pair's only start point, or the
//                            nearest start anchor where the rates were not computed)
//   AnchorAt                 (start id, end id, τ, h)      => the identity at τ: the start point's
//                            anchor moved linearly to the end point's, which a guard evaluated
//                            inside the step matches (at τ = h the end point itself)
//
// Reads and writes only its arguments and its own copy of the start points.
#ifndef SALTATION_POINT_FOLLOWING_H_
#define SALTATION_POINT_FOLLOWING_H_

#include <vector>

#include "saltation/contacts.h"

namespace saltation {

// δ of the sub-step that gives the anchors' rates, as a fraction of the step
inline constexpr double kAnchorRateProbe = 1e-3;

class CarriedAnchors {
 public:
  // `start` (the points outside the mode at the step's start) must outlive the step's calls
  void Begin(const std::vector<ContactPoint>& start);
  bool NeedsRates(const ContactId& pair) const;
  // `probe`: points at δ into the step (any pairs; the ones of `pair` are read)
  void Carry(const ContactId& pair, const std::vector<ContactPoint>& probe, double delta, double h);
  int StartOf(const ContactId& end) const;

 private:
  const std::vector<ContactPoint>* start_ = nullptr;
  std::vector<ContactPoint> carried_;  // start_'s points, the anchors of the carried pairs moved
  std::vector<char> known_;            // per start point: carried
};

ContactId AnchorAt(const ContactId& start, const ContactId& end, double tau, double h);

}  // namespace saltation

#endif  // SALTATION_POINT_FOLLOWING_H_
