#include "csv_rows.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "saltation/errors.h"

namespace saltation {

namespace {

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

}  // namespace

CsvRows::CsvRows(const std::string& path, const std::string& what) : path_(path), what_(what), in_(path) {
  if (!in_) throw ConfigError("cannot read the " + what + " " + path + ": " + std::strerror(errno));
}

bool CsvRows::Next(std::vector<std::string>& cells) {
  std::string line;
  while (std::getline(in_, line)) {
    line_++;
    const std::string text = Trim(line);
    if (text.empty() || text[0] == '#') continue;
    cells.clear();
    std::stringstream row(text);
    std::string cell;
    while (std::getline(row, cell, ',')) cells.push_back(Trim(cell));
    if (text.back() == ',') cells.push_back("");
    return true;
  }
  return false;
}

void CsvRows::Fail(const std::string& message) const {
  throw ConfigError(what_ + " " + path_ + ", line " + std::to_string(line_) + ": " + message);
}

double CsvRows::Number(const std::string& cell, const std::string& name) const {
  char* end = nullptr;
  errno = 0;
  const double value = cell.empty() ? NAN : std::strtod(cell.c_str(), &end);
  if (cell.empty() || !end || *end != '\0' || errno == ERANGE || !std::isfinite(value)) {
    Fail(name + " '" + cell + "' is not a finite number");
  }
  return value;
}

}  // namespace saltation
