#include "saltation/control_table.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "csv_rows.h"
#include "saltation/errors.h"

namespace saltation {

namespace {

// the actuator a header cell names: its name, else an index 0…nu−1; −1 when neither
int ActuatorOf(const mjModel* m, const std::string& cell) {
  const int id = mj_name2id(m, mjOBJ_ACTUATOR, cell.c_str());
  if (id >= 0) return id;
  if (cell.empty() || cell.find_first_not_of("0123456789") != std::string::npos || cell.size() > 9) return -1;
  const int index = std::atoi(cell.c_str());
  return index < m->nu ? index : -1;
}

}  // namespace

ControlTable ControlTable::Read(const mjModel* m, const std::string& path, const Eigen::VectorXd& held) {
  if (held.size() != m->nu) {
    throw ConfigError("control table: " + std::to_string(held.size()) + " held controls for a model with " +
                      std::to_string(m->nu) + " actuators");
  }
  CsvRows rows(path, "control table");
  if (m->nu == 0) throw ConfigError("control table " + path + ": the model has no actuators to control");
  ControlTable table;
  table.held_ = held;
  std::vector<std::string> cells;
  if (!rows.Next(cells)) throw ConfigError("control table " + path + " is empty (it needs a header 'time,ACTUATOR,…' and rows)");
  if (cells[0] != "time") rows.Fail("the header must start with 'time', then actuator names");
  if (cells.size() < 2) rows.Fail("the header names no actuator");
  for (size_t c = 1; c < cells.size(); c++) {
    const int id = ActuatorOf(m, cells[c]);
    if (id < 0) {
      std::string names;
      for (int a = 0; a < m->nu && a < 12; a++) {
        const char* n = mj_id2name(m, mjOBJ_ACTUATOR, a);
        names += (a ? ", " : "") + std::string(n && *n ? n : std::to_string(a));
      }
      if (m->nu > 12) names += ", …";
      rows.Fail("'" + cells[c] + "' is not an actuator of the model (its actuators: " + names + ")");
    }
    if (std::find(table.actuators_.begin(), table.actuators_.end(), id) != table.actuators_.end()) {
      rows.Fail("actuator '" + cells[c] + "' is listed twice");
    }
    table.actuators_.push_back(id);
  }
  while (rows.Next(cells)) {
    if (cells.size() != table.actuators_.size() + 1) {
      rows.Fail(std::to_string(cells.size()) + " values where the header has " + std::to_string(table.actuators_.size() + 1));
    }
    const double t = rows.Number(cells[0], "time");
    if (!table.times_.empty() && !(t > table.times_.back())) {
      rows.Fail("times must increase (" + cells[0] + " after " + std::to_string(table.times_.back()) + ")");
    }
    Eigen::VectorXd row(static_cast<Eigen::Index>(table.actuators_.size()));
    for (size_t c = 1; c < cells.size(); c++) row(static_cast<Eigen::Index>(c - 1)) = rows.Number(cells[c], "value");
    table.times_.push_back(t);
    table.values_.push_back(row);
  }
  if (table.times_.empty()) throw ConfigError("control table " + path + " has a header but no rows");
  return table;
}

void ControlTable::Evaluate(double t, mjtNum* ctrl) const {
  for (Eigen::Index i = 0; i < held_.size(); i++) ctrl[i] = held_(i);
  // the row interval holding t (clamped to the ends): rows k0, k1 with weights 1 − s, s
  const auto after = std::upper_bound(times_.begin(), times_.end(), t);
  size_t k0 = 0, k1 = 0;
  double s = 0;
  if (after == times_.end()) {
    k0 = k1 = times_.size() - 1;
  } else if (after != times_.begin()) {
    k1 = static_cast<size_t>(after - times_.begin());
    k0 = k1 - 1;
    s = (t - times_[k0]) / (times_[k1] - times_[k0]);
  }
  for (size_t c = 0; c < actuators_.size(); c++) {
    const Eigen::Index j = static_cast<Eigen::Index>(c);
    ctrl[actuators_[c]] = (1 - s) * values_[k0](j) + s * values_[k1](j);
  }
}

ControlLaw ControlTable::Law() const {
  return [table = *this](double t, const mjtNum*, const mjtNum*, mjtNum* ctrl) { table.Evaluate(t, ctrl); };
}

}  // namespace saltation
