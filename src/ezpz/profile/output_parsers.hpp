// The parsers of profile/output_formats.cpp's table, one file per scheduler family (pbs_output.cpp,
// slurm_output.cpp, columns_output.cpp). Internal to the profile folder.
#pragma once

#include <string>

#include "ezpz/profile/output_formats.hpp"

namespace ezpz::core::output_parsers {

// The scheduler's state word through its `states:` map; a word not in it is unknown.
JobState mapped_state(const Scheduler& scheduler, const std::string& state);

bool pbs_json_status(const Scheduler& scheduler, const std::string& out, JobStatus& status);
NodeStates pbs_json_nodes(const std::string& out);
JobNodes pbs_json_job_nodes(const std::string& out);

bool slurm_scontrol_status(const Scheduler& scheduler, const std::string& out, JobStatus& status);
bool slurm_sacct_status(const Scheduler& scheduler, const std::string& out, JobStatus& status);
NodeStates slurm_scontrol_nodes(const std::string& out);
JobNodes slurm_scontrol_job_nodes(const std::string& out);

bool columns_status(const Scheduler& scheduler, const std::string& out, JobStatus& status);

}  // namespace ezpz::core::output_parsers
