// Compiling the regular expressions of profiles and specs.
#include "ezpz/util/regex.hpp"

#include "ezpz/util/error.hpp"

namespace ezpz::core {

std::string regex_problem(const std::string& pattern) {
  try {
    std::regex compiled(pattern);
    return "";
  } catch (const std::regex_error& error) {
    return error.what();
  }
}

std::regex compile_regex(const std::string& pattern, const SourceLoc& loc, const std::string& what) {
  try {
    return std::regex(pattern);
  } catch (const std::regex_error& error) {
    throw UserError(loc, "'" + what + "' is not a regular expression: '" + pattern + "': " + error.what());
  }
}

}  // namespace ezpz::core
