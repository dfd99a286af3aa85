// ScopedMujocoErrors: counted scopes that end in any order, seen by every thread (errors.h).
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <memory>
#include <string>
#include <thread>

#include "saltation/errors.h"

namespace saltation::testing {
namespace {

int host_calls = 0;
void HostHandler(const char*) { host_calls++; }  // a host's handler: must not be reached in a scope

// restores the test program's own handler whatever the test does
struct HostHandlerInstalled {
  void (*saved)(const char*) = mju_user_error;
  HostHandlerInstalled() {
    host_calls = 0;
    mju_user_error = HostHandler;
  }
  ~HostHandlerInstalled() { mju_user_error = saved; }
};

bool ThrowsMujocoError() {
  try {
    mju_error("scope check");
  } catch (const MujocoError& e) {
    return std::string(e.what()).find("scope check") != std::string::npos;
  }
  return false;
}

TEST(ScopedMujocoErrors, ScopesEndingOutOfOrderRestoreTheHostsHandlerOnlyAtTheLast) {
  HostHandlerInstalled host;
  auto call = std::make_unique<ScopedMujocoErrors>();      // a call's scope …
  auto lifetime = std::make_unique<ScopedMujocoErrors>();  // … and a worker hook's, begun inside it
  call.reset();                                            // the call returns first
  EXPECT_TRUE(ThrowsMujocoError());
  EXPECT_EQ(host_calls, 0);
  lifetime.reset();
  EXPECT_EQ(mju_user_error, &HostHandler);
}

TEST(ScopedMujocoErrors, AnotherThreadsErrorThrowsWhileAScopeLives) {
  HostHandlerInstalled host;
  bool threw = false;
  {
    ScopedMujocoErrors scope;
    std::thread worker([&] { threw = ThrowsMujocoError(); });
    worker.join();
  }
  EXPECT_TRUE(threw);
  EXPECT_EQ(host_calls, 0);
  EXPECT_EQ(mju_user_error, &HostHandler);
}

}  // namespace
}  // namespace saltation::testing
