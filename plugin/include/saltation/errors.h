// Error types and MuJoCo error/warning handlers.
#ifndef SALTATION_ERRORS_H_
#define SALTATION_ERRORS_H_

#include <stdexcept>
#include <string>
#include <vector>

namespace saltation {

// Base class of every error this library throws. The message is meant for the user as it is.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad configuration: a <custom> field out of range, an unknown geom name, a bad option value.
class ConfigError : public Error {
 public:
  using Error::Error;
};

// A state the rigid model cannot handle: NaN/Inf, a missed event, a singular transversality.
class NumericalError : public Error {
 public:
  using Error::Error;
};

// MuJoCo called mju_error (turned into an exception by InstallMujocoHandlers).
class MujocoError : public Error {
 public:
  using Error::Error;
};

// Installs process-wide mju_user_error / mju_user_warning handlers: errors throw MujocoError
// instead of MuJoCo's default (print, wait for Enter, exit); warnings are collected and can be
// taken with TakeMujocoWarnings(). Idempotent; call it at the start of every program and test.
void InstallMujocoHandlers();

// While it lives, mju_error throws MujocoError; the host's own handler (e.g. the one MuJoCo's
// Python bindings install) is restored when it ends. For libraries called from such a host.
class ScopedMujocoErrors {
 public:
  ScopedMujocoErrors();
  ~ScopedMujocoErrors();
  ScopedMujocoErrors(const ScopedMujocoErrors&) = delete;
  ScopedMujocoErrors& operator=(const ScopedMujocoErrors&) = delete;

 private:
  void (*previous_)(const char*);
};

// Returns and clears the warnings MuJoCo has reported since the last call.
std::vector<std::string> TakeMujocoWarnings();

}  // namespace saltation

#endif  // SALTATION_ERRORS_H_
