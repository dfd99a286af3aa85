#include "saltation/event_json.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "saltation/errors.h"

namespace saltation {
namespace {

void Number(std::ostringstream& out, double x) {
  if (!std::isfinite(x)) {
    out << "null";
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", x);
  out << buf;
}

void Vector(std::ostringstream& out, const Eigen::VectorXd& v) {
  out << '[';
  for (Eigen::Index i = 0; i < v.size(); i++) {
    if (i) out << ',';
    Number(out, v(i));
  }
  out << ']';
}

void Matrix(std::ostringstream& out, const Eigen::MatrixXd& A) {
  out << '[';
  for (Eigen::Index i = 0; i < A.rows(); i++) {
    if (i) out << ',';
    Vector(out, A.row(i).transpose());
  }
  out << ']';
}

void String(std::ostringstream& out, const std::string& s) {
  out << '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out << '\\' << c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out << buf;
    } else {
      out << c;
    }
  }
  out << '"';
}

void Labels(std::ostringstream& out, const Model& model, const std::vector<ContactId>& ids) {
  out << '[';
  for (size_t i = 0; i < ids.size(); i++) {
    if (i) out << ',';
    String(out, ContactLabel(model, ids[i]));
  }
  out << ']';
}

}  // namespace

// the fields of a rigid event, from "{" up to its last field (the caller closes the object)
static void RigidFields(std::ostringstream& out, const Model& model, const RigidEvent& ev, EventKind kind,
                        bool grazing);

std::string HookEventToJson(const Model& model, const HookEvent& ev) {
  if (ev.xi_pending) throw ConfigError("event's Ξ is not complete yet (Ξ on demand): call Hook::CompleteXi first");
  std::ostringstream out;
  if (ev.has_xi) {
    // the rigid event's fields under the hook's kind and grazing verdict
    RigidFields(out, model, ev.rigid, ev.kind, ev.grazing);
    out << ",\"proxy\":" << (ev.proxy ? "true" : "false") << '}';
    return out.str();
  }
  out << "{\"time\":";
  Number(out, ev.time);
  out << ",\"kind\":";
  String(out, EventKindName(ev.kind));
  out << ",\"geom1\":";
  String(out, ev.contact.geom1 >= 0 ? model.GeomName(ev.contact.geom1) : "");
  out << ",\"geom2\":";
  String(out, ev.contact.geom2 >= 0 ? model.GeomName(ev.contact.geom2) : "");
  if (ev.point.allFinite()) {
    out << ",\"point\":";
    Vector(out, ev.point);
  }
  if (ev.kind == EventKind::kNearMiss) {
    out << ",\"min_gap\":";
    Number(out, ev.min_gap);
  } else if (ev.kind == EventKind::kSimultaneous) {
    out << ",\"group\":" << ev.group << ",\"size\":" << ev.group_size;
    out << ",\"order_spread\":";
    Number(out, ev.order_spread);
    out << ",\"composite_first\":";
    Matrix(out, ev.composite_first);
    out << ",\"composite_reverse\":";
    Matrix(out, ev.composite_reverse);
  } else if (ev.kind == EventKind::kZeno) {
    out << ",\"accumulation_time\":";
    Number(out, ev.accumulation_time);
    out << ",\"ratio\":";
    Number(out, ev.ratio);
  } else if (ev.kind == EventKind::kRestitution) {
    out << ",\"restitution\":";
    Number(out, ev.restitution);
    out << ",\"normal_velocity_minus\":";
    Number(out, ev.normal_velocity_minus);
    out << ",\"normal_velocity_plus\":";
    Number(out, ev.normal_velocity_plus);
  } else if (ev.kind == EventKind::kGraze) {
    out << ",\"grazing\":true,\"xi\":null";
  }
  out << '}';
  return out.str();
}

std::string HookEventCsvHeader() {
  return "time,kind,geom1,geom2,restitution,transversality,transversality_rel,xi_norm,grazing,detail";
}

std::string HookEventToCsv(const Model& model, const HookEvent& ev) {
  if (ev.xi_pending) throw ConfigError("event's Ξ is not complete yet (Ξ on demand): call Hook::CompleteXi first");
  std::ostringstream out;
  auto num = [&](double x) { Number(out, x); };
  num(ev.time);
  out << ',' << EventKindName(ev.kind) << ',' << (ev.contact.geom1 >= 0 ? model.GeomName(ev.contact.geom1) : "") << ','
      << (ev.contact.geom2 >= 0 ? model.GeomName(ev.contact.geom2) : "") << ',';
  num(ev.restitution);
  out << ',';
  if (ev.has_xi) {
    num(ev.rigid.xi.transversality);
    out << ',';
    num(ev.rigid.xi.transversality_rel);
    out << ',';
    num(ev.rigid.xi.Norm());
  } else {
    out << ",,";
  }
  out << ',' << (ev.grazing ? "true" : "false") << ',';
  out << EventDetail(ev);
  return out.str();
}

static void RigidFields(std::ostringstream& out, const Model& model, const RigidEvent& ev, EventKind kind,
                        bool grazing) {
  const SaltationMatrix& xi = ev.xi;
  out << "{\"time\":";
  Number(out, ev.time);
  out << ",\"kind\":";
  String(out, EventKindName(kind));
  out << ",\"geom1\":";
  String(out, model.GeomName(ev.contact.geom1));
  out << ",\"geom2\":";
  String(out, model.GeomName(ev.contact.geom2));
  out << ",\"point\":";
  Vector(out, ev.point);
  out << ",\"restitution\":";
  Number(out, ev.restitution);
  out << ",\"transversality\":";
  Number(out, xi.transversality);
  out << ",\"transversality_rel\":";
  Number(out, xi.transversality_rel);
  out << ",\"grazing\":" << (grazing ? "true" : "false");
  out << ",\"f_minus\":";
  Vector(out, xi.f_minus);
  out << ",\"f_plus\":";
  Vector(out, xi.f_plus);
  out << ",\"grad_g\":";
  Vector(out, xi.grad_g);
  out << ",\"dt_dx\":";
  Vector(out, xi.dt_dx);
  out << ",\"xi\":";
  Matrix(out, xi.Dense());
  out << ",\"xi_norm\":";
  Number(out, xi.Norm());
  out << ",\"dreset\":";
  Matrix(out, xi.reset.Dense());
  out << ",\"bracket\":[";
  Number(out, ev.bracket_lo);
  out << ',';
  Number(out, ev.bracket_hi);
  out << "],\"rank_after\":" << ev.rank_after;
  out << ",\"mode_before\":";
  Labels(out, model, ev.mode_before.contacts);
  out << ",\"mode_after\":";
  Labels(out, model, ev.mode_after.contacts);
  out << ",\"released\":";
  Labels(out, model, ev.released);
  if (ev.kind == EventKind::kTouchdown) {
    out << ",\"impact\":{\"candidates\":";
    Labels(out, model, ev.impact.candidates);
    out << ",\"impulse_set\":";
    Labels(out, model, ev.impact.ImpulseSet());
    out << ",\"rank\":" << ev.impact.rank << ",\"kinetic_energy_minus\":";
    Number(out, ev.impact.kinetic_energy_minus);
    out << ",\"kinetic_energy_plus\":";
    Number(out, ev.impact.kinetic_energy_plus);
    out << '}';
  }
}

std::string EventToJson(const Model& model, const RigidEvent& ev, double grazing_threshold) {
  if (!ev.complete) throw ConfigError("event's Ξ is not complete yet: call CompleteEvent (or Hook::CompleteXi) first");
  std::ostringstream out;
  RigidFields(out, model, ev, ev.kind, ev.xi.transversality_rel < grazing_threshold);
  out << '}';
  return out.str();
}

std::string EventDetail(const HookEvent& ev) {
  std::ostringstream out;
  auto field = [&](const char* key, double value) {
    if (out.tellp() > 0) out << ' ';
    out << key << '=';
    Number(out, value);
  };
  switch (ev.kind) {
    case EventKind::kNearMiss:
      field("min_gap", ev.min_gap);
      break;
    case EventKind::kSimultaneous:
      field("size", ev.group_size);
      field("order_spread", ev.order_spread);
      break;
    case EventKind::kZeno:
      field("accumulation_time", ev.accumulation_time);
      field("ratio", ev.ratio);
      break;
    case EventKind::kRestitution:
      out << "measured";
      field("e", ev.restitution);
      break;
    default:
      break;
  }
  if (ev.proxy) out << (out.tellp() > 0 ? " " : "") << "proxy";
  return out.str();
}

}  // namespace saltation
