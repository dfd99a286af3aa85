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

std::string ArgumentCursor::Value() {
  if (next_ >= args_.size()) throw UsageError("option " + arg() + " needs a value");
  return args_[next_++];
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

}  // namespace saltation::cli
