// What one check of `ezpz doctor` found: a status, a one-line finding and what to do about it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ezpz::core {

enum class CheckStatus { ok, warn, error };

const char* check_status_name(CheckStatus status);  // "ok", "warn", "error"
std::optional<CheckStatus> parse_check_status(const std::string& name);

struct Finding {
  std::string check;  // the check's name: "launcher", "devices" …
  CheckStatus status = CheckStatus::ok;
  std::string finding;  // one line: what was found
  std::string remedy;   // one line: what to do; "" for ok

  nlohmann::json to_json() const;
  // Throws UserError when `json` is not a finding (an --all-nodes answer from another ezpz).
  static Finding from_json(const nlohmann::json& json);
};

// The finding as `ezpz doctor` prints it: "  warn  devices: sees 1 x cuda\n", then "        -> REMEDY\n"
// when it has one.
std::string finding_lines(const Finding& finding);

// Findings of each status, and the exit code they make: non-zero only when one is an error.
struct FindingCounts {
  int ok = 0;
  int warn = 0;
  int error = 0;
};
FindingCounts count_findings(const std::vector<Finding>& findings);

}  // namespace ezpz::core
