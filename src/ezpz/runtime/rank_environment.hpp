// Everything `ezpz exec` exports for one rank: identity, rendezvous, device, backend and its environment.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ezpz/profile/system_profile.hpp"
#include "ezpz/runtime/device.hpp"
#include "ezpz/runtime/environment.hpp"
#include "ezpz/runtime/rank.hpp"

namespace ezpz {

struct RuntimeInputs {
  const SystemProfile* profile = nullptr;  // the system's facts (from EZPZ_SYSTEM or detection)
  EnvLookup env;
  std::string device_root = "/";  // where /dev and /sys are (a fake tree in tests)
};

struct RankEnvironment {
  RankInfo rank;
  DeviceChoice device;
  std::string backend;
  std::string master_addr;
  std::string master_port;
  long nodes = 1;
  // Variables to set, in order. Backend variables the job already set are left out (the job's own
  // `env:` wins over the profile).
  std::vector<std::pair<std::string, std::string>> exports;
  std::vector<std::string> notes;  // where each decision came from, for `ezpz exec --print`
};

// Throws UserError for anything that would make ranks disagree or hang: contradictory launcher
// variables, a multi-node job without a host list or MASTER_ADDR (never a silent localhost), an
// unknown EZPZ_TORCH_BACKEND.
RankEnvironment rank_environment(const RuntimeInputs& inputs);

// MASTER_PORT for a job: a port in [20000, 60000) derived from the job id, the same on every rank.
long port_for_job(const std::string& job_id);

}  // namespace ezpz
