#include "saltation/mocap_table.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Sparse>

#include "csv_rows.h"
#include "saltation/errors.h"

namespace saltation {

namespace {

std::string MocapNames(const mjModel* m) {
  std::string names;
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_mocapid[b] < 0) continue;
    names += (names.empty() ? "" : ", ") + NameOrId(m, mjOBJ_BODY, b);
  }
  return names.empty() ? "none" : names;
}

}  // namespace

MocapTable MocapTable::Read(const mjModel* m, const std::string& path) {
  CsvRows rows(path, "mocap table");
  if (m->nmocap == 0) throw ConfigError("mocap table " + path + ": the model has no mocap bodies to move");
  MocapTable table;
  table.rest_.resize(m->nmocap);
  for (int b = 0; b < m->nbody; b++) {
    const int k = m->body_mocapid[b];
    if (k < 0) continue;
    for (int i = 0; i < 3; i++) table.rest_[k].pos(i) = m->body_pos[3 * b + i];
    for (int i = 0; i < 4; i++) table.rest_[k].quat(i) = m->body_quat[4 * b + i];
  }
  std::vector<std::string> cells;
  if (!rows.Next(cells)) throw ConfigError("mocap table " + path + " is empty (it needs a header 'time,BODY.x,…' and rows)");
  if (cells[0] != "time") rows.Fail("the header must start with 'time', then BODY.x, BODY.y or BODY.z");
  if (cells.size() < 2) rows.Fail("the header names no mocap body component");
  for (size_t c = 1; c < cells.size(); c++) {
    const std::string& cell = cells[c];
    const size_t dot = cell.rfind('.');
    const std::string axis = dot == std::string::npos ? "" : cell.substr(dot + 1);
    if (dot == std::string::npos || (axis != "x" && axis != "y" && axis != "z")) {
      rows.Fail("'" + cell + "' is not BODY.x, BODY.y or BODY.z");
    }
    const int body = mj_name2id(m, mjOBJ_BODY, cell.substr(0, dot).c_str());
    if (body < 0 || m->body_mocapid[body] < 0) {
      rows.Fail("'" + cell.substr(0, dot) + "' is not a mocap body of the model (its mocap bodies: " + MocapNames(m) + ")");
    }
    Column column;
    column.mocap = m->body_mocapid[body];
    column.axis = axis[0] - 'x';
    for (const Column& other : table.columns_) {
      if (other.mocap == column.mocap && other.axis == column.axis) rows.Fail("'" + cell + "' is listed twice");
    }
    table.columns_.push_back(column);
  }
  while (rows.Next(cells)) {
    if (cells.size() != table.columns_.size() + 1) {
      rows.Fail(std::to_string(cells.size()) + " values where the header has " + std::to_string(table.columns_.size() + 1));
    }
    const double t = rows.Number(cells[0], "time");
    if (!table.times_.empty() && !(t > table.times_.back())) {
      rows.Fail("times must increase (" + cells[0] + " after " + std::to_string(table.times_.back()) + ")");
    }
    table.times_.push_back(t);
    for (size_t c = 1; c < cells.size(); c++) table.columns_[c - 1].value.push_back(rows.Number(cells[c], "value"));
  }
  if (table.times_.size() < 2) throw ConfigError("mocap table " + path + " needs at least two rows (a motion)");
  // the slopes of the C² cubic spline through the rows with not-a-knot ends (the third derivative
  // continuous at the second and the last-but-one row), a tridiagonal system; two rows: the line,
  // three: the parabola
  const std::vector<double>& t = table.times_;
  const int n = static_cast<int>(t.size());
  for (Column& c : table.columns_) {
    const std::vector<double>& p = c.value;
    c.slope.assign(n, 0.0);
    if (n == 2) {
      c.slope[0] = c.slope[1] = (p[1] - p[0]) / (t[1] - t[0]);
      continue;
    }
    std::vector<double> h(n - 1), delta(n - 1);
    for (int i = 0; i + 1 < n; i++) {
      h[i] = t[i + 1] - t[i];
      delta[i] = (p[i + 1] - p[i]) / h[i];
    }
    if (n == 3) {
      const double curvature = (delta[1] - delta[0]) / (h[0] + h[1]);
      c.slope[0] = delta[0] - curvature * h[0];
      c.slope[1] = delta[0] + curvature * h[0];
      c.slope[2] = delta[1] + curvature * h[1];
      continue;
    }
    std::vector<Eigen::Triplet<double>> entries;
    Eigen::VectorXd rhs(n);
    entries.emplace_back(0, 0, h[1]);
    entries.emplace_back(0, 1, h[0] + h[1]);
    rhs(0) = ((h[0] + 2 * (h[0] + h[1])) * h[1] * delta[0] + h[0] * h[0] * delta[1]) / (h[0] + h[1]);
    for (int i = 1; i + 1 < n; i++) {
      entries.emplace_back(i, i - 1, h[i]);
      entries.emplace_back(i, i, 2 * (h[i - 1] + h[i]));
      entries.emplace_back(i, i + 1, h[i - 1]);
      rhs(i) = 3 * (h[i] * delta[i - 1] + h[i - 1] * delta[i]);
    }
    const int l = n - 1;
    entries.emplace_back(l, l - 1, h[l - 1] + h[l - 2]);
    entries.emplace_back(l, l, h[l - 2]);
    rhs(l) = (h[l - 1] * h[l - 1] * delta[l - 2] + (2 * (h[l - 2] + h[l - 1]) + h[l - 1]) * h[l - 2] * delta[l - 1]) /
             (h[l - 2] + h[l - 1]);
    Eigen::SparseMatrix<double> A(n, n);
    A.setFromTriplets(entries.begin(), entries.end());
    Eigen::SparseLU<Eigen::SparseMatrix<double>> lu(A);
    if (lu.info() != Eigen::Success) throw ConfigError("mocap table " + path + ": its spline could not be solved");
    const Eigen::VectorXd slopes = lu.solve(rhs);
    for (int i = 0; i < n; i++) c.slope[i] = slopes(i);
  }
  return table;
}

MocapSample MocapTable::Sample(double t, int mocap) const {
  MocapSample out = rest_[mocap];
  const auto after = std::upper_bound(times_.begin(), times_.end(), t);
  for (const Column& c : columns_) {
    if (c.mocap != mocap) continue;
    if (after == times_.begin() || after == times_.end()) {
      out.pos(c.axis) = after == times_.begin() ? c.value.front() : c.value.back();
      out.vel(c.axis) = 0;
      continue;
    }
    const size_t k = static_cast<size_t>(after - times_.begin()) - 1;
    const double h = times_[k + 1] - times_[k], s = (t - times_[k]) / h;
    const double p0 = c.value[k], p1 = c.value[k + 1], m0 = h * c.slope[k], m1 = h * c.slope[k + 1];
    out.pos(c.axis) = (2 * s * s * s - 3 * s * s + 1) * p0 + (s * s * s - 2 * s * s + s) * m0 +
                      (-2 * s * s * s + 3 * s * s) * p1 + (s * s * s - s * s) * m1;
    out.vel(c.axis) = ((6 * s * s - 6 * s) * p0 + (3 * s * s - 4 * s + 1) * m0 + (-6 * s * s + 6 * s) * p1 +
                       (3 * s * s - 2 * s) * m1) / h;
  }
  return out;
}

MocapMotion MocapTable::Motion() const {
  return [table = *this](double t, int mocap) { return table.Sample(t, mocap); };
}

}  // namespace saltation
