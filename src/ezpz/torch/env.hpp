// The per-rank distributed environment, as `ezpz exec` (or torchrun) exports it. No LibTorch here:
// this part is shared by ezpz_torch, ezpz-torch-test and their fast unit tests.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ezpz::torch {

// The environment contract (docs: src/ezpz/torch/torch.hpp, docs/runtime-env.md):
//   RANK               required, 0 <= RANK < WORLD_SIZE
//   WORLD_SIZE         required, >= 1
//   LOCAL_RANK         required, 0 <= LOCAL_RANK < LOCAL_WORLD_SIZE
//   LOCAL_WORLD_SIZE   required, 1 <= LOCAL_WORLD_SIZE <= WORLD_SIZE
//   NODE_RANK          optional, >= 0
//   MASTER_ADDR        required, host name or address where rank 0 hosts the rendezvous store
//   MASTER_PORT        required, 1 ... 65535
//   TORCH_DEVICE       optional, "cpu" (default), "cuda:0", "xpu:0" ... (checked against LibTorch later)
//   TORCH_BACKEND      optional, gloo | nccl | xccl | mpi; default from the device type:
//                      cuda/hip -> nccl, xpu -> xccl, anything else -> gloo
//   node name          EZPZ_NODE_NAME, else SLURMD_NODENAME, else gethostname() (util/node_name.hpp)
//   TORCHELASTIC_USE_AGENT_STORE=True (torchrun's static rendezvous: its agent already hosts the store
//                      at MASTER_ADDR:MASTER_PORT, so rank 0 joins it instead of hosting one), with
//                      TORCHELASTIC_RESTART_COUNT (default 0) naming the attempt, as in PyTorch
// A variable that is set but empty counts as unset (as for the EZPZ_* overrides).
struct Environment {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  int local_world_size = 1;
  std::optional<int> node_rank;
  std::string master_addr;
  std::uint16_t master_port = 0;
  std::string device = "cpu";  // as written in TORCH_DEVICE
  std::string backend;         // TORCH_BACKEND, or the default for the device
  bool backend_defaulted = false;
  std::string node_name;
  bool agent_store = false;  // TORCHELASTIC_USE_AGENT_STORE=True
  int restart_count = 0;     // TORCHELASTIC_RESTART_COUNT
};

// Thrown when variables are missing or invalid. what() lists every problem (one per line, each naming
// the variable, its value and what was expected) followed by a hint on how to set them:
//   ezpz torch: the distributed environment is not usable:
//     MASTER_ADDR is not set; expected the host name or address where rank 0 runs (e.g. 127.0.0.1)
//     hint: start the ranks with `ezpz launch -n N -- PROGRAM` ...
class EnvironmentError : public std::runtime_error {
 public:
  explicit EnvironmentError(std::vector<std::string> problems, const std::string& hint = launch_hint());
  // The default hint: how to get the variables set.
  static std::string launch_hint();
  const std::vector<std::string>& problems() const { return m_problems; }

 private:
  std::vector<std::string> m_problems;
};

// Looks a variable up; nullopt when unset. The default reads the process environment.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup process_environment();

// Reads and checks the whole contract, reporting every problem at once (EnvironmentError).
Environment read_environment(const EnvLookup& lookup = process_environment());

}  // namespace ezpz::torch
