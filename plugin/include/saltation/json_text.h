// JSON text of numbers, strings and matrices, for the JSON the programs write (compare, record's Φ,
// floquet). Numbers are written with 17 significant digits; non-finite numbers as null.
#ifndef SALTATION_JSON_TEXT_H_
#define SALTATION_JSON_TEXT_H_

#include <Eigen/Dense>
#include <string>

namespace saltation {

// x as a JSON number (%.17g), or null when it is not finite
std::string JsonNumber(double x);

// s quoted, with '"' and '\' escaped and control characters as \u00XX
std::string JsonString(const std::string& s);

// a row-major JSON array of arrays of A·exp(log_scale); non-finite entries as null
std::string MatrixJson(const Eigen::MatrixXd& A, double log_scale = 0);

}  // namespace saltation

#endif  // SALTATION_JSON_TEXT_H_
