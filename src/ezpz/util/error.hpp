// The one error type for problems the user can fix, and the collector that gathers them.
#pragma once

#include <exception>
#include <string>
#include <vector>

#include "ezpz/util/source.hpp"

namespace ezpz {

struct Diagnostic {
  SourceLoc loc;        // may be unknown
  std::string message;  // lower-case, values in quotes: "unknown key 'walltme'"
  std::string hint;     // optional: "did you mean 'walltime'?"
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

// Collects independent errors so one run reports all of them.
class Diagnostics {
 public:
  void error(SourceLoc loc, std::string message, std::string hint = {});
  void add(const UserError& error);
  bool empty() const { return m_items.empty(); }
  const std::vector<Diagnostic>& items() const { return m_items; }
  // Throws a UserError holding everything collected so far, if anything was.
  void throw_if_any() const;

 private:
  std::vector<Diagnostic> m_items;
};

// "ezpz: job.yaml:7:3: error: unknown key 'walltme'", the source line, a caret line and the hint.
std::string format_diagnostic(const Diagnostic& diagnostic);

}  // namespace ezpz
