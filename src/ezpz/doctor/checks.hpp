// The checks of `ezpz doctor` (doctor.hpp lists them in order) and what they share.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ezpz/doctor/doctor.hpp"
#include "ezpz/profile/system_profile.hpp"

namespace ezpz::core {

// The profile the checks compare against, or nullptr when no system matched.
const SystemProfile* checked_profile(const DoctorInputs& inputs);

// The job this process runs in, as the schedulers' job variables tell (PBS_JOBID, SLURM_JOB_ID):
// the scheduler's name and the id; empty outside a job.
struct JobContext {
  std::string scheduler;
  std::string variable;
  std::string job_id;
  bool inside() const { return !job_id.empty(); }
};
JobContext job_context(const DoctorInputs& inputs);

Finding ok_finding(const char* check, std::string finding);
Finding warn_finding(const char* check, std::string finding, std::string remedy);
Finding error_finding(const char* check, std::string finding, std::string remedy);

// The first line of a program's output (stdout, else stderr), at most 160 characters.
std::string first_line(const ProcessResult& result);

// The last line the program wrote to stderr (where a failing setup says why), else its first line.
std::string last_error_line(const ProcessResult& result);

// The lines of a probe script's answer that start with "ezpz-doctor ": KEY=VALUE, in order (a key may
// come more than once), and the last value of each key.
std::vector<std::pair<std::string, std::string>> probe_answer_list(const std::string& out);
std::map<std::string, std::string> probe_answers(const std::string& out);

// `script` run by the profile's shell (`shell: /bin/bash -l` runs it as a login shell), as the batch
// script would be.
ProcessResult run_in_shell(const DoctorInputs& inputs, const SystemProfile& profile, const std::string& script);

// The job's modules, setup:, node count and ranks per node: the spec's, else the profile's defaults
// (one node, one rank per device).
std::vector<std::string> job_modules(const DoctorInputs& inputs, const SystemProfile& profile);
std::string job_setup(const DoctorInputs& inputs, const SystemProfile& profile);
long job_nodes(const DoctorInputs& inputs);
long job_ranks_per_node(const DoctorInputs& inputs, const SystemProfile& profile);

// Shell lines that make the job's environment as the batch script does (templates/job_body.sh.mustache),
// in its order: the modules (when `module` exists), the profile's backend environment for the job's
// nodes and ranks per node (BackendEnv::for_job), the spec's env:, then setup:.
std::string job_environment_script(const DoctorInputs& inputs, const SystemProfile& profile);

// What the job's environment answered to the doctor's probe (job_environment.cpp): which python3 and
// torch setup: leaves, the library path, NCCL's network plugin and the NCCL torch links, and the MPI
// libraries of the programs that start MPI. Run once per DoctorInputs (its job_probe member keeps it):
// loading a site's modules and importing torch take seconds, and three checks read the answers.
struct JobProbe {
  ProcessResult result;
  std::vector<std::pair<std::string, std::string>> answers;  // probe_answer_list(result.out)
  bool finished = false;  // the probe ran to its end (else the setup failed or timed out)

  // The last value of `key`, "" when there is none; every value of `key`, in order.
  std::string value(const std::string& key) const;
  std::vector<std::string> values(const std::string& key) const;
};
const JobProbe& job_probe(const DoctorInputs& inputs);

// The MPI library family ("mpich", "openmpi") a line of ldd's answer names, or "" (launcher_checks.cpp).
std::string mpi_library_family(const std::string& ldd_line);

std::vector<Finding> check_system(const DoctorInputs& inputs);
std::vector<Finding> check_profiles(const DoctorInputs& inputs);
std::vector<Finding> check_scheduler(const DoctorInputs& inputs);
std::vector<Finding> check_allocation(const DoctorInputs& inputs);
std::vector<Finding> check_caps(const DoctorInputs& inputs);
std::vector<Finding> check_launcher(const DoctorInputs& inputs);
std::vector<Finding> check_mpi_library(const DoctorInputs& inputs);
std::vector<Finding> check_yeet_helper(const DoctorInputs& inputs);
std::vector<Finding> check_devices(const DoctorInputs& inputs);
std::vector<Finding> check_node_local(const DoctorInputs& inputs);
std::vector<Finding> check_modules(const DoctorInputs& inputs);
std::vector<Finding> check_python(const DoctorInputs& inputs);
std::vector<Finding> check_nccl(const DoctorInputs& inputs);
std::vector<Finding> check_gpu_mpi(const DoctorInputs& inputs);
std::vector<Finding> check_rendezvous(const DoctorInputs& inputs);

}  // namespace ezpz::core
