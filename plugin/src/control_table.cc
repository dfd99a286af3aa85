#include "saltation/control_table.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "saltation/errors.h"

namespace saltation {

namespace {

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) cells.push_back(Trim(cell));
  if (!line.empty() && line.back() == ',') cells.push_back("");
  return cells;
}

// the actuator a header cell names: its name, else an index 0…nu−1; −1 when neither
int ActuatorOf(const mjModel* m, const std::string& cell) {
  const int id = mj_name2id(m, mjOBJ_ACTUATOR, cell.c_str());
  if (id >= 0) return id;
  if (cell.empty() || cell.find_first_not_of("0123456789") != std::string::npos || cell.size() > 9) return -1;
  const int index = std::atoi(cell.c_str());
  return index < m->nu ? index : -1;
}

bool ParseFinite(const std::string& cell, double* value) {
  if (cell.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *value = std::strtod(cell.c_str(), &end);
  return end && *end == '\0' && errno != ERANGE && std::isfinite(*value);
}

}  // namespace

ControlTable ControlTable::Read(const mjModel* m, const std::string& path, const Eigen::VectorXd& held) {
  if (held.size() != m->nu) {
    throw ConfigError("control table: " + std::to_string(held.size()) + " held controls for a model with " +
                      std::to_string(m->nu) + " actuators");
  }
  std::ifstream in(path);
  if (!in) throw ConfigError("cannot read the control table " + path + ": " + std::strerror(errno));
  if (m->nu == 0) throw ConfigError("control table " + path + ": the model has no actuators to control");
  ControlTable table;
  table.held_ = held;
  std::string line;
  int line_no = 0;
  bool have_header = false;
  auto fail = [&](const std::string& what) {
    throw ConfigError("control table " + path + ", line " + std::to_string(line_no) + ": " + what);
  };
  while (std::getline(in, line)) {
    line_no++;
    const std::string text = Trim(line);
    if (text.empty() || text[0] == '#') continue;
    const std::vector<std::string> cells = SplitCsv(text);
    if (!have_header) {
      if (cells.empty() || cells[0] != "time") fail("the header must start with 'time', then actuator names");
      if (cells.size() < 2) fail("the header names no actuator");
      for (size_t c = 1; c < cells.size(); c++) {
        const int id = ActuatorOf(m, cells[c]);
        if (id < 0) {
          std::string names;
          for (int a = 0; a < m->nu && a < 12; a++) {
            const char* n = mj_id2name(m, mjOBJ_ACTUATOR, a);
            names += (a ? ", " : "") + std::string(n && *n ? n : std::to_string(a));
          }
          if (m->nu > 12) names += ", …";
          fail("'" + cells[c] + "' is not an actuator of the model (its actuators: " + names + ")");
        }
        if (std::find(table.actuators_.begin(), table.actuators_.end(), id) != table.actuators_.end()) {
          fail("actuator '" + cells[c] + "' is listed twice");
        }
        table.actuators_.push_back(id);
      }
      have_header = true;
      continue;
    }
    if (cells.size() != table.actuators_.size() + 1) {
      fail(std::to_string(cells.size()) + " values where the header has " + std::to_string(table.actuators_.size() + 1));
    }
    double t;
    if (!ParseFinite(cells[0], &t)) fail("time '" + cells[0] + "' is not a finite number");
    if (!table.times_.empty() && !(t > table.times_.back())) fail("times must increase (" + cells[0] + " after " +
                                                                  std::to_string(table.times_.back()) + ")");
    Eigen::VectorXd row(static_cast<Eigen::Index>(table.actuators_.size()));
    for (size_t c = 1; c < cells.size(); c++) {
      if (!ParseFinite(cells[c], &row(static_cast<Eigen::Index>(c - 1)))) {
        fail("value '" + cells[c] + "' is not a finite number");
      }
    }
    table.times_.push_back(t);
    table.values_.push_back(row);
  }
  if (!have_header) throw ConfigError("control table " + path + " is empty (it needs a header 'time,ACTUATOR,…' and rows)");
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
