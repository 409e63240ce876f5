// `ezpz doctor`: check this machine (and with --all-nodes every node of the allocation) for what makes
// jobs fail before their first step (doctor/doctor.hpp, docs/doctor.md).

#include <chrono>
#include <iostream>
#include <memory>

#include "ezpz/cli/command.hpp"
#include "ezpz/cli/job_options.hpp"
#include "ezpz/cli/runtime_command.hpp"
#include "ezpz/doctor/doctor.hpp"
#include "ezpz/profile/detect.hpp"
#include "ezpz/runtime/allocation.hpp"
#include "ezpz/runtime/launch.hpp"
#include "ezpz/runtime/node_names.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/handoff_variables.hpp"
#include "ezpz/util/node_name.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

// --all-nodes: the launch of every node's checks may take this long.
constexpr std::chrono::seconds k_all_nodes_timeout{300};

struct DoctorCommandOptions {
  JobOptions job;
  bool json = false;
  bool all_nodes = false;
  bool node_checks = false;  // internal: one node's answer for --all-nodes
  std::vector<std::string> binaries;
  std::string python = "python3";
};

// The name of the user this process runs as (whose jobs the caps check counts), as `id -un` says; ""
// when it cannot. Not getpwuid_r: ezpz is linked statically, and glibc then loads the host's NSS
// modules into it, which crashed (libnss_systemd, for a uid without an /etc/passwd entry:
// e2e.profile_other_user_test).
std::string user_name(ProcessRunner& runner) {
  ProcessResult result = runner.run({"id", "-un"});
  std::string name = trim(result.out);
  return result.exit_code == 0 && !name.empty() && name.find_first_of(" \t\n") == std::string::npos ? name : "";
}

// The system checked against, and why: --system, $EZPZ_SYSTEM, the spec's, else detection.
void choose_system(const DoctorCommandOptions& options, const Catalog& catalog, DoctorInputs& inputs) {
  if (inputs.job && options.job.system.empty() && !setting(inputs.env, k_env_system)) {
    inputs.system = inputs.job->profile->name;
    inputs.system_why = "by the spec";
    return;
  }
  Detection chosen = chosen_system(catalog, options.job.system, inputs.env, host_name());
  (void)catalog.system(chosen.system);  // an unknown name is the user's error
  inputs.system = chosen.system;
  inputs.system_why = chosen.reason;
}

int print_report(const DoctorCommandOptions& options, const DoctorInputs& inputs, const std::vector<Finding>& findings,
                 const nlohmann::json& extra) {
  if (options.json) {
    nlohmann::json report = doctor_json(inputs, findings);
    for (const auto& [key, value] : extra.items()) report[key] = value;
    std::cout << json_text(report, 2) << std::endl;
  } else {
    std::cout << doctor_text(inputs, findings);
    if (extra.contains("nodes")) {
      std::cout << extra["nodes"].size() << " node(s) answered; "
                << (extra["differences"].empty() ? "every node check is ok on every node\n"
                                                 : "what differs between them, or is wrong on all:\n");
      for (const auto& json : extra["differences"]) std::cout << finding_lines(Finding::from_json(json));
    }
  }
  FindingCounts counts = count_findings(findings);
  bool node_errors = false;
  if (extra.contains("differences")) {
    for (const auto& json : extra["differences"]) node_errors |= json["status"] == "error";
  }
  return counts.error > 0 || node_errors ? static_cast<int>(k_exit_user_error) : static_cast<int>(k_exit_ok);
}

// --all-nodes: every node's checks through the profile's launcher, one task per node.
nlohmann::json all_nodes(const DoctorCommandOptions& options, const DoctorInputs& inputs,
                         const Installation& installation) {
  Allocation allocation = current_allocation(inputs.env, {}, inputs.catalog->job_variables());
  if (allocation.hosts.empty()) {
    throw UserError("--all-nodes checks the nodes of an allocation, and nothing names them here",
                    "run it inside a job (" + host_variable_names(inputs.catalog->job_variables()) + ")");
  }
  if (inputs.system.empty()) throw UserError("--all-nodes needs a system profile", "name it with --system NAME");
  LaunchRequest request;
  request.system = inputs.system;
  request.nodes = static_cast<long>(allocation.hosts.size());
  request.per_node = true;
  request.program = {installation.ezpz_bin, "doctor"};
  if (!options.job.spec_path.empty()) request.program.push_back(options.job.spec_path);
  request.program.insert(request.program.end(),
                         {"--node-checks", "--system", inputs.system, "--python", options.python});
  for (const auto& binary : options.binaries) request.program.insert(request.program.end(), {"--binary", binary});
  for (const auto& assignment : options.job.assignments)
    request.program.insert(request.program.end(), {"--set", assignment});
  LaunchPlan plan = plan_launch(*inputs.catalog, request, inputs.env, installation.ezpz_bin);
  std::cerr << "ezpz doctor: " << command_text(plan.argv) << "\n";
  SystemProcessRunner runner(k_all_nodes_timeout);
  ProcessResult result = runner.run(plan.argv);
  std::vector<NodeFindings> answers = read_node_answers(result.out);
  if (answers.empty()) {
    throw UserError(failure_message(plan.argv, result) + "no node answered",
                    "run the launch by hand to see why (ezpz launch --dry-run shows the launcher line)");
  }
  // A node names itself in one form (x1), the host file in another (x1-hsn0.hsn.cm…): the allocation's.
  NodeNames names(allocation.hosts, inputs.catalog->system(inputs.system).failover);
  for (auto& answer : answers) answer.node = names.host_named(answer.node).value_or(answer.node);
  const std::vector<std::string>& hosts = allocation.hosts;
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& answer : answers) nodes.push_back(answer.node);
  nlohmann::json differences = nlohmann::json::array();
  for (const auto& finding : node_differences(hosts, answers)) differences.push_back(finding.to_json());
  return {{"nodes", nodes}, {"differences", differences}};
}

int run_doctor_command(const DoctorCommandOptions& options) {
  Installation installation = Installation::from_process();
  DoctorInputs inputs;
  inputs.catalog = &installation.catalog;
  inputs.env = process_env();
  inputs.node = node_name(inputs.env);
  SystemProcessRunner runner;  // each program the checks ask: $EZPZ_SCHEDULER_TIMEOUT, else 120 s
  inputs.runner = &runner;
  inputs.user = user_name(runner);
  inputs.binaries = options.binaries;
  inputs.python = options.python;
  try {
    inputs.yeet_helper = companion_program(installation, "ezpz-yeet-mpi", k_env_yeet_mpi, "");
  } catch (const UserError&) {
    // none installed: the yeet check says so
  }
  if (!options.job.spec_path.empty()) inputs.job = options.job.resolve_job(installation.catalog);
  choose_system(options, installation.catalog, inputs);
  if (options.node_checks) {
    std::cout << node_answer(inputs.node, run_doctor(inputs, CheckScope::node)) << std::flush;
    return k_exit_ok;
  }
  if (!options.all_nodes)
    return print_report(options, inputs, run_doctor(inputs, CheckScope::all), nlohmann::json::object());
  return print_report(options, inputs, run_doctor(inputs, CheckScope::site), all_nodes(options, inputs, installation));
}

}  // namespace

void add_doctor_command(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<DoctorCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "doctor", "Check this machine for what makes jobs fail before their first step, with a remedy for each");
  command->add_option("spec", options->job.spec_path,
                      "a job spec: its nodes, modules, setup and stage are checked too");
  command->add_option("--system", options->job.system,
                      "the system to check against (default: $EZPZ_SYSTEM, the spec, detection)");
  command->add_option("--set", options->job.assignments, "override a spec key, as for render")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  command->add_flag("--json", options->json, "print the report as JSON (docs/doctor.md)");
  command->add_flag("--all-nodes", options->all_nodes,
                    "inside a job: run the node checks on every node through the launcher; print what differs");
  command
      ->add_option("--binary", options->binaries,
                   "a program whose MPI library is checked against the launcher (repeatable)")
      ->allow_extra_args(false);
  command->add_option("--python", options->python, "the Python whose mpi4py is checked (default python3)");
  command->add_flag("--node-checks", options->node_checks, "one node's answer for --all-nodes (internal)")->group("");
  command->footer("Checks: " +
                  [] {
                    std::vector<std::string> names;
                    for (const auto& check : doctor_checks()) names.emplace_back(check.name);
                    return join(names, ", ");
                  }() +
                  ".\nEach reports ok, warn or error with a finding and a remedy. Exit code 0 unless a check found an "
                  "error (1).");
  command->callback([&action, options] { action = [options] { return run_doctor_command(*options); }; });
}

}  // namespace ezpz::core
