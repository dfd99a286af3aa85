// Contact islands: the kinematic trees an event can reach (issue 15, "work per island").
//
// M is block-diagonal over MuJoCo's kinematic trees, and a contact row J is non-zero only on the
// degrees of freedom of its two geoms' trees. Trees that no constraint couples therefore evolve
// independently in the rigid model: an impact, a release, F⁺ − F⁻ and Ξ − I of an event live on the
// trees coupled to the event's contact, and are exactly the identity (zero) elsewhere.
//
// The trees are coupled by
//   - the contacts given as links (a mode's contacts: a foot on another body's back),
//   - MuJoCo's equality constraints (their rows are active in every mode, ModeConstraints): the
//     trees of each constraint's objects are linked, and every equality-constrained tree belongs to
//     every island (the rows are always in the solve),
//   - tendons that span trees: armature couples them in M, damping in F (an impact on one tree
//     changes the other's acceleration, so Ξ − I reaches it), stiffness and actuators along the
//     flow (all the trees along the tendon's path are joined),
//   - actuators between sites on two trees (slider-crank, site with a reference site, SO3).
// Forces a user adds through MuJoCo's callbacks (mjcb_passive, mjcb_control) are not seen: a
// callback coupling trees must be expressed as one of the above to be honoured.
// Models the analysis cannot split (flexes; an equality object it cannot place) give the whole
// model as one island, as do islands that cover every tree.
//
//   WholeIsland   (the model) => the island of every tree: whole, all nv degrees of freedom
//   IslandOf      (the model, the link contacts, the seed contacts) => the island: the trees
//                 coupled to any seed, and their degrees of freedom in increasing order
//   RestrictMode  (a mode, an island) => the mode's contacts inside the island (mode order kept)
//                 and, optionally, the rest
//   IndexInIsland (a mode, a contact's index in it, an island) => its index in the restricted mode
//   MergeModes    (the rest, an island's mode) => rest's contacts then the island's
//   GroupRows     (constraint rows J) => the rows split into groups that share no tree: J M⁻¹ Jᵀ is
//                 block-diagonal over the groups (each group's rows and degrees of freedom)
//
// Reads the model only.
#ifndef SALTATION_ISLANDS_H_
#define SALTATION_ISLANDS_H_

#include <vector>

#include "saltation/contacts.h"
#include "saltation/mode_dynamics.h"
#include "saltation/model.h"

namespace saltation {

struct Island {
  bool whole = true;          // every tree (and whatever is not in a tree): no restriction
  std::vector<char> tree;     // per kinematic tree: in the island (empty when whole)
  std::vector<int> dofs;      // the island's degrees of freedom, increasing (all nv when whole)

  // whether contact id lies in the island (both geoms on its trees or static)
  bool Contains(const mjModel* m, const ContactId& id) const;
};

Island WholeIsland(const mjModel* m);

Island IslandOf(const Model& model, const std::vector<ContactId>& links, const std::vector<ContactId>& seeds);

Mode RestrictMode(const mjModel* m, const Mode& mode, const Island& island, Mode* rest = nullptr);

// the index of mode.contacts[k] (inside the island) among RestrictMode(m, mode, island)'s contacts
int IndexInIsland(const mjModel* m, const Mode& mode, int k, const Island& island);

Mode MergeModes(const Mode& rest, const Mode& island_mode);

// Constraint rows grouped by the trees they reach: two rows share a group when their non-zero
// entries share a kinematic tree, or trees that M couples (cross-tree tendons with armature); a
// model the analysis cannot split (flexes, a tendon with armature over more than two trees) gives
// one group. Groups are ordered by their first row; rows and dofs increase within a group.
// Reuses its vectors' storage from call to call (the hook's per-step path).
struct RowGroups {
  int count = 0;
  std::vector<std::vector<int>> rows;  // the rows of each group (count entries in use)
  std::vector<std::vector<int>> dofs;  // the degrees of freedom of each group's trees
  std::vector<int> parent, row_tree, group_of_root;  // scratch
};

void GroupRows(const mjModel* m, const RowMatrix& J, RowGroups& out);

}  // namespace saltation

#endif  // SALTATION_ISLANDS_H_
