// The `EZPZ_*` hand-off variables, in one table: what a rendered script, `ezpz render` and `ezpz launch`
// write for the runtime (every rank's `ezpz exec`, and `ezpz launch` inside the job) to read. The writer
// and the reader both name a variable through this header, never by its text; docs/runtime-env.md names
// every one (tests/unit/util/handoff_variables_test.cpp). The `EZPZ_<KEY>` overrides of spec keys are the
// spec's (spec/field_table.hpp); the few variables a user or a site sets and ezpz only reads are the second
// table.
#pragma once

namespace ezpz::core {

inline constexpr const char k_env_bin[] = "EZPZ_BIN";
inline constexpr const char k_env_system[] = "EZPZ_SYSTEM";
inline constexpr const char k_env_torch_backend[] = "EZPZ_TORCH_BACKEND";
inline constexpr const char k_env_torch_device[] = "EZPZ_TORCH_DEVICE";
inline constexpr const char k_env_job_end_time[] = "EZPZ_JOB_END_TIME";
inline constexpr const char k_env_end_signal[] = "EZPZ_END_SIGNAL";
inline constexpr const char k_env_signal_before[] = "EZPZ_SIGNAL_BEFORE";
inline constexpr const char k_env_label[] = "EZPZ_LABEL";
inline constexpr const char k_env_log_dir[] = "EZPZ_LOG_DIR";
inline constexpr const char k_env_hostfile[] = "EZPZ_HOSTFILE";
inline constexpr const char k_env_hosts[] = "EZPZ_HOSTS";
inline constexpr const char k_env_rank_mark[] = "EZPZ_RANK_MARK";

inline constexpr const char k_env_systems_path[] = "EZPZ_SYSTEMS_PATH";
inline constexpr const char k_env_job_id[] = "EZPZ_JOB_ID";
inline constexpr const char k_env_node_name[] = "EZPZ_NODE_NAME";
inline constexpr const char k_env_torch_test[] = "EZPZ_TORCH_TEST";
inline constexpr const char k_env_yeet_mpi[] = "EZPZ_YEET_MPI";

struct EnvVariable {
  const char* name;
  const char* writer;  // who sets it
  const char* reader;  // who reads it, and for what
};

inline constexpr EnvVariable k_handoff_variables[] = {
    {k_env_bin, "the rendered script (unless set: the binary that rendered it); ezpz launch, to its launcher",
     "the launcher line (\"$EZPZ_BIN\" exec), ezpz launch, every command (the installation)"},
    {k_env_system, "the rendered script; ezpz launch on local, to each rank", "every runtime command: the profile"},
    {k_env_torch_backend, "the rendered script (resolved torch.backend)", "ezpz exec: the backend"},
    {k_env_torch_device, "the rendered script (resolved torch.device)", "ezpz exec: cpu forces no device"},
    {k_env_job_end_time, "the rendered script (now + walltime); ezpz launch --signal-before",
     "ezpz launch (retries, failover), ezpz exec (the end signal)"},
    {k_env_end_signal, "the rendered script (supervise.signal); ezpz launch --signal", "ezpz exec: the end signal"},
    {k_env_signal_before, "the rendered script (supervise.signal_before); ezpz launch --signal-before",
     "ezpz exec: when to send the end signal"},
    {k_env_label, "the rendered script (supervise.label); ezpz launch --label", "ezpz exec: [rank N] prefixes"},
    {k_env_log_dir, "the rendered script (supervise.log_dir); ezpz launch --log-dir", "ezpz exec: per-rank log files"},
    {k_env_hostfile, "ezpz launch --hostfile", "ezpz exec: the first host (MASTER_ADDR)"},
    {k_env_hosts, "ezpz launch --spare-nodes, for each attempt", "ezpz exec: the first host (MASTER_ADDR)"},
    {k_env_rank_mark, "ezpz exec, for its program", "ezpz kill: which processes are ranks"},
};

inline constexpr EnvVariable k_setting_variables[] = {
    {k_env_systems_path, "the user", "every command: where profiles are searched"},
    {k_env_job_id, "the user, where no scheduler runs the job", "ezpz exec: the job id (MASTER_PORT, the rank mark)"},
    {k_env_node_name, "the user", "ezpz exec, ezpz kill: this node's name"},
    {k_env_torch_test, "the user", "ezpz test: the ezpz-torch-test program"},
    {k_env_yeet_mpi, "the user", "ezpz yeet, ezpz doctor: the ezpz-yeet-mpi program"},
};

}  // namespace ezpz::core
