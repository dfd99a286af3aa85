// The project's version and the MuJoCo it is built against and runs on.
#ifndef SALTATION_VERSION_H_
#define SALTATION_VERSION_H_

#include <mujoco/mujoco.h>

#include <string>

namespace saltation {

// The project's version, "X.Y.Z" (CMake's PROJECT_VERSION).
const char* Version();

// A MuJoCo version number as mjVERSION_HEADER and mj_version() give it, as "A.B.C": since 3.x
// A·10⁶ + B·10³ + C (4000001 is 4.0.1); before, three digits (222 is 2.2.2).
std::string MujocoVersionName(int number);

// "saltation X.Y.Z (MuJoCo A.B.C)", A.B.C the MuJoCo library loaded at run time.
std::string VersionLine();

// Empty when the MuJoCo library loaded at run time (mj_version()) is the one whose headers the
// caller was compiled with (`header`: mjVERSION_HEADER, read where this is called); otherwise a
// message saying both and what to do. Every program checks it first and refuses to start.
std::string MujocoVersionMismatch(int header = mjVERSION_HEADER, int library = mj_version());

}  // namespace saltation

#endif  // SALTATION_VERSION_H_
