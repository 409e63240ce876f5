// Bounds on what ezpz reads and accepts, in one place (docs/limits.md): input that would need more is
// an error that names it, never a crash, a hang or an overflow.
#pragma once

#include <cstddef>

namespace ezpz::core {

// nodes, ranks_per_node and cpus_per_rank: their products (total ranks, cpus per node) stay far from
// overflow, and no machine has a million nodes or a million ranks on one.
constexpr long k_max_count = 1'000'000;

// A job spec or a system profile file (the largest shipped profile is a few KiB).
constexpr std::size_t k_max_spec_bytes = 1u << 20;

// A batch script the user submits as it is (`ezpz submit job.sh`): what the schedulers take by default,
// the larger of OpenPBS's jobscript_max_size, 100 MB (src/include/pbs_internal.h, DFLT_JOBSCRIPT_MAX_SIZE
// "100mb") and Slurm's max_script_size, 4 MB (slurm.conf(5), SchedulerParameters). Over a site's own
// limit, the scheduler's error says so.
constexpr std::size_t k_max_script_bytes = 100u << 20;

// A job record's files that ezpz reads back (record.json, decisions.jsonl): a few KiB each.
constexpr std::size_t k_max_record_bytes = 16u << 20;

// A host file ($PBS_NODEFILE, --hostfile): a 10,000-node allocation with 128 ranks per node listed
// is about 80 MiB of names.
constexpr std::size_t k_max_hostfile_bytes = 256u << 20;

// Hosts of a host list ($SLURM_JOB_NODELIST, `ezpz hostlist expand`) or a host file, counted before
// anything is expanded: an allocation has at most k_max_count nodes, and their names, lengths added,
// fit in 64 MiB (a 213-byte list once expanded to gigabytes).
constexpr std::size_t k_max_hosts = static_cast<std::size_t>(k_max_count);
constexpr std::size_t k_max_host_bytes = 64u << 20;

// What ezpz keeps of each output stream of a scheduler command (qstat -f of one job is a few KiB).
constexpr std::size_t k_max_command_output = 16u << 20;

// Longest job id ezpz takes, from a user or a scheduler (the first line of an sbatch/qsub answer): it
// names its record's directory (NAME_MAX is 255, less room for ".before-<time>-<pid>"); the longest real
// ones are PBS's "<number>.<server's full name>" (Aurora's is 57).
constexpr std::size_t k_max_job_id_length = 200;

// How much of a failed command's stderr an error message shows.
constexpr std::size_t k_max_message_stderr = 4096;

// Longest unknown word for which "did you mean" looks for a near key (its table grows with the length).
constexpr std::size_t k_longest_typo = 128;

}  // namespace ezpz::core
