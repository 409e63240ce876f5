// Walltime parsing and normalisation: "01:30:00", "90:00", "90m", "1h30m", "2d", "1-12:00:00".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ezpz::core {

// Seconds for a walltime text, or nullopt (with `why` set) when it is malformed.
// Accepted: [D-]HH:MM:SS, MM:SS, and unit forms like 90m, 1h30m, 2d, 45s. Fields may overflow
// ("5:60" is 6 minutes), which is then normalised. A bare number is rejected as ambiguous
// (PBS reads seconds, Slurm minutes).
std::optional<long> parse_walltime(std::string_view text, std::string* why);

// Whether `text` is a duration of zero ("0", "0s", "00:00:00"), which parse_walltime refuses as a
// walltime but a wait or a time limit may be.
bool is_zero_duration(std::string_view text);

// "HH:MM:SS" with at least two digits of hours (hours may exceed 24: "168:00:00").
std::string format_walltime(long seconds);

// `time` (seconds since the epoch) as UTC in ISO 8601: "2026-11-24T21:57:57Z".
std::string iso_utc(long time);

// The number of seconds in environment variable `name` (EZPZ_POLL_SECONDS …), `fallback` when it is
// unset or empty. Throws UserError naming the variable when it is not a number from `min` to `max`.
double seconds_from_environment(const char* name, double fallback, double min, double max);

}  // namespace ezpz::core
