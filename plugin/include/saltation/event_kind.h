// What an event is, by type: the kinds of the event stream and their one name table.
//
//   EventKind        the kinds; a RigidEvent is one of the first three or kFeature, the hook emits
//                    all but kFeature
//   EventKindName    (kind) => its name in JSON, CSV, the viewer and the CLI ("touchdown", …)
//   ParseEventKind   (name) => kind, false for a name no kind has
//   GeomPair         an unordered pair of geom ids (the key of per-pair bookkeeping)
#ifndef SALTATION_EVENT_KIND_H_
#define SALTATION_EVENT_KIND_H_

#include <algorithm>
#include <ostream>
#include <string_view>

namespace saltation {

enum class EventKind {
  kTouchdown,     // a contact point's distance reaches zero (impact reset)
  kLiftoff,       // a contact's rigid normal force reaches zero and it separates (identity reset)
  kSlip,          // a sticking contact's force reaches zero while it would still press when let
                  // slip: it continues frictionless (identity reset)
  kGraze,         // a touchdown whose transversality is below the grazing threshold, or a guard
                  // touching zero without crossing (Ξ undefined)
  kNearMiss,      // a guard's local minimum just above zero
  kSimultaneous,  // touchdowns within simultaneous_time: the group and both orderings' Ξ
  kZeno,          // bounce intervals shrinking geometrically: the accumulation time
  kChatter,       // onset and release of one contact within a few steps
  kRestitution,   // the effective restitution measured on MuJoCo's soft contact
  kFeature,       // a held contact's geometric feature changes (a sphere passing from a box's face
                  // onto its edge): the bias J̇v jumps, no reset (contact_features.h; rigid only)
};

inline constexpr EventKind kEventKinds[] = {
    EventKind::kTouchdown,    EventKind::kLiftoff, EventKind::kSlip,
    EventKind::kGraze,        EventKind::kNearMiss, EventKind::kSimultaneous,
    EventKind::kZeno,         EventKind::kChatter, EventKind::kRestitution,
    EventKind::kFeature};

const char* EventKindName(EventKind kind);
bool ParseEventKind(std::string_view name, EventKind* kind);
inline std::ostream& operator<<(std::ostream& os, EventKind kind) { return os << EventKindName(kind); }

// a contact starts (touchdown, graze) or ends (liftoff, slip)
inline bool IsOnset(EventKind k) { return k == EventKind::kTouchdown || k == EventKind::kGraze; }
inline bool IsRelease(EventKind k) { return k == EventKind::kLiftoff || k == EventKind::kSlip; }
inline bool ChangesContact(EventKind k) { return IsOnset(k) || IsRelease(k); }

struct GeomPair {
  int first = -1, second = -1;  // first ≤ second
  GeomPair() = default;
  GeomPair(int a, int b) : first(std::min(a, b)), second(std::max(a, b)) {}
  bool operator<(const GeomPair& o) const { return first != o.first ? first < o.first : second < o.second; }
  bool operator==(const GeomPair& o) const { return first == o.first && second == o.second; }
};

}  // namespace saltation

#endif  // SALTATION_EVENT_KIND_H_
