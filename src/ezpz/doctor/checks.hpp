// The checks of `ezpz doctor` (doctor.hpp lists them in order) and what they share.
#pragma once

#include <string>
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
std::vector<Finding> check_rendezvous(const DoctorInputs& inputs);

}  // namespace ezpz::core
