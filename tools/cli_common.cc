#include "cli_common.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace saltation::cli {

double ParseNumber(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(x)) {
    throw UsageError("option " + option + " needs a finite number, got '" + text + "'");
  }
  return x;
}

void TakeModelArgument(const std::string& arg, std::string& model_path, const char* usage) {
  if (arg.size() > 1 && arg[0] == '-') throw UsageError("unknown option '" + arg + "'\n\n" + usage);
  if (!model_path.empty()) throw UsageError("too many arguments: '" + arg + "'");
  model_path = arg;
}

// writes `text` to path through a temporary file and a rename, so the file is never half-written
void WriteWhole(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw ConfigError("could not write '" + path + "'");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw ConfigError("could not write '" + path + "'");
  }
}

std::string JsonNumber(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", x);
  return buf;
}

std::string MatrixJson(const Eigen::MatrixXd& A, double log_scale) {
  std::string out = "[";
  char buf[32];
  for (int i = 0; i < A.rows(); i++) {
    out += i ? ",[" : "[";
    for (int j = 0; j < A.cols(); j++) {
      const double x = A(i, j) * std::exp(log_scale);
      std::snprintf(buf, sizeof(buf), "%.17g", x);
      out += (j ? "," : "") + std::string(std::isfinite(x) ? buf : "null");
    }
    out += "]";
  }
  return out + "]";
}

}  // namespace saltation::cli
