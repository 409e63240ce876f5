// Regular expressions written in profiles and specs (ECMAScript, std::regex), compiled with their place.
#pragma once

#include <regex>
#include <string>

#include "ezpz/util/source.hpp"

namespace ezpz::core {

// Why `pattern` is not a regular expression, or "".
std::string regex_problem(const std::string& pattern);

// `pattern` compiled. Throws UserError at `loc`, naming `what` ("failover.patterns[0].regex"), when it
// is not a regular expression.
std::regex compile_regex(const std::string& pattern, const SourceLoc& loc, const std::string& what);

}  // namespace ezpz::core
