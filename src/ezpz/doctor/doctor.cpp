// The doctor's table of checks, its reports, and the comparison of nodes for --all-nodes.
#include "ezpz/doctor/doctor.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "ezpz/doctor/checks.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/version.hpp"

namespace ezpz::core {

const std::vector<Check>& doctor_checks() {
  static const std::vector<Check> k_checks = {
      {"system", false, check_system},
      {"profiles", false, check_profiles},
      {"scheduler", false, check_scheduler},
      {"allocation", false, check_allocation},
      {"caps", false, check_caps},
      {"launcher", true, check_launcher},
      {"mpi", true, check_mpi_library},
      {"yeet", true, check_yeet_helper},
      {"devices", true, check_devices},
      {"node-local", true, check_node_local},
      {"modules", true, check_modules},
      {"python", true, check_python},
      {"nccl", true, check_nccl},
      {"gpu-mpi", true, check_gpu_mpi},
      {"rendezvous", true, check_rendezvous},
  };
  return k_checks;
}

const SystemProfile* checked_profile(const DoctorInputs& inputs) {
  if (inputs.system.empty()) return nullptr;
  return &inputs.catalog->system(inputs.system);
}

JobContext job_context(const DoctorInputs& inputs) {
  for (const auto& name : inputs.catalog->scheduler_names()) {
    const Scheduler& scheduler = inputs.catalog->scheduler(name);
    auto variables = scheduler.job_env.find("job_id");
    if (variables == scheduler.job_env.end()) continue;
    for (const auto& variable : variables->second) {
      if (auto id = setting(inputs.env, variable)) return {name, variable, *id};
    }
  }
  return {};
}

Finding ok_finding(const char* check, std::string finding) {
  return {check, CheckStatus::ok, std::move(finding), ""};
}
Finding warn_finding(const char* check, std::string finding, std::string remedy) {
  return {check, CheckStatus::warn, std::move(finding), std::move(remedy)};
}
Finding error_finding(const char* check, std::string finding, std::string remedy) {
  return {check, CheckStatus::error, std::move(finding), std::move(remedy)};
}

std::string first_line(const ProcessResult& result) {
  std::string text = trim(result.out).empty() ? trim(result.err) : trim(result.out);
  text = text.substr(0, text.find('\n'));
  return printable(text.size() > 160 ? text.substr(0, 160) + "…" : text);
}

std::vector<Finding> run_doctor(const DoctorInputs& inputs, CheckScope scope) {
  std::vector<Finding> findings;
  for (const auto& check : doctor_checks()) {
    if ((scope == CheckScope::site && check.per_node) || (scope == CheckScope::node && !check.per_node)) continue;
    try {
      auto found = check.run(inputs);
      findings.insert(findings.end(), found.begin(), found.end());
    } catch (const std::exception& error) {  // a UserError, or a filesystem or system error
      findings.push_back(error_finding(check.name, std::string("the check could not run: ") + error.what(),
                                       "fix the problem it names, then run ezpz doctor again"));
    }
  }
  return findings;
}

std::string json_text(const nlohmann::json& json, int indent) {
  return json.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json doctor_json(const DoctorInputs& inputs, const std::vector<Finding>& findings) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& finding : findings) checks.push_back(finding.to_json());
  FindingCounts counts = count_findings(findings);
  return {{"version", 1},
          {"ezpz", k_version},
          {"node", inputs.node},
          {"system", inputs.system.empty() ? nlohmann::json(nullptr) : nlohmann::json(inputs.system)},
          {"findings", checks},
          {"summary", {{"ok", counts.ok}, {"warn", counts.warn}, {"error", counts.error}}}};
}

std::string doctor_text(const DoctorInputs& inputs, const std::vector<Finding>& findings) {
  std::ostringstream out;
  out << "ezpz doctor on " << inputs.node << (inputs.system.empty() ? "" : " (system " + inputs.system + ")") << "\n";
  for (const auto& finding : findings) out << finding_lines(finding);
  FindingCounts counts = count_findings(findings);
  out << counts.ok << " ok, " << counts.warn << " warning(s), " << counts.error << " error(s)\n";
  return out.str();
}

namespace {
const std::string k_answer_marker = "ezpz-doctor ";
// An answer line stays under the 1 KiB in which launchers forward a task's output: srun split longer
// lines of two nodes into each other.
constexpr size_t k_max_answer_text = 300;

std::string clipped(const std::string& text) {
  return text.size() <= k_max_answer_text ? text : text.substr(0, k_max_answer_text) + "…";
}
}  // namespace

std::string node_answer(const std::string& node, const std::vector<Finding>& findings) {
  std::string lines;
  for (const auto& finding : findings) {
    Finding shown = finding;
    shown.finding = clipped(shown.finding);
    shown.remedy = clipped(shown.remedy);
    lines += k_answer_marker + json_text({{"node", node}, {"finding", shown.to_json()}}) + "\n";
  }
  return lines;
}

std::vector<NodeFindings> read_node_answers(const std::string& out) {
  std::vector<NodeFindings> answers;
  for (const auto& line : split(out, '\n')) {
    // A launcher may put its own label before a task's line (PALS --label on Polaris: "<host> <rank>: ").
    size_t at = line.find(k_answer_marker);
    if (at == std::string::npos) continue;
    nlohmann::json json = nlohmann::json::parse(line.substr(at + k_answer_marker.size()), nullptr, false);
    if (!json.is_object() || !json.contains("node") || !json["node"].is_string() || !json.contains("finding")) continue;
    Finding finding;
    try {
      finding = Finding::from_json(json["finding"]);
    } catch (const UserError&) {
      continue;
    }
    std::string node = json["node"].get<std::string>();
    auto known = std::find_if(answers.begin(), answers.end(), [&](const NodeFindings& a) { return a.node == node; });
    if (known == answers.end()) known = answers.insert(answers.end(), NodeFindings{node, {}});
    known->findings.push_back(std::move(finding));
  }
  return answers;
}

std::vector<Finding> node_differences(const std::vector<std::string>& hosts, const std::vector<NodeFindings>& answers) {
  std::vector<Finding> differences;
  for (const auto& host : hosts) {
    bool answered = std::any_of(answers.begin(), answers.end(), [&](const NodeFindings& a) { return a.node == host; });
    if (!answered) {
      differences.push_back(
          error_finding("answer", host + " gave no answer",
                        "the node may be down or slow: look at it (ezpz launch --probe-timeout) before using it"));
    }
  }
  // check name → status → (nodes, the first of their findings); in table order.
  for (const auto& check : doctor_checks()) {
    std::map<CheckStatus, std::pair<std::vector<std::string>, Finding>> by_status;
    for (const auto& answer : answers) {
      for (const auto& finding : answer.findings) {
        if (finding.check != check.name) continue;
        auto& group = by_status[finding.status];
        if (group.first.empty()) group.second = finding;
        if (std::find(group.first.begin(), group.first.end(), answer.node) == group.first.end())
          group.first.push_back(answer.node);
      }
    }
    if (by_status.empty()) continue;
    if (by_status.size() == 1) {
      // The same everywhere: worth a line only when it is wrong everywhere.
      auto& [status, group] = *by_status.begin();
      if (status == CheckStatus::ok) continue;
      Finding finding = group.second;
      finding.check = std::string(check.name) + " on all " + std::to_string(group.first.size()) + " nodes";
      differences.push_back(std::move(finding));
      continue;
    }
    for (auto& [status, group] : by_status) {
      Finding finding = group.second;
      finding.check = std::string(check.name) + " on " + join(group.first, ",");
      differences.push_back(std::move(finding));
    }
  }
  return differences;
}

}  // namespace ezpz::core
