// A simultaneous group as the hook forms it, read back from the hook's events (tests only).
//
//   InMode           (a mode, a contact) => whether the contact is one of the mode's (same pair,
//                    same anchor to 1e-12)
//   FirstSimultaneous (the hook's events) => its first simultaneous record (null: none)
//   GroupAsTheHookFormsIt (the hook's events, its simultaneous record) => the group's first member
//                    event and its members in the hook's first ordering: the first member's impact
//                    candidates not in its mode, then the group's other touchdowns
//   StepToFirstGroup (a model, a time limit) => a hook stepped from the model's start until its first
//                    simultaneous record (at most to the limit), the record and its group as above
#ifndef SALTATION_TESTS_HOOK_GROUP_H_
#define SALTATION_TESTS_HOOK_GROUP_H_

#include <memory>
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

// sim and formed point into hook->events(): valid until the hook is stepped again. Stepping stops at
// the step that writes the first simultaneous record: the hook never amends a record in a later step
struct SteppedToGroup {
  std::unique_ptr<Hook> hook;
  DataPtr data;                   // (of m, which must outlive it)
  const HookEvent* sim = nullptr;  // null: no simultaneous record by the limit
  FormedGroup formed;             // (empty when sim is null)
};

SteppedToGroup StepToFirstGroup(const mjModel* m, double until);

}  // namespace saltation::testing

#endif  // SALTATION_TESTS_HOOK_GROUP_H_
