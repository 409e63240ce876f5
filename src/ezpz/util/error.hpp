// The one error type for problems the user can fix, and the collector that gathers them.
#pragma once

#include <exception>
#include <string>
#include <vector>

#include "ezpz/util/source.hpp"

namespace ezpz::core {

// An error stops the command (exit 1); a warning is printed and the command goes on (exit 0).
enum class Severity { error, warning };

struct Diagnostic {
  SourceLoc loc;        // may be unknown
  std::string message;  // lower-case, values in quotes: "unknown key 'walltme'"
  std::string hint;     // optional: "did you mean 'walltime'?"
  Severity severity = Severity::error;
};

// Thrown for anything the user can fix (bad spec, unknown system, failed command). Caught once, in main.
class UserError : public std::exception {
 public:
  explicit UserError(std::vector<Diagnostic> diagnostics);
  UserError(std::string message, std::string hint = {});
  UserError(SourceLoc loc, std::string message, std::string hint = {});

  const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }
  const char* what() const noexcept override { return m_diagnostics.front().message.c_str(); }

 private:
  std::vector<Diagnostic> m_diagnostics;
};

// Thrown when the operating system refused what a command needs to set itself up (a pipe, a fork, a
// signalfd, a socket, a directory): exit 3 (util/exit_codes.hpp), as `ezpz exec`'s set-up failures. A
// UserError too, so every clean-up that catches one still runs; its message and hint print the same.
class SystemError : public UserError {
 public:
  using UserError::UserError;
};

// Collects independent errors so one run reports all of them, and warnings beside them.
class Diagnostics {
 public:
  void error(SourceLoc loc, std::string message, std::string hint = {});
  // Something the user should know that does not stop the command (a queue that holds jobs).
  void warning(SourceLoc loc, std::string message, std::string hint = {});
  void add(const UserError& error);
  bool empty() const { return m_items.empty(); }  // no errors (warnings do not count)
  const std::vector<Diagnostic>& items() const { return m_items; }
  const std::vector<Diagnostic>& warnings() const { return m_warnings; }
  // Throws a UserError holding every error collected so far, if any was.
  void throw_if_any() const;

 private:
  std::vector<Diagnostic> m_items;
  std::vector<Diagnostic> m_warnings;
};

// "ezpz: job.yaml:7:3: error: unknown key 'walltme'" ("warning:" for a warning), the source line, a
// caret line and the hint.
std::string format_diagnostic(const Diagnostic& diagnostic);

}  // namespace ezpz::core
