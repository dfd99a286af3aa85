#include "release_prefilter.h"

#include <algorithm>
#include <cmath>

namespace saltation {

ReleasePrefilter::ReleasePrefilter(const mjModel* m, double force_tol, bool enabled) : force_tol_(force_tol) {
  const double g = mju_norm3(m->opt.gravity);
  enabled_ = enabled && g > 0;
  // trees coupled other than by contacts: one group
  one_group_ = m->neq > 0 || m->nflex > 0;
  for (int i = 0; i < m->ntendon; i++) one_group_ = one_group_ || (m->tendon_armature[i] != 0 && m->tendon_treenum[i] > 1);
  root_weight_.assign(m->nbody, 0.0);
  for (int b = 1; b < m->nbody; b++) {
    if (m->body_rootid[b] == b) root_weight_[b] = g * m->body_subtreemass[b];
  }
  hfield_.assign(m->ngeom, 0);
  for (int i = 0; i < m->ngeom; i++) hfield_[i] = m->geom_type[i] == mjGEOM_HFIELD;
  count_.assign(m->nbody, 0);
  parent_.assign(m->nbody, 0);
  group_far_.assign(m->nbody, 1);
}

int ReleasePrefilter::Find(int b) {
  while (parent_[b] != b) b = parent_[b] = parent_[parent_[b]];
  return b;
}

int ReleasePrefilter::Decide(const mjModel* m, const mjData* d, const std::vector<ContactId>& contacts,
                             const std::vector<ContactPoint>& points, const std::vector<int>& match,
                             std::vector<char>& skip, Eigen::VectorXd& force) {
  const int n = static_cast<int>(contacts.size());
  skip.assign(n, 0);
  force.resize(n);
  if (!enabled_) return 0;
  if (!(mode_known_ && SameContacts(contacts, mode_))) {
    mode_ = contacts;
    lambda_.assign(n, std::nan(""));
    lambda_change_.assign(n, std::nan(""));
    f_solved_.assign(n, std::nan(""));
    solved_at_.assign(n, -2);
    mode_known_ = true;
  }
  calls_++;
  f_.assign(n, std::nan(""));
  share_.assign(n, 0.0);
  // each contact's share of the weight it carries, and the groups (union–find over tree roots;
  // root 0, the world, joins nothing)
  for (int k = 0; k < n; k++) {
    for (int geom : {contacts[k].geom1, contacts[k].geom2}) {
      const int r = RootOf(m, geom);
      count_[r]++;
      parent_[r] = r;
    }
  }
  for (int k = 0; k < n; k++) {
    for (int geom : {contacts[k].geom1, contacts[k].geom2}) {
      const int r = RootOf(m, geom);
      if (r > 0) share_[k] = std::max(share_[k], root_weight_[r] / count_[r]);
    }
    const int a = RootOf(m, contacts[k].geom1), b = RootOf(m, contacts[k].geom2);
    if (a > 0 && b > 0) parent_[Find(a)] = Find(b);
  }
  int roots_far = 0;
  for (int k = 0; k < n; k++) {
    const ContactId& id = contacts[k];
    const int i = points[match[k]].mj_index;
    bool far = i >= 0 && i < d->ncon && d->contact[i].efc_address >= 0 && !hfield_[id.geom1] && !hfield_[id.geom2];
    if (far) {
      mjtNum f[6];
      mj_contactForce(m, d, i, f);
      f_[k] = f[0];
      const double floor = std::max(kFactor * share_[k], force_tol_), band = kSteady * share_[k];
      // steady: λ agreed with f at the last solve (a determinate contact), or λ did not move
      // between the last two solves, a step apart (statically indeterminate contacts share the load
      // differently in the rigid and the soft model)
      const bool steady = std::abs(lambda_[k] - f_solved_[k]) <= band || std::abs(lambda_change_[k]) <= band;
      far = share_[k] > 0 && f[0] >= floor && lambda_[k] >= floor && steady && std::abs(f[0] - f_solved_[k]) <= band;
    }
    // the group of the contact: its dynamic root's (a contact between two static geoms: alone)
    const int a = RootOf(m, id.geom1), b = RootOf(m, id.geom2);
    const int root = one_group_ ? -1 : (b > 0 ? Find(b) : a > 0 ? Find(a) : 0);
    if (root > 0) {
      group_far_[root] = group_far_[root] && far;
    } else if (root < 0) {
      roots_far += !far;  // one group: any contact near solves all
    }
    skip[k] = far;  // the contact's own verdict for now (root 0: alone)
  }
  int skipped = 0;
  for (int k = 0; k < n; k++) {
    const int a = RootOf(m, contacts[k].geom1), b = RootOf(m, contacts[k].geom2);
    const int root = one_group_ ? -1 : (b > 0 ? Find(b) : a > 0 ? Find(a) : 0);
    if (root > 0) skip[k] = static_cast<char>(group_far_[root]);
    if (root < 0) skip[k] = static_cast<char>(roots_far == 0);
    if (skip[k]) force(k) = lambda_[k];
    skipped += skip[k];
  }
  for (int k = 0; k < n; k++) {
    for (int geom : {contacts[k].geom1, contacts[k].geom2}) {
      const int r = RootOf(m, geom);
      count_[r] = 0;
      group_far_[r] = 1;
    }
  }
  return skipped;
}

void ReleasePrefilter::Solved(const std::vector<ContactId>& contacts, const std::vector<char>& skip,
                              const Eigen::VectorXd& force) {
  if (!enabled_ || !mode_known_ || contacts.size() != mode_.size()) return;
  for (size_t k = 0; k < contacts.size(); k++) {
    if (skip[k]) continue;
    const double lambda = force(static_cast<Eigen::Index>(k));
    lambda_change_[k] = solved_at_[k] == calls_ - 1 ? lambda - lambda_[k] : std::nan("");
    solved_at_[k] = calls_;
    lambda_[k] = lambda;
    f_solved_[k] = f_[k];
  }
}

void ReleasePrefilter::Rename(const std::vector<ContactId>& from, const std::vector<ContactId>& to) {
  if (mode_known_ && SameContacts(mode_, from)) mode_ = to;
}

}  // namespace saltation
