// Walltime parsing.
#include "ezpz/util/walltime.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

constexpr long k_max_seconds = 10L * 365 * 24 * 3600;  // anything longer is a typo

bool all_digits(std::string_view text) {
  if (text.empty() || text.size() > 9) return false;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::optional<long> parse_clock(std::string_view text, std::string* why) {
  long days = 0;
  auto dash = text.find('-');
  if (dash != std::string_view::npos) {
    if (!all_digits(text.substr(0, dash))) {
      *why = "expected days before '-' as in '1-12:00:00'";
      return std::nullopt;
    }
    days = std::stol(std::string(text.substr(0, dash)));
    text.remove_prefix(dash + 1);
  }
  auto fields = split(text, ':');
  if (fields.size() > 3 || (fields.size() < 2 && dash == std::string_view::npos)) {
    *why = "expected HH:MM:SS or MM:SS";
    return std::nullopt;
  }
  // With days, the fields are H, H:M or H:M:S (Slurm's D-HH[:MM[:SS]]); without, M:S or H:M:S.
  static const long k_with_days[] = {3600, 60, 1};
  static const long k_without_days[2][3] = {{60, 1, 0}, {3600, 60, 1}};
  const long* units = dash != std::string_view::npos ? k_with_days : k_without_days[fields.size() - 2];
  long seconds = 0;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!all_digits(fields[i])) {
      *why = "expected HH:MM:SS or MM:SS with digits only";
      return std::nullopt;
    }
    seconds += std::stol(fields[i]) * units[i];
  }
  return days * 86400 + seconds;
}

std::optional<long> parse_units(std::string_view text, std::string* why) {
  static const std::string_view k_units = "dhms";
  static const long k_unit_seconds[] = {86400, 3600, 60, 1};
  long total = 0;
  size_t last_unit = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i == start || i == text.size() || i - start > 9) {
      *why = "expected a number followed by d, h, m or s, as in '90m' or '1h30m'";
      return std::nullopt;
    }
    size_t unit = k_units.find(static_cast<char>(std::tolower(static_cast<unsigned char>(text[i]))));
    if (unit == std::string_view::npos || unit + 1 <= last_unit) {
      *why = "expected units in the order d, h, m, s, as in '1h30m'";
      return std::nullopt;
    }
    last_unit = unit + 1;
    total += std::stol(std::string(text.substr(start, i - start))) * k_unit_seconds[unit];
    ++i;
  }
  return total;
}

}  // namespace

std::optional<long> parse_walltime(std::string_view text, std::string* why) {
  std::string trimmed = trim(text);
  std::optional<long> seconds;
  if (trimmed.empty()) {
    *why = "expected a duration such as '01:00:00' or '90m'";
  } else if (all_digits(trimmed)) {
    *why =
        "a bare number is ambiguous (PBS reads seconds, Slurm minutes): write '" + trimmed + "m' or '" + trimmed + "s'";
  } else if (trimmed.find(':') != std::string::npos || trimmed.find('-') != std::string::npos) {
    seconds = parse_clock(trimmed, why);
  } else {
    seconds = parse_units(trimmed, why);
  }
  if (seconds && *seconds <= 0) {
    *why = "a walltime must be longer than zero";
    return std::nullopt;
  }
  if (seconds && *seconds > k_max_seconds) {
    *why = "a walltime over ten years is surely a typo";
    return std::nullopt;
  }
  return seconds;
}

std::string format_walltime(long seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%02ld:%02ld:%02ld", seconds / 3600, (seconds / 60) % 60, seconds % 60);
  return buffer;
}

double seconds_from_environment(const char* name, double fallback, double min, double max) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  double seconds = std::strtod(text, &end);
  // atof("abc") is 0: a poll interval of 0 would ask the scheduler in a tight loop.
  if (*end != '\0' || !(seconds >= min && seconds <= max)) {
    auto number = [](double value) {
      std::string out = std::to_string(value);
      out.erase(out.find_last_not_of('0') + 1);
      if (out.back() == '.') out.pop_back();
      return out;
    };
    throw UserError(std::string(name) + "='" + printable(text) + "' is not a number of seconds from " + number(min) +
                    " to " + number(max));
  }
  return seconds;
}

}  // namespace ezpz::core

namespace ezpz::core {

bool is_zero_duration(std::string_view text) {
  return text.find('0') != std::string_view::npos && text.find_first_not_of("0:-dDhHmMsS") == std::string_view::npos;
}

std::string iso_utc(long time) {
  std::time_t value = static_cast<std::time_t>(time);
  std::tm parts{};
  gmtime_r(&value, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

}  // namespace ezpz::core
