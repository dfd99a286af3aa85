// Test entry point: MuJoCo's error and warning handlers are installed before any test runs, so
// mju_error never waits on stdin and every warning reaches MujocoTest::TearDown.
#include <gtest/gtest.h>

#include "saltation/errors.h"

int main(int argc, char** argv) {
  saltation::InstallMujocoHandlers();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
