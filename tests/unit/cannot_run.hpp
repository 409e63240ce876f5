// A test that needs something this machine lacks: skipped on a developer's machine, failed in CI
// (CI=true), where scripts/install-deps.sh test installs everything the tests use.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace ezpz::core::test {

inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

}  // namespace ezpz::core::test

// Ends the current test: a failure under CI=true, a skip elsewhere; `message` says what is missing.
#define EZPZ_CANNOT_RUN(message)                                                             \
  do {                                                                                       \
    if (::ezpz::core::test::in_ci()) {                                                       \
      GTEST_FAIL() << message << " (CI=true: a test that cannot run fails, it never skips)"; \
    } else {                                                                                 \
      GTEST_SKIP() << message << " (scripts/install-deps.sh test installs it)";              \
    }                                                                                        \
  } while (0)
