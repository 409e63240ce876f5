// A system profile (systems/<name>.yaml) as typed data. See systems/README.md for every key.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ezpz/profile/scheduler.hpp"
#include "ezpz/spec/job_spec.hpp"
#include "ezpz/util/devices.hpp"
#include "ezpz/util/source.hpp"

namespace ezpz::core {

// A scheduler installed on this machine (a login node, outside any job): every one of `commands` on
// PATH, and its configuration file: the one `config_env` names when that variable is set (the file the
// scheduler's commands then read), else the first of `config` that exists.
struct InstalledRules {
  std::vector<std::string> commands;  // program names
  std::string config_env;             // SLURM_CONF, PBS_CONF_FILE; "" = none
  std::vector<std::string> config;    // absolute paths
};

struct DetectRules {
  std::vector<std::pair<std::string, std::string>> env;  // variable → regex (searched)
  std::vector<std::string> hostname;                     // regexes (searched) on short and full hostname
  InstalledRules installed;                              // no commands: no such rule
  int fallback = 0;                                      // 0 = specific machine; higher = tried later
};

// What the devices are for jobs of one ranks-per-node count (node.devices.by_ranks_per_node).
struct DeviceLayout {
  int count = 1;
  std::vector<int> sockets;  // as Devices::sockets; empty = not stated
};

struct Devices {
  DeviceKind kind = DeviceKind::cpu;
  int count = 1;
  std::string visibility;       // CUDA_VISIBLE_DEVICES, ZE_AFFINITY_MASK, ROCR_VISIBLE_DEVICES
  std::vector<int> order;       // physical device of slot i; default 0..count-1
  std::string select = "mask";  // mask | index | launcher
  // The socket of each device, by index (node.devices.sockets); empty = not stated, and a rank's device
  // follows its local rank alone (resolve/rank_placement.hpp).
  std::vector<int> sockets;
  // Jobs with that many ranks per node see other devices (Aurora, 6 ranks: 6 whole GPUs under
  // ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE, which backend_env.by_ranks_per_node sets).
  std::map<long, DeviceLayout> by_ranks_per_node;
  SourceLoc count_loc;

  // The devices a job with `ranks_per_node` ranks per node sees: these, or with count and sockets of
  // its by_ranks_per_node entry (and the order 0..count-1).
  Devices for_ranks_per_node(long ranks_per_node) const;
};

struct NodeShape {
  int sockets = 1;
  int cores_per_socket = 0;  // 0 = unknown (generic profiles): no cpu checks, no cpus_per_rank default
  int threads_per_core = 1;
  std::vector<int> reserved_cores;
  // Cores kept free for site services (Aurora: Copper, oneCCL workers): generated cpu lists skip them,
  // explicit launcher.cpu_bind lists may use them, and they count as usable.
  std::vector<int> service_cores;
  std::string node_local;
  NamedTemplates node_local_directives;
  Devices devices;

  int usable_cores() const;  // 0 when the shape is unknown
  SourceLoc loc;
};

// How a system starts ranks: an MPI launcher, Slurm's srun, or ezpz itself on this machine.
enum class LauncherKind { mpiexec, srun, local };

// "mpiexec", "srun", "local".
const char* launcher_kind_name(LauncherKind kind);
// The kind named `name`, or nullopt.
std::optional<LauncherKind> parse_launcher_kind(std::string_view name);
// Every kind's name, in table order.
std::vector<std::string> launcher_kind_names();

// The MPI launchers a profile's `launcher.family` may name: which program answers `launcher.args`'
// first word, and so which MPI libraries it can start (ezpz doctor: doctor/launcher_checks.cpp).
// "pals" (HPE PALS, Cray MPICH), "hydra" (MPICH), "openmpi", "srun", "local" (ezpz launch).
std::vector<std::string> launcher_family_names();

struct Launcher {
  LauncherKind kind = LauncherKind::mpiexec;
  std::string family;             // one of launcher_family_names(); "" when the profile does not say
  std::vector<std::string> args;  // option groups with {placeholders}
  // Option groups added for jobs on more than one node (Frontier: --network=disable_rdzv_get).
  std::vector<std::string> multi_node_args;
  std::string cpu_unit = "core";  // core | thread
  std::map<long, std::string> cpu_bind;
  std::string cpu_bind_default = "none";  // generate | none | a binding string
  bool rank_wrapper = true;
  // For launchers that start remote ranks without the job's environment (Open MPI's mpirun started
  // over ssh): the option group that passes one variable, with {name} ("-x {name}"), added once per
  // variable the script exports for the ranks and per name in env_names. Empty: the launcher passes
  // the environment itself (PALS, Hydra, srun).
  std::string env_option;
  std::vector<std::string> env_names;  // further variables of the job's environment (PATH …)
  // Option groups added to the launch command when a job names the filesystem (Aurora DAOS: --no-vni).
  std::vector<std::pair<std::string, std::vector<std::string>>> filesystem_args;
  // The option group that names the hosts of a launch when ezpz chooses them (spare nodes), with
  // {hosts}: the hosts, comma-separated (srun: "--nodelist={hosts}"). Launchers that read a host file
  // name it with the word $PBS_NODEFILE in args instead.
  std::string hosts_option;
  SourceLoc cpu_bind_loc;
};

// A line of a failed launch's output that names a bad node (failover.patterns; docs/failover.md).
struct FailurePattern {
  std::string name;
  std::string regex;             // RE2, searched in each line
  int host_group = 1;            // the capture group that holds the host
  std::string host_is = "name";  // name | address: an IP address, matched to the addresses of the hosts
  // false: a match makes the host a suspect only, recorded but not evicted on its own (a line that
  // any dying peer process causes, not only a failing node)
  bool proves = true;
  SourceLoc loc;
};

// Evidence a failed launch's output gives against nodes (systems/<name>.yaml, `failover:`).
struct Failover {
  // A regular expression whose first group is a host's identity, applied to the allocation's names and
  // to the hosts the patterns find ("x1921c1s0b0n0" of "x1921c1s0b0n0-hsn0.hsn.cm…"); "" = the name up
  // to its first dot.
  std::string node_key;
  SourceLoc node_key_loc;
  std::vector<FailurePattern> patterns;
};

struct WalltimeStep {
  long max_nodes;
  long max_walltime;  // seconds
};

// A per-user or per-project limit the scheduler enforces by holding (or refusing) further jobs, not
// by failing the job: `ezpz validate` warns about it, `ezpz doctor` counts the jobs it counts
// (profile/queue_caps.hpp). `kind` is the name of one of queue_cap_kinds().
struct QueueCap {
  std::string kind;
  long value = 0;

  std::string describe() const;  // "at most 1 job(s) per user (running, accruing or queued)"
};

// Whose jobs a cap counts.
enum class CapOwner { user, project };
// Which of them (a job's state as the scheduler's `states:` map names it).
enum class CapJobs {
  live,      // running, queued or held
  running,   // running
  waiting,   // queued or held; in a routing queue: the jobs it has not routed yet
  eligible,  // running or queued, not held; of a routing queue: in each queue it routes to
  uncounted  // ezpz cannot tell them from a list of jobs (eligible-to-run, nodes)
};

// A cap kind: its name under queues.<name>.caps, how it reads, and what ezpz doctor counts for it.
struct CapKind {
  const char* name;
  const char* phrase;
  CapOwner owner;
  CapJobs jobs;
  bool all_queues;  // counted over every queue of the system, not the queue's own
};

// The cap kinds a profile may list under queues.<name>.caps; nullptr for a name that is none.
const std::vector<CapKind>& queue_cap_kinds();
const CapKind* find_cap_kind(const std::string& name);

struct Queue {
  std::string name;
  std::string description;
  long min_nodes = 1;
  std::optional<long> max_nodes;
  std::optional<long> max_walltime;
  std::optional<long> min_walltime;  // seconds
  std::vector<WalltimeStep> walltime_by_nodes;
  bool by_request = false;  // the site must enable the queue for the project first
  // The ranks_per_node values the queue takes (Sophia by-gpu: 1, 2, 4 or 8 GPUs); empty: any.
  std::vector<int> ranks_per_node;
  std::vector<QueueCap> caps;
  // The execution queues a routing queue sends its jobs to (ALCF prod: small, medium, large …): the
  // scheduler shows a routed job in one of them, and its caps count them there.
  std::vector<std::string> routes_to;
  NamedTemplates directives;
  SourceLoc loc;

  // The walltime limit for a job of `nodes` nodes, if any.
  std::optional<long> walltime_limit(long nodes) const;
};

struct EnvEntry {
  std::string name;
  std::string value;
  std::string section;  // "backend_env.always" …, for --explain
};

struct BackendEnv {
  std::vector<std::pair<std::string, std::string>> always, single_node, multi_node;
  // Entries for jobs with that many ranks per node; they replace entries of the same name.
  std::map<long, std::vector<std::pair<std::string, std::string>>> by_ranks_per_node;

  // The environment of a job: `always`, then `multi_node` or `single_node`, then the entries for its
  // ranks per node, each name once (a later section replaces an earlier value in place).
  std::vector<EnvEntry> for_job(long nodes, long ranks_per_node) const;
};

struct SystemProfile {
  std::string name;
  std::string description;
  std::string scheduler;  // schedulers/<scheduler>.yaml
  std::string extends;
  std::string audited;
  std::vector<std::string> sources;
  std::vector<std::string> unverified;
  std::vector<std::string> notes;
  DetectRules detect;
  NodeShape node;
  Launcher launcher;
  std::vector<Queue> queues;  // in file order
  std::vector<std::string> required;
  std::vector<std::string> filesystems;
  JobSpec defaults;  // origin kind: profile
  std::vector<std::string> module_use;
  NamedTemplates directives;
  std::string shell = "/bin/bash";
  BackendEnv backend_env;
  std::string master_addr = "{first_host}";
  std::optional<long> master_port;
  Failover failover;
  std::string path;  // where it was loaded from: "systems/aurora.yaml" (built in) or a file path
  SourceRef source;  // the profile's own file (not those it extends)

  const Queue* find_queue(const std::string& name) const;
  std::vector<std::string> queue_names() const;
};

}  // namespace ezpz::core
