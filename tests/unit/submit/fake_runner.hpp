// A ProcessRunner that records every call and answers from a script of results.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "ezpz/submit/process.hpp"

namespace ezpz::core::test {

class FakeRunner : public ProcessRunner {
 public:
  std::vector<std::vector<std::string>> calls;
  std::vector<std::string> cwds;
  std::deque<ProcessResult> answers;

  ProcessResult run(const std::vector<std::string>& argv, const std::string& cwd = {}) override {
    calls.push_back(argv);
    cwds.push_back(cwd);
    if (answers.empty()) return ProcessResult{0, "", ""};
    ProcessResult next = answers.front();
    answers.pop_front();
    return next;
  }
};

}  // namespace ezpz::core::test
