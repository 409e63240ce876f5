// A strict ProcessRunner: each test states the calls it expects, in order, with their answers; a call
// that was not expected, or an expected call that never came, fails the test.
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "ezpz/submit/process.hpp"

namespace ezpz::core::test {

class FakeRunner : public ProcessRunner {
 public:
  // What each call was: its argv and working directory, in call order.
  std::vector<std::vector<std::string>> calls;
  std::vector<std::string> cwds;

  // The next call's argv starts with `argv_prefix` (at least the program) and is answered with
  // `answer`. Expectations are met in the order they were stated.
  void expect(std::vector<std::string> argv_prefix, ProcessResult answer) {
    m_expected.push_back(Expected{std::move(argv_prefix), std::move(answer)});
  }

  ~FakeRunner() override {
    for (const auto& expected : m_expected)
      ADD_FAILURE() << "expected call never made: " << joined(expected.argv_prefix) << " …";
  }

  ProcessResult run(const std::vector<std::string>& argv, const std::string& cwd = {}) override {
    calls.push_back(argv);
    cwds.push_back(cwd);
    if (m_expected.empty()) {
      ADD_FAILURE() << "unexpected call: " << joined(argv);
      return ProcessResult{127, "", "FakeRunner: unexpected call\n"};
    }
    Expected next = m_expected.front();
    m_expected.pop_front();
    bool matches = next.argv_prefix.size() <= argv.size();
    for (size_t i = 0; matches && i < next.argv_prefix.size(); ++i) matches = argv[i] == next.argv_prefix[i];
    if (!matches) {
      ADD_FAILURE() << "unexpected call: " << joined(argv) << "\n  expected: " << joined(next.argv_prefix) << " …";
      return ProcessResult{127, "", "FakeRunner: unexpected call\n"};
    }
    return next.answer;
  }

 private:
  struct Expected {
    std::vector<std::string> argv_prefix;
    ProcessResult answer;
  };
  std::deque<Expected> m_expected;

  static std::string joined(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& arg : argv) out += (out.empty() ? "" : " ") + arg.substr(0, 80);
    return out;
  }
};

}  // namespace ezpz::core::test
