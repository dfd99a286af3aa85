#include "point_following.h"

namespace saltation {

void CarriedAnchors::Begin(const std::vector<ContactPoint>& start) {
  start_ = &start;
  known_.clear();
}

bool CarriedAnchors::NeedsRates(const ContactId& pair) const {
  int of_pair = 0;
  for (size_t k = 0; k < start_->size(); k++) {
    if (!(*start_)[k].id.SamePair(pair)) continue;
    if (!known_.empty() && known_[k]) return false;
    of_pair++;
  }
  return of_pair >= 2;
}

void CarriedAnchors::Carry(const ContactId& pair, const std::vector<ContactPoint>& probe, double delta, double h) {
  const std::vector<ContactPoint>& start = *start_;
  if (known_.empty()) {
    carried_ = start;  // (its storage reused from step to step)
    known_.assign(start.size(), 0);
  }
  for (size_t k = 0; k < start.size(); k++) {
    if (!start[k].id.SamePair(pair)) continue;
    const int at = MatchContact(start[k].id, probe);
    carried_[k].id.anchor = start[k].id.anchor;
    if (at >= 0) carried_[k].id.anchor += (h / delta) * (probe[at].id.anchor - start[k].id.anchor);
    known_[k] = 1;
  }
}

int CarriedAnchors::StartOf(const ContactId& end) const {
  const int nearest = MatchContact(end, *start_);
  if (nearest < 0 || known_.empty() || !known_[nearest]) return nearest;
  return MatchContact(end, carried_);
}

ContactId AnchorAt(const ContactId& start, const ContactId& end, double tau, double h) {
  ContactId id = start;
  if (h > 0) id.anchor += (tau / h) * (end.anchor - start.anchor);
  return id;
}

}  // namespace saltation
