// Findings, their statuses and their JSON.
#include "ezpz/doctor/finding.hpp"

#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

struct StatusName {
  CheckStatus status;
  const char* name;
};
const StatusName k_status_names[] = {
    {CheckStatus::ok, "ok"}, {CheckStatus::warn, "warn"}, {CheckStatus::error, "error"}};

}  // namespace

const char* check_status_name(CheckStatus status) {
  for (const auto& entry : k_status_names) {
    if (entry.status == status) return entry.name;
  }
  return "error";
}

std::string finding_lines(const Finding& finding) {
  std::string text =
      "  " + column(check_status_name(finding.status), 6) + finding.check + ": " + finding.finding + "\n";
  if (!finding.remedy.empty()) text += "        -> " + finding.remedy + "\n";
  return text;
}

std::optional<CheckStatus> parse_check_status(const std::string& name) {
  for (const auto& entry : k_status_names) {
    if (name == entry.name) return entry.status;
  }
  return std::nullopt;
}

nlohmann::json Finding::to_json() const {
  return {{"check", check}, {"status", check_status_name(status)}, {"finding", finding}, {"remedy", remedy}};
}

Finding Finding::from_json(const nlohmann::json& json) {
  try {
    Finding finding;
    finding.check = json.at("check").get<std::string>();
    auto status = parse_check_status(json.at("status").get<std::string>());
    if (!status) throw UserError("unknown status '" + json.at("status").get<std::string>() + "'");
    finding.status = *status;
    finding.finding = json.at("finding").get<std::string>();
    finding.remedy = json.at("remedy").get<std::string>();
    return finding;
  } catch (const nlohmann::json::exception& error) {
    throw UserError(std::string("not a doctor finding: ") + error.what());
  }
}

FindingCounts count_findings(const std::vector<Finding>& findings) {
  FindingCounts counts;
  for (const auto& finding : findings) {
    int& count = finding.status == CheckStatus::ok     ? counts.ok
                 : finding.status == CheckStatus::warn ? counts.warn
                                                       : counts.error;
    ++count;
  }
  return counts;
}

}  // namespace ezpz::core
