#include "saltation/event_kind.h"

namespace saltation {

const char* EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kTouchdown: return "touchdown";
    case EventKind::kLiftoff: return "liftoff";
    case EventKind::kSlip: return "slip";
    case EventKind::kGraze: return "graze";
    case EventKind::kNearMiss: return "near_miss";
    case EventKind::kSimultaneous: return "simultaneous";
    case EventKind::kZeno: return "zeno";
    case EventKind::kChatter: return "chatter";
    case EventKind::kRestitution: return "restitution";
    case EventKind::kFeature: return "feature";
  }
  return "unknown";
}

bool ParseEventKind(std::string_view name, EventKind* kind) {
  for (EventKind k : kEventKinds) {
    if (name == EventKindName(k)) {
      *kind = k;
      return true;
    }
  }
  return false;
}

}  // namespace saltation
