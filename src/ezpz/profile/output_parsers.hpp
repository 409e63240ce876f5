// The parsers of profile/output_formats.cpp's table, one file per scheduler family (pbs_output.cpp,
// slurm_output.cpp, columns_output.cpp). Internal to the profile folder.
#pragma once

#include <string>
#include <string_view>

#include "ezpz/profile/output_formats.hpp"

namespace ezpz::core::output_parsers {

// The scheduler's state word through its `states:` map; a word not in it is unknown.
JobState mapped_state(const Scheduler& scheduler, const std::string& state);

// Whether `named`, a job id as a scheduler's answer gives it, is the job `asked` about: the same id,
// or it followed by '.' and (more of) the server's name (PBS answers "42.server" for 42). A Slurm cluster after
// ';' in `asked` ("42;c2") is not part of the id. An empty `asked` matches any job.
bool same_job(std::string_view asked, std::string_view named);
// An answer whose jobs are all others than `status.job_id` (`named` is the first): the state is
// unknown, with the reason. Returns true, as the answer was read.
bool about_another_job(const std::string& named, JobStatus& status);

bool pbs_json_status(const Scheduler& scheduler, const std::string& out, JobStatus& status);
NodeStates pbs_json_nodes(const std::string& out);
JobNodes pbs_json_job_nodes(const std::string& out);
JobList pbs_json_job_list(const Scheduler& scheduler, const std::string& out);

bool slurm_scontrol_status(const Scheduler& scheduler, const std::string& out, JobStatus& status);
bool slurm_sacct_status(const Scheduler& scheduler, const std::string& out, JobStatus& status);
NodeStates slurm_scontrol_nodes(const std::string& out);
JobNodes slurm_scontrol_job_nodes(const std::string& out);

bool columns_status(const Scheduler& scheduler, const std::string& out, JobStatus& status);
JobList columns_job_list(const Scheduler& scheduler, const std::string& out);

}  // namespace ezpz::core::output_parsers
