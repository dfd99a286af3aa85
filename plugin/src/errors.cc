#include "saltation/errors.h"

#include <mujoco/mujoco.h>

#include <mutex>

namespace saltation {
namespace {

std::mutex& WarningMutex() {
  static std::mutex mutex;
  return mutex;
}

std::vector<std::string>& Warnings() {
  static std::vector<std::string> warnings;
  return warnings;
}

void ThrowingErrorHandler(const char* msg) { throw MujocoError(std::string("MuJoCo error: ") + msg); }

void CollectingWarningHandler(const char* msg) {
  std::lock_guard<std::mutex> lock(WarningMutex());
  Warnings().emplace_back(msg);
}

}  // namespace

void InstallMujocoHandlers() {
  mju_user_error = ThrowingErrorHandler;
  mju_user_warning = CollectingWarningHandler;
}

namespace {

// the scopes alive (any thread) and the handler the first of them replaced
std::mutex& ScopeMutex() {
  static std::mutex mutex;
  return mutex;
}
int scopes_alive = 0;
void (*handler_before_scopes)(const char*) = nullptr;

}  // namespace

ScopedMujocoErrors::ScopedMujocoErrors() {
  std::lock_guard<std::mutex> lock(ScopeMutex());
  if (scopes_alive++ == 0) {
    handler_before_scopes = mju_user_error;
    mju_user_error = ThrowingErrorHandler;
  }
}

ScopedMujocoErrors::~ScopedMujocoErrors() {
  std::lock_guard<std::mutex> lock(ScopeMutex());
  if (--scopes_alive == 0) mju_user_error = handler_before_scopes;
}

std::vector<std::string> TakeMujocoWarnings() {
  std::lock_guard<std::mutex> lock(WarningMutex());
  std::vector<std::string> out;
  out.swap(Warnings());
  return out;
}

}  // namespace saltation
