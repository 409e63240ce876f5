// ezpz/diagnostic.hpp: problems as data, and the one exception type of the public API.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace ezpz {

// One problem found in a spec, a profile, an override or a command. A value type.
struct Diagnostic {
  std::string where;     // "job.yaml:7:3", "set nodes=x" (ResolveOptions::set), "env EZPZ_NODES=x",
                         // "<values> nodes=x" (Spec::from_values); "" when it has no place
  std::string file;      // "job.yaml" (a path as given, or a name such as "<text>"); "" when not in a file
  int line = 0;          // 1-based; 0 when the place is not a line of `file`
  int column = 0;        // 1-based; 0 as `line`
  std::string message;   // lower-case, values in quotes: "unknown key 'walltme'"
  std::string hint;      // "did you mean 'walltime'?", or ""
  bool warning = false;  // a warning does not stop a command (a queue that holds jobs); an error does
  std::string text;      // all of it as the ezpz command prints it: the place, the message, the source
                         // line with a caret under the value, and the hint (lines end with '\n')
};

// Thrown by every call of the public API for a problem the caller can fix: a bad spec (with every
// independent problem in it), an unknown system, a scheduler command that failed (its command line and
// stderr in the message). Never for a bug in ezpz. what() is the first diagnostic's `text`.
class Error : public std::runtime_error {
 public:
  explicit Error(std::vector<Diagnostic> diagnostics);
  // At least one; errors first, in the order found.
  const std::vector<Diagnostic>& diagnostics() const noexcept { return m_diagnostics; }

 private:
  std::vector<Diagnostic> m_diagnostics;
};

}  // namespace ezpz
