// Features of a box against a box (box_box_features.h).
#include "box_box_features.h"

#include <cmath>

#include "box_frame.h"

#include "segment_features.h"

namespace saltation {

namespace {

using Vec3 = Eigen::Vector3d;

using Box = BoxFrame;

// a vertex–face code's parts
struct VertexFace {
  int side = 0, vertex = 0, axis = 0, sign = 1;
};
VertexFace VertexFaceOf(int feature) {
  const int f = feature - kVertexFaceBase;
  return {f / 48, (f % 48) / 6, (f % 6) / 2, f % 2 ? 1 : -1};
}


// an edge code's axis and signs
void EdgeSigns(int edge, int& axis, int sign[3]) {
  axis = edge / 4;
  sign[axis] = 0;
  sign[(axis + 1) % 3] = edge & 1 ? 1 : -1;
  sign[(axis + 2) % 3] = edge & 2 ? 1 : -1;
}

// an edge–edge feature's two edges as segments of radius 0 (segment_features.h), and n: the unit
// common normal oriented outward from geom2's edge (zero where the edges are parallel)
struct EdgePair {
  Segments s;
  int sign[2][3];
  Vec3 n = Vec3::Zero();
};
EdgePair EdgePairOf(const Box b[2], int feature) {
  EdgePair p;
  const int f = feature - kEdgeEdgeBase;
  const int edge[2] = {f / 12, f % 12};
  Vec3 bisector = Vec3::Zero();
  for (int i = 0; i < 2; i++) {
    int axis;
    EdgeSigns(edge[i], axis, p.sign[i]);
    Vec3 mid = Vec3::Zero();
    for (int a = 0; a < 3; a++) mid(a) = p.sign[i][a] * b[i].half(a);
    p.s.c[i] = b[i].x + b[i].R * mid;
    p.s.e[i] = b[i].R.col(axis);
    p.s.half[i] = b[i].half(axis);
    p.s.has_length[i] = true;
    p.s.body[i] = b[i].body;
    if (i == 1) bisector = b[1].R * Vec3(p.sign[1][0], p.sign[1][1], p.sign[1][2]);
  }
  const Vec3 cross = p.s.e[0].cross(p.s.e[1]);
  if (cross.norm() > 0) p.n = cross.normalized();
  if (p.n.dot(bisector) < 0) p.n = -p.n;
  return p;
}

// how far a normal n (outward from box `outer`'s edge) points into one of the faces of the two
// edges (box_box_points.cc's out-of-cone measure): −n must leave `inner`'s edge
double OutOfCone(const Vec3& n, const Box& outer, const int outer_sign[3], const Box& inner, const int inner_sign[3]) {
  double out = 0;
  for (int a = 0; a < 3; a++) {
    if (outer_sign[a]) out = std::max(out, -outer_sign[a] * n.dot(outer.R.col(a)));
    if (inner_sign[a]) out = std::max(out, inner_sign[a] * n.dot(inner.R.col(a)));
  }
  return out;
}

// a vertex–face's successor past the rim of its face along `axis` at side `sigma`: the edge–edge
// of the rim edge and the vertex's edge across it (box_box_features.h)
int VertexFaceSuccessor(const Box b[2], const VertexFace& vf, int axis, int sigma) {
  const Box& va = b[vf.side];      // the vertex's box
  const Box& fb = b[1 - vf.side];  // the face's box
  int rim[3] = {0, 0, 0};
  rim[vf.axis] = vf.sign, rim[axis] = sigma;
  const int rim_axis = 3 - vf.axis - axis;
  const Vec3 e_rim = fb.R.col(rim_axis);
  const Vec3 rim_bisector = fb.R * Vec3(rim[0], rim[1], rim[2]);
  // the normal must run on continuously: the face's (n·outward = 1 at the boundary); among edges
  // equally aligned, the least out of the cones
  const Vec3 face_normal = vf.sign * fb.R.col(vf.axis);
  int best = -1;
  double best_align = -INFINITY, best_out = INFINITY;
  for (int j = 0; j < 3; j++) {
    int sign[3];
    for (int a = 0; a < 3; a++) sign[a] = vf.vertex >> a & 1 ? 1 : -1;
    sign[j] = 0;
    const Vec3 cross = va.R.col(j).cross(e_rim);
    if (cross.squaredNorm() < 1e-12) continue;  // parallel to the rim: left to the vertices
    Vec3 n = cross.normalized();
    if (n.dot(rim_bisector) < 0) n = -n;
    // n outward from the rim; box_box_points' n is outward from geom2's edge
    const double out = OutOfCone(n, fb, rim, va, sign);
    const double align = n.dot(face_normal);
    if (align > best_align + 1e-9 || (align > best_align - 1e-9 && out < best_out)) {
      best_align = align, best_out = out;
      const int edge_v = EdgeCode(j, sign), edge_r = EdgeCode(rim_axis, rim);
      best = vf.side == 0 ? EdgeEdgeFeature(edge_v, edge_r) : EdgeEdgeFeature(edge_r, edge_v);
    }
  }
  return best;
}

// an edge–edge's successor past the end `end` (±1) of side i's edge: that vertex over the face of
// the other box next to its edge whose outward normal is nearest the pair's normal
int EdgeEdgeSuccessor(const Box b[2], const EdgePair& p, int i, int end) {
  const int j = 1 - i;
  int vertex = 0;
  for (int a = 0; a < 3; a++) {
    const int s = p.sign[i][a] ? p.sign[i][a] : end;
    if (s > 0) vertex |= 1 << a;
  }
  // the normal pointing from box i towards box j: −n from geom1 (side 0), n from geom2
  const Vec3 towards = i == 0 ? Vec3(-p.n) : Vec3(p.n);
  int face = -1;
  double best = -INFINITY;
  for (int a = 0; a < 3; a++) {
    if (!p.sign[j][a]) continue;
    // box j's face's outward normal should point back at box i: against `towards`
    const double along = -p.sign[j][a] * towards.dot(b[j].R.col(a));
    if (along > best) best = along, face = a;
  }
  return VertexFaceFeature(i, vertex, face, p.sign[j][face]);
}

void BoxesOf(const mjModel* m, const mjData* d, const ContactId& id, Box b[2]) {
  b[0] = BoxFrameOf(m, d, id.geom1);
  b[1] = BoxFrameOf(m, d, id.geom2);
}

}  // namespace

bool IsBoxBoxFeature(int feature) { return feature >= kVertexFaceBase && feature < kBoxBoxFeatureEnd; }

const char* BoxBoxFeatureName(int feature) { return feature < kEdgeEdgeBase ? "vertex-face" : "edge-edge"; }

int VertexFaceFeature(int side, int vertex, int face_axis, int face_sign) {
  return kVertexFaceBase + 48 * side + 6 * vertex + 2 * face_axis + (face_sign > 0 ? 1 : 0);
}

int EdgeCode(int axis, const int sign[3]) {
  return 4 * axis + (sign[(axis + 1) % 3] > 0 ? 1 : 0) + (sign[(axis + 2) % 3] > 0 ? 2 : 0);
}

int EdgeEdgeFeature(int edge1, int edge2) { return kEdgeEdgeBase + 12 * edge1 + edge2; }

void BoxBoxFeaturePoint(const mjModel* m, const mjData* d, const ContactId& id, Vec3& on1, Vec3& normal,
                        double& dist) {
  Box b[2];
  BoxesOf(m, d, id, b);
  if (id.feature < kEdgeEdgeBase) {
    const VertexFace vf = VertexFaceOf(id.feature);
    const Box& fb = b[1 - vf.side];
    const Vec3 vertex = WorldVertex(b[vf.side], vf.vertex);
    const Vec3 outward = vf.sign * fb.R.col(vf.axis);
    dist = outward.dot(vertex - fb.x) - fb.half(vf.axis);
    // geom1 → geom2: into the face (the vertex is geom1's), out of it (the face is geom1's)
    normal = vf.side == 0 ? Vec3(-outward) : outward;
    on1 = vf.side == 0 ? vertex : Vec3(vertex - dist * outward);
    return;
  }
  const EdgePair p = EdgePairOf(b, id.feature);
  double t[2];
  const int sigma[2] = {0, 0};
  if (p.n.squaredNorm() == 0 || !NearestParams(p.s, sigma, t)) {
    on1 = p.s.c[0], normal = Vec3::Zero(), dist = NAN;  // parallel edges: no common perpendicular
    return;
  }
  on1 = p.s.c[0] + t[0] * p.s.e[0];
  const Vec3 on2 = p.s.c[1] + t[1] * p.s.e[1];
  dist = p.n.dot(on1 - on2);
  normal = -p.n;
}

FeatureGuardSet BoxBoxFeatureGuards(const mjModel* m, const mjData* d, const ContactId& id) {
  FeatureGuardSet set;
  Box b[2];
  BoxesOf(m, d, id, b);
  if (id.feature < kEdgeEdgeBase) {
    const VertexFace vf = VertexFaceOf(id.feature);
    const Box& fb = b[1 - vf.side];
    const Vec3 p = fb.R.transpose() * (WorldVertex(b[vf.side], vf.vertex) - fb.x);
    for (int a = 0; a < 3; a++) {
      if (a == vf.axis) continue;
      for (const int sigma : {1, -1}) {  // size_a − σ p_a: the vertex reaching the rim at σ
        FeatureGuard& g = set.guard[set.count++];
        g.axis = a, g.sign = -sigma, g.offset = fb.half(a), g.length = fb.half(a);
        g.value = g.sign * p(a) + g.offset;
        g.to = VertexFaceSuccessor(b, vf, a, sigma);
      }
    }
    return set;
  }
  const EdgePair p = EdgePairOf(b, id.feature);
  if (p.n.squaredNorm() == 0) return set;
  const int sigma[2] = {0, 0};
  for (int i = 0; i < 2; i++) {
    const int first = set.count;
    AppendSideGuards(p.s, sigma, i, set);
    for (int n = first; n < set.count; n++) set.guard[n].to = EdgeEdgeSuccessor(b, p, i, set.guard[n].to);
  }
  return set;
}

Eigen::VectorXd BoxBoxGuardGradient(const Model& model, const mjData* d, const ContactId& id,
                                    const FeatureGuard& guard) {
  const mjModel* m = model.mj();
  Box b[2];
  BoxesOf(m, d, id, b);
  if (id.feature >= kEdgeEdgeBase) {
    const EdgePair p = EdgePairOf(b, id.feature);
    const int sigma[2] = {0, 0};
    return SideGuardGradient(model, d, p.s, sigma, guard);
  }
  // the vertex's coordinate along the face box's axis: d/dt = R_·aᵀ(J_vertex − J_face box) at the vertex
  const VertexFace vf = VertexFaceOf(id.feature);
  const Box& fb = b[1 - vf.side];
  const Vec3 vertex = WorldVertex(b[vf.side], vf.vertex);
  const int nv = m->nv;
  Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor> jv(3, nv), jf(3, nv);
  mj_jac(m, d, jv.data(), nullptr, vertex.data(), b[vf.side].body);
  mj_jac(m, d, jf.data(), nullptr, vertex.data(), fb.body);
  Eigen::VectorXd grad = Eigen::VectorXd::Zero(model.ndx());
  grad.head(nv) = guard.sign * ((jv - jf).transpose() * fb.R.col(guard.axis));
  return grad;
}

}  // namespace saltation
