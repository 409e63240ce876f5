// The job spec `ezpz init` writes: a commented starting point for one system, with its required keys,
// default queue and filesystems filled in, and a marked blank for each value only the user knows.
#pragma once

#include <string>

#include "ezpz/profile/system_profile.hpp"

namespace ezpz::core {

// A YAML job spec for `profile`. `why` says how the system was chosen ("by --system"); `file_name` is
// where it is written, for the commands its comments show.
// A required key the profile has no default for is written empty with a "fill in" comment, so
// `ezpz validate` reports it, at its line, until the user fills it in.
std::string starter_spec(const SystemProfile& profile, const std::string& why, const std::string& file_name);

}  // namespace ezpz::core
