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

// While any of them lives (on any thread), mju_error throws MujocoError; the host's own global
// handler (what mju_user_error was when the first of them began) is restored when the last one
// ends, in whatever order they end. For libraries called from such a host: the Python module
// opens one per call, and a hook with a worker thread holds one for its lifetime, so that
// MuJoCo's calls on the worker never meet the host's handler (MuJoCo's default prints and exits).
// Counted under a mutex; mju_user_error itself is only written when the count leaves or reaches 0.
class ScopedMujocoErrors {
 public:
  ScopedMujocoErrors();
  ~ScopedMujocoErrors();
  ScopedMujocoErrors(const ScopedMujocoErrors&) = delete;
  ScopedMujocoErrors& operator=(const ScopedMujocoErrors&) = delete;
};

// Returns and clears the warnings MuJoCo has reported since the last call.
std::vector<std::string> TakeMujocoWarnings();

}  // namespace saltation

#endif  // SALTATION_ERRORS_H_
