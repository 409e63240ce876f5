// `ezpz doctor`: checks of the machine and the job's environment, each with a status, a finding and a
// remedy (docs/doctor.md). The checks read what they need from DoctorInputs, so tests give them a
// simulated site: its environment, a tree of device nodes, and a runner for the programs they ask.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ezpz/doctor/finding.hpp"
#include "ezpz/profile/catalog.hpp"
#include "ezpz/resolve/resolve.hpp"
#include "ezpz/submit/process.hpp"
#include "ezpz/util/env_lookup.hpp"

namespace ezpz::core {

struct JobProbe;  // checks.hpp

struct DoctorInputs {
  const Catalog* catalog = nullptr;
  EnvLookup env;                      // the process environment, or a simulated one
  std::string node;                   // this node's name (node_name())
  std::string user;                   // who runs it (the caps check counts their jobs); "" when unknown
  std::string root = "/";             // where device nodes are looked for (tests: a fake tree)
  ProcessRunner* runner = nullptr;    // for the programs the checks ask (with a time limit)
  std::string system;                 // the profile checked against; "" when none matched
  std::string system_why;             // "by --system", "by detection (…)"
  std::optional<ResolvedJob> job;     // when a spec was given: its keys are checked too
  std::vector<std::string> binaries;  // programs whose MPI library is checked (--binary)
  std::string python = "python3";     // the Python whose MPI library (mpi4py) is checked (--python)
  std::string yeet_helper;            // the ezpz-yeet-mpi `ezpz yeet` would run; "" when none is installed
  // The job environment's answers, once the first check that reads them ran (job_probe()); copies of
  // these inputs share them, so reset it after changing the job, the system or the environment.
  mutable std::shared_ptr<const JobProbe> job_probe;
};

// One check: its name, whether it is about the node (run on each node by --all-nodes) and its code.
struct Check {
  const char* name;
  bool per_node;
  std::vector<Finding> (*run)(const DoctorInputs& inputs);
};

// Every check, in the order doctor runs and prints them.
const std::vector<Check>& doctor_checks();

// Which checks run: all, those about the site (once per allocation), or those about the node.
enum class CheckScope { all, site, node };

// Runs the checks of `scope`. A check that throws is reported as its own error finding; it never stops
// the others.
std::vector<Finding> run_doctor(const DoctorInputs& inputs, CheckScope scope);

// JSON text that never throws: bytes that are not UTF-8 (a path, a program's output) are replaced.
std::string json_text(const nlohmann::json& json, int indent = -1);

// The report as `ezpz doctor --json` prints it (docs/doctor.md, docs/doctor.schema.json).
nlohmann::json doctor_json(const DoctorInputs& inputs, const std::vector<Finding>& findings);

// The report as text: one line per finding, its remedy below it, and a summary line.
std::string doctor_text(const DoctorInputs& inputs, const std::vector<Finding>& findings);

// --all-nodes: what each node found, by node name.
struct NodeFindings {
  std::string node;
  std::vector<Finding> findings;
};

// One node's answer for --all-nodes: a line per finding, "ezpz-doctor " and a JSON object
// {"node": …, "finding": {…}}, each short enough that a launcher forwards it whole (texts are cut at
// 300 characters).
std::string node_answer(const std::string& node, const std::vector<Finding>& findings);

// Reads every node's answer from the launcher's output (node_answer's lines, in any order, each perhaps
// behind a launcher's label, mixed with other output, which is ignored).
std::vector<NodeFindings> read_node_answers(const std::string& out);

// What differs between nodes, and what is wrong on all of them: for each check whose status is not the
// same on every node, one finding per group of nodes with the same status, its check named
// "<check> on <nodes>"; a check that warns or fails on every node is one finding "<check> on all N
// nodes". A node in `hosts` that gave no answer is an error finding of its own ("answer").
std::vector<Finding> node_differences(const std::vector<std::string>& hosts, const std::vector<NodeFindings>& answers);

}  // namespace ezpz::core
