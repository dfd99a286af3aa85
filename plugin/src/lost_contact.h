// Why the exact reference's step lost an active contact (issue 14): ModeConstraints throws
// ContactLostError when a configuration inside a step (an RK4 stage, or the step's end) puts an
// active contact beyond its detection band; that names the contact that left, not what moved it.
//
//   LostContactMessage(model, data, s, h, error)
//     (s the hybrid state at the step's start, h the step, error the ContactLostError)
//     => the message: the step (t, h), the contact that left and how far apart its geoms were,
//        and the cause read from the mode at the step's start: its largest acceleration (the dof,
//        the contact with the largest normal force, its feature) and its largest speed, with the
//        displacements they make over the step (h²|a|/2 against h|v|): the larger one is named
//        the cause — accelerations (a near-singular contact geometry, such as two capsules' axes
//        near parallel) or the speed over the step (the step too long for the surfaces' curvature).
//     Evaluates the mode on data (main and aux); never throws itself (a failing evaluation is
//     reported as such in the message).
#ifndef SALTATION_LOST_CONTACT_H_
#define SALTATION_LOST_CONTACT_H_

#include <string>

#include "contact_lost_error.h"
#include "saltation/events.h"
#include "saltation/mode_dynamics.h"
#include "saltation/model.h"

namespace saltation {

std::string LostContactMessage(const Model& model, Data& data, const HybridState& s, double h,
                               const ContactLostError& error);

}  // namespace saltation

#endif  // SALTATION_LOST_CONTACT_H_
