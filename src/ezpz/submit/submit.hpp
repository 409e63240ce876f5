// submit: the last stage of the pipeline (load → resolve → render → submit). It keeps the exact
// script and the resolved job on disk before running qsub/sbatch, so a failure loses nothing.
#pragma once

#include <string>
#include <vector>

#include "ezpz/render/render.hpp"
#include "ezpz/resolve/resolve.hpp"
#include "ezpz/submit/job_record.hpp"
#include "ezpz/submit/process.hpp"

namespace ezpz::core {

struct SubmitOptions {
  std::string records_root;         // where job records live (see records_root())
  std::string submit_dir;           // the directory the job is submitted from (its working directory)
  bool hold = false;                // submit held
  std::string now_utc;              // the time stamp recorded (passed in: submit stays testable)
};

// Writes the script and the resolved job into a new record, runs the scheduler's submit command with
// `runner`, parses the job id, and files the record under the id. Throws UserError with the exact
// command, the scheduler's stderr and the kept script's path when the submission fails, and before
// submitting anything when the record cannot be written.
JobRecord submit(const ResolvedJob& job, const Script& script, ProcessRunner& runner, const SubmitOptions& options);

// "8414055" from "8414055.aurora-pbs-0001…", "42" from "42_3": the number PBS and Slurm use in
// default output file names.
std::string job_number(const std::string& job_id);

}  // namespace ezpz::core
