#include "box_box_features.h"

#include <cmath>
#include <vector>

#include "segment_features.h"

namespace saltation {
namespace {

using Vec3 = Eigen::Vector3d;
using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

struct Box {
  Vec3 x, half;
  RowMat3 R;  // columns: the box's axes (world)
  int body = -1;
};

Box BoxOf(const mjModel* m, const mjData* d, int g) {
  return {Eigen::Map<const Vec3>(d->geom_xpos + 3 * g), Eigen::Map<const Vec3>(m->geom_size + 3 * g),
          Eigen::Map<const RowMat3>(d->geom_xmat + 9 * g), m->geom_bodyid[g]};
}

bool IsVertexFace(int feature) { return feature - kBoxBoxFeatureBase < kBoxBoxVertexFaceCount; }

// a vertex–face code's parts
struct VertexFace {
  int owner, vertex, axis, side;  // side ±1
};
VertexFace VertexFaceOf(int feature) {
  const int f = feature - kBoxBoxFeatureBase;
  return {f / 48, (f % 48) / 6, (f % 6) / 2, f % 2 ? 1 : -1};
}

// an edge: its axis and its sides (±1) on the other two axes (0 on its own)
struct Edge {
  int axis;
  int sign[3];
};
Edge EdgeOf(int code) {
  Edge e{code / 4, {0, 0, 0}};
  e.sign[(e.axis + 1) % 3] = code & 1 ? 1 : -1;
  e.sign[(e.axis + 2) % 3] = code & 2 ? 1 : -1;
  return e;
}
int EdgeCode(int axis, const int sign[3]) {
  return 4 * axis + (sign[(axis + 1) % 3] > 0 ? 1 : 0) + (sign[(axis + 2) % 3] > 0 ? 2 : 0);
}
void EdgesOf(int feature, Edge& e1, Edge& e2) {
  const int f = feature - kBoxBoxFeatureBase - kBoxBoxVertexFaceCount;
  e1 = EdgeOf(f / 12), e2 = EdgeOf(f % 12);
}

int VertexSign(int vertex, int a) { return vertex & (1 << a) ? 1 : -1; }

Vec3 VertexWorld(const Box& b, int vertex) {
  Vec3 corner;
  for (int a = 0; a < 3; a++) corner(a) = VertexSign(vertex, a) * b.half(a);
  return b.x + b.R * corner;
}

// an edge as a segment: its midpoint (world), unit direction, half length
void EdgeSegment(const Box& b, const Edge& e, Vec3& mid, Vec3& dir, double& half) {
  Vec3 local = Vec3::Zero();
  for (int a = 0; a < 3; a++) local(a) = e.sign[a] * b.half(a);
  mid = b.x + b.R * local;
  dir = b.R.col(e.axis);
  half = b.half(e.axis);
}

// the two edges of an edge–edge feature as segments of radius zero (segment_features.h)
Segments EdgeSegments(const Box boxes[2], const Edge edges[2]) {
  Segments s;
  for (int i = 0; i < 2; i++) {
    EdgeSegment(boxes[i], edges[i], s.c[i], s.e[i], s.half[i]);
    s.has_length[i] = true;
    s.body[i] = boxes[i].body;
  }
  return s;
}

// how far across a rim (the cosine with the rim's normal in the face's plane) an edge must run to
// take over from its vertex: an edge closer to the rim's direction lies along it (a face flat on a
// face: the vertex's edge along the rim), its lines' common perpendicular undefined or ill-posed —
// segment_features.h takes lines with 1 − cos² below 1e-9 (a sine below 3.2e-5) as parallel
constexpr double kAcross = 1e-4;

// past rim (axis a, side s_a) of face (axis f, side s_f) of box `face_box`: the edge–edge feature
// of the owner's edge at `vertex` that goes back over the face with the least slope above it
int VertexFaceTarget(const Box& owner_box, int owner, int vertex, const Box& face_box, int f, int s_f, int a,
                     int s_a) {
  int best_axis = 0, fallback = 0;
  double best = INFINITY, most_across = -1;
  for (int j = 0; j < 3; j++) {
    const Vec3 d = face_box.R.transpose() * (-VertexSign(vertex, j) * owner_box.R.col(j));
    const double back = -s_a * d(a);  // > 0: the edge goes back over the face
    if (std::abs(d(a)) > most_across) most_across = std::abs(d(a)), fallback = j;
    if (!(back > kAcross)) continue;  // along the rim (parallel edges have no edge–edge point)
    const double slope = s_f * d(f) / back;
    if (slope < best) best = slope, best_axis = j;
  }
  // no edge goes back over the face: the one most across the rim (its gap opens at once: it leaves)
  if (best == INFINITY) best_axis = fallback;
  int own_sign[3];
  for (int b = 0; b < 3; b++) own_sign[b] = b == best_axis ? 0 : VertexSign(vertex, b);
  const int k = 3 - f - a;
  int rim_sign[3] = {0, 0, 0};
  rim_sign[f] = s_f, rim_sign[a] = s_a;
  const int own_edge = EdgeCode(best_axis, own_sign), rim_edge = EdgeCode(k, rim_sign);
  return owner == 0 ? EdgeEdgeCode(own_edge, rim_edge) : EdgeEdgeCode(rim_edge, own_edge);
}

// past the end `end` (±1) of edge `own` of box `owner` (0 geom1): that end's vertex over the face of
// the other box's edge `other` it moves onto sliding along its own edge (the face whose axis has the
// larger outward component of the direction from the vertex into its edge)
int EdgeEndTarget(const Box& own_box, int owner, const Edge& own, int end, const Box& other_box, const Edge& other) {
  int vertex = 0;
  for (int a = 0; a < 3; a++) {
    const int sign = a == own.axis ? end : own.sign[a];
    if (sign > 0) vertex |= 1 << a;
  }
  const Vec3 w = other_box.R.transpose() * (-end * own_box.R.col(own.axis));
  const int p = (other.axis + 1) % 3, q = (other.axis + 2) % 3;
  const int axis = other.sign[p] * w(p) >= other.sign[q] * w(q) ? p : q;
  return VertexFaceCode(owner, vertex, 2 * axis + (other.sign[axis] > 0 ? 1 : 0));
}

}  // namespace

bool IsBoxBoxPair(const mjModel* m, const ContactId& id) {
  return id.geom1 >= 0 && id.geom2 >= 0 && id.geom1 < m->ngeom && id.geom2 < m->ngeom &&
         OwnBoxBoxPoints(m, id.geom1, id.geom2);
}

bool IsBoxBoxFeature(int feature) {
  return feature >= kBoxBoxFeatureBase && feature < kBoxBoxFeatureBase + kBoxBoxVertexFaceCount + kBoxBoxEdgeEdgeCount;
}

int BoxBoxFeatureAt(const mjModel* m, const mjData* d, const ContactId& id) {
  if (!IsBoxBoxPair(m, id)) return -1;
  thread_local std::vector<SurfacePoint> points;
  points.clear();
  BoxBoxPoints(m, d, id.geom1, id.geom2, 1e300, points);
  const Eigen::Map<const RowMat3> R(d->geom_xmat + 9 * id.geom2);
  const Eigen::Map<const Vec3> origin(d->geom_xpos + 3 * id.geom2);
  int feature = -1;
  double best = INFINITY;
  for (const SurfacePoint& p : points) {
    const double dist = (R.transpose() * (p.pos - origin) - id.anchor).norm();
    if (dist < best) best = dist, feature = p.box_box;
  }
  return feature;
}

const char* BoxBoxFeatureName(int feature) { return IsVertexFace(feature) ? "vertex-face" : "edge-edge"; }

bool BoxBoxFeatureSurface(const mjModel* m, const mjData* d, const ContactId& id, SurfacePoint& p) {
  const Box boxes[2] = {BoxOf(m, d, id.geom1), BoxOf(m, d, id.geom2)};
  p.box_box = id.feature;
  if (IsVertexFace(id.feature)) {
    const VertexFace vf = VertexFaceOf(id.feature);
    const Box &own = boxes[vf.owner], &face = boxes[1 - vf.owner];
    const Vec3 vertex = VertexWorld(own, vf.vertex);
    const Vec3 outward = vf.side * face.R.col(vf.axis);
    p.dist = outward.dot(vertex - face.x) - face.half(vf.axis);
    p.normal = vf.owner == 0 ? Vec3(-outward) : outward;  // geom1 → geom2
    p.pos = vertex - 0.5 * p.dist * outward;
    return true;
  }
  // as box_box_points.cc: in geom2's frame, n outward from geom2's edge
  Edge edges[2];
  EdgesOf(id.feature, edges[0], edges[1]);
  const Segments s = EdgeSegments(boxes, edges);
  const int sigma[2] = {0, 0};
  double t[2];
  if (!NearestParams(s, sigma, t)) return false;
  const Vec3 on1 = s.c[0] + t[0] * s.e[0], on2 = s.c[1] + t[1] * s.e[1];
  Vec3 n = s.e[0].cross(s.e[1]).normalized();
  if (n.dot(boxes[1].R * Vec3(edges[1].sign[0], edges[1].sign[1], edges[1].sign[2])) < 0) n = -n;
  p.dist = n.dot(on1 - on2);
  p.normal = -n;
  p.pos = on1 - 0.5 * p.dist * n;
  return true;
}

FeatureGuardSet BoxBoxFeatureGuards(const mjModel* m, const mjData* d, const ContactId& id) {
  FeatureGuardSet set;
  if (!IsBoxBoxPair(m, id) || !IsBoxBoxFeature(id.feature)) return set;
  const Box boxes[2] = {BoxOf(m, d, id.geom1), BoxOf(m, d, id.geom2)};
  if (IsVertexFace(id.feature)) {
    const VertexFace vf = VertexFaceOf(id.feature);
    const Box &own = boxes[vf.owner], &face = boxes[1 - vf.owner];
    const Vec3 p = face.R.transpose() * (VertexWorld(own, vf.vertex) - face.x);
    for (int a = 0; a < 3; a++) {
      if (a == vf.axis) continue;
      for (int s_a : {1, -1}) {
        FeatureGuard& g = set.guard[set.count++];
        g.axis = a, g.sign = -s_a, g.offset = face.half(a), g.length = face.half(a);
        g.value = g.sign * p(a) + g.offset;
        g.to = VertexFaceTarget(own, vf.owner, vf.vertex, face, vf.axis, vf.side, a, s_a);
      }
    }
    return set;
  }
  Edge edges[2];
  EdgesOf(id.feature, edges[0], edges[1]);
  const Segments s = EdgeSegments(boxes, edges);
  const int sigma[2] = {0, 0};
  for (int side = 0; side < 2; side++) {
    const int first = set.count;
    AppendSideGuards(s, sigma, side, set);
    for (int n = first; n < set.count; n++) {
      set.guard[n].to = EdgeEndTarget(boxes[side], side, edges[side], set.guard[n].to, boxes[1 - side], edges[1 - side]);
    }
  }
  return set;
}

Eigen::VectorXd BoxBoxGuardGradient(const Model& model, const mjData* d, const ContactId& id,
                                    const FeatureGuard& guard) {
  const mjModel* m = model.mj();
  const Box boxes[2] = {BoxOf(m, d, id.geom1), BoxOf(m, d, id.geom2)};
  if (!IsVertexFace(id.feature)) {
    Edge edges[2];
    EdgesOf(id.feature, edges[0], edges[1]);
    const int sigma[2] = {0, 0};
    return SideGuardGradient(model, d, EdgeSegments(boxes, edges), sigma, guard);
  }
  // dp/dt = R_faceᵀ(V̇ − velocity of the face box's point at V)
  const VertexFace vf = VertexFaceOf(id.feature);
  const Box &own = boxes[vf.owner], &face = boxes[1 - vf.owner];
  const Vec3 vertex = VertexWorld(own, vf.vertex);
  const int nv = m->nv;
  Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor> j_own(3, nv), j_face(3, nv);
  mj_jac(m, d, j_own.data(), nullptr, vertex.data(), own.body);
  mj_jac(m, d, j_face.data(), nullptr, vertex.data(), face.body);
  Eigen::VectorXd grad = Eigen::VectorXd::Zero(model.ndx());
  grad.head(nv) = guard.sign * ((j_own - j_face).transpose() * face.R.col(guard.axis));
  return grad;
}

}  // namespace saltation
