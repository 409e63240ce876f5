// Everything `ezpz exec` exports for one rank: identity, rendezvous, device, backend and its environment.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ezpz/profile/catalog.hpp"
#include "ezpz/profile/system_profile.hpp"
#include "ezpz/runtime/device.hpp"
#include "ezpz/runtime/rank.hpp"
#include "ezpz/runtime/rank_supervisor.hpp"
#include "ezpz/util/env_lookup.hpp"

namespace ezpz::core {

struct RuntimeInputs {
  const SystemProfile* profile = nullptr;  // the system's facts (from EZPZ_SYSTEM or detection)
  EnvLookup env;
  std::string device_root = "/";                                  // where /dev and /sys are (a fake tree in tests)
  JobVariables job_variables = Catalog::builtin_job_variables();  // where the job id and hosts are
};

struct RankSetup {
  RankInfo rank;
  DeviceChoice device;
  std::string backend;
  std::string master_addr;
  std::string master_addr_origin;  // where master_addr came from: "MASTER_ADDR set in the environment" …
  std::string master_port;
  long nodes = 1;
  std::string job_id;      // the allocation's job id ("" outside a job), as the rendezvous port uses it
  long gpus_per_node = 0;  // accelerators of the chosen kind on this node (the profile's or those found); 0 on cpu
  // Variables to set, in order. Backend variables the job already set are left out (the job's own
  // `env:` wins over the profile).
  std::vector<std::pair<std::string, std::string>> exports;
  std::vector<std::string> notes;  // where each decision came from, for `ezpz exec --print`
  RankRunPlan run;                 // how `ezpz exec` runs the program (rank_supervisor.hpp)
};

// Throws UserError for anything that would make ranks disagree or hang: contradictory launcher
// variables, a multi-node job without a host list or MASTER_ADDR (never a silent localhost), an
// unknown EZPZ_TORCH_BACKEND.
RankSetup rank_setup(const RuntimeInputs& inputs);

// Looks a host name up: nullopt when it resolves, else why it does not.
using HostResolver = std::function<std::optional<std::string>(const std::string& host)>;

// getaddrinfo, as the ranks' rendezvous will resolve the name. Only a name the resolver does not know
// (EAI_NONAME, EAI_NODATA) is an answer; any other failure counts as resolving.
HostResolver system_host_resolver();

// Throws UserError naming MASTER_ADDR, its value and where it came from when a job that spans more
// than one node has a rendezvous host that does not resolve here: rank 0's peers would wait for it
// until the walltime. Only local rank 0 of each node looks the name up (one lookup per node); a
// single-node job looks up nothing.
void check_rendezvous_host(const RankSetup& setup, const HostResolver& resolve);

// The rendezvous host for a job whose first host is `host`, by the profile's `master_addr` pattern:
// `host` is cut at the first '.', and where the pattern adds text to the first label of the name
// (Sunspot's "{first_host}-hsn0.hsn…"), a name that already ends with that text keeps it once. So
// the short, management and network forms of a host name give the same address, and the function is
// idempotent: master_addr_for(p, master_addr_for(p, h)) == master_addr_for(p, h).
std::string master_addr_for(const std::string& pattern, const std::string& host);

// Where a job's ranks meet, as every rank computes it without a broadcast: MASTER_ADDR when set, else
// the profile's master_addr for the allocation's first host, else 127.0.0.1 for a job on one node;
// MASTER_PORT when set, else the profile's master_port, else a port derived from the job id (29500
// outside a job). Throws UserError for a MASTER_PORT that is not a port, and for a job on several
// nodes with neither MASTER_ADDR nor a host list.
struct Rendezvous {
  std::string addr;
  std::string addr_origin;  // for messages: where the address came from
  std::string port;
  std::vector<std::string> notes;
};
Rendezvous rendezvous_for(const EnvLookup& env, const SystemProfile* profile, long nodes,
                          const JobVariables& variables = Catalog::builtin_job_variables());

// MASTER_PORT for a job: a port in [20000, 60000) derived from the job id, the same on every rank.
long port_for_job(const std::string& job_id);

}  // namespace ezpz::core
