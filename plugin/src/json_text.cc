#include "saltation/json_text.h"

#include <cmath>
#include <cstdio>

namespace saltation {

std::string JsonNumber(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", x);
  return buf;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string MatrixJson(const Eigen::MatrixXd& A, double log_scale) {
  const double scale = std::exp(log_scale);
  std::string out = "[";
  for (Eigen::Index i = 0; i < A.rows(); i++) {
    out += i ? ",[" : "[";
    for (Eigen::Index j = 0; j < A.cols(); j++) out += (j ? "," : "") + JsonNumber(A(i, j) * scale);
    out += "]";
  }
  return out + "]";
}

}  // namespace saltation
