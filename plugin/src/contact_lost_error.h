// ModeConstraints' error (mode_dynamics.h) when an active contact has no point within the detection
// margin at the configuration it is given (that configuration moved the contact out of its band):
// the contact and how far apart its geoms are there (mj_geomDistance, m; +inf beyond 1 m). The
// exact reference names the cause from it (lost_contact.h).
#ifndef SALTATION_CONTACT_LOST_ERROR_H_
#define SALTATION_CONTACT_LOST_ERROR_H_

#include <string>

#include "saltation/contacts.h"
#include "saltation/errors.h"

namespace saltation {

class ContactLostError : public NumericalError {
 public:
  ContactLostError(const std::string& message, const ContactId& contact, double distance)
      : NumericalError(message), contact(contact), distance(distance) {}
  ContactId contact;
  double distance;
};

}  // namespace saltation

#endif  // SALTATION_CONTACT_LOST_ERROR_H_
