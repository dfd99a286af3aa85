// The CSV reading the input tables share (control_table.h, mocap_table.h): a header row, then rows
// of numbers, `#` comment lines and blank lines skipped, cells trimmed.
//
//   CsvRows(path, what)     opens the file; ConfigError "cannot read the WHAT PATH: <OS reason>"
//   Next(cells)             the next non-blank, non-comment row split at commas (false at the end)
//   Fail(message)           throws ConfigError "WHAT PATH, line N: message" for the current row
//   Number(cell, name)      the cell as a finite number, else Fail("NAME 'cell' is not a finite number")
//
// Reads only the file.
#ifndef SALTATION_CSV_ROWS_H_
#define SALTATION_CSV_ROWS_H_

#include <fstream>
#include <string>
#include <vector>

namespace saltation {

class CsvRows {
 public:
  CsvRows(const std::string& path, const std::string& what);
  bool Next(std::vector<std::string>& cells);
  [[noreturn]] void Fail(const std::string& message) const;
  double Number(const std::string& cell, const std::string& name) const;

 private:
  std::string path_, what_;
  std::ifstream in_;
  int line_ = 0;
};

}  // namespace saltation

#endif  // SALTATION_CSV_ROWS_H_
