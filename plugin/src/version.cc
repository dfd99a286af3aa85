#include "saltation/version.h"

namespace saltation {

const char* Version() { return SALTATION_VERSION; }

std::string MujocoVersionName(int number) {
  int major, minor, patch;
  if (number >= 1000000) {
    major = number / 1000000;
    minor = number / 1000 % 1000;
    patch = number % 1000;
  } else {
    major = number / 100;
    minor = number / 10 % 10;
    patch = number % 10;
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::string VersionLine() {
  return std::string("saltation ") + Version() + " (MuJoCo " + MujocoVersionName(mj_version()) + ")";
}

std::string MujocoVersionMismatch(int header, int library) {
  if (header == library) return "";
  return "MuJoCo library version " + MujocoVersionName(library) + " (" + std::to_string(library) +
         ") is not the version this program was built against, " + MujocoVersionName(header) + " (" +
         std::to_string(header) + "): refusing to start. Rebuild (scripts/build) or run with the "
         "MuJoCo it was built with (the pinned mujoco-core wheel in .venv/).";
}

}  // namespace saltation
