// A simultaneous group as the hook forms it, read back from the hook's events (tests only).
//
//   InMode           (a mode, a contact) => whether the contact is one of the mode's (same pair,
//                    same anchor to 1e-12)
//   FirstSimultaneous (the hook's events) => its first simultaneous record (null: none)
//   GroupAsTheHookFormsIt (the hook's events, its simultaneous record) => the group's first member
//                    event and its members in the hook's first ordering: the first member's impact
//                    candidates not in its mode, then the group's other touchdowns
#ifndef SALTATION_TESTS_HOOK_GROUP_H_
#define SALTATION_TESTS_HOOK_GROUP_H_

#include <vector>

#include "saltation/hook.h"

namespace saltation::testing {

bool InMode(const Mode& mode, const ContactId& id);

struct FormedGroup {
  const HookEvent* first = nullptr;  // null: no member event of the group
  std::vector<ContactId> members;
};

const HookEvent* FirstSimultaneous(const std::vector<HookEvent>& events);

FormedGroup GroupAsTheHookFormsIt(const std::vector<HookEvent>& events, const HookEvent& simultaneous);

}  // namespace saltation::testing

#endif  // SALTATION_TESTS_HOOK_GROUP_H_
