// Starting programs and their exit codes.
#include "ezpz/util/exec.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

namespace ezpz::core {

int start_failure_exit_code(int error) {
  return error == ENOENT ? 127 : 126;
}

int wait_status_exit_code(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int report_start_failure(const std::string& program, int error, std::string_view hint) {
  std::cerr << "ezpz: error: cannot run '" << program << "': " << std::strerror(error) << "\n";
  if (!hint.empty()) std::cerr << "  hint: " << hint << "\n";
  return start_failure_exit_code(error);
}

std::vector<char*> exec_argv(std::vector<std::string>& words) {
  std::vector<char*> argv;
  argv.reserve(words.size() + 1);
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  return argv;
}

int exec_program(const std::vector<std::string>& program, std::string_view hint) {
  std::vector<std::string> words = program;
  std::vector<char*> argv = exec_argv(words);
  execvp(argv[0], argv.data());
  int error = errno;
  return report_start_failure(program[0], error, hint);
}

}  // namespace ezpz::core
