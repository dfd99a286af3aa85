// Test entry point: MuJoCo's error and warning handlers are installed before any test runs, so
// mju_error never waits on stdin and every warning reaches MujocoTest::TearDown.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "saltation/errors.h"
#include "saltation/version.h"

int main(int argc, char** argv) {
  saltation::InstallMujocoHandlers();
  if (const std::string e = saltation::MujocoVersionMismatch(); !e.empty()) {
    std::fprintf(stderr, "tests: %s\n", e.c_str());
    return 3;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
