// ezpz_torch: c10d process-group set-up for C++ (LibTorch) training programs, the C++ counterpart of
// `torch.distributed.init_process_group("env://")` as Python ezpz users know it.
//
//   #include "ezpz/torch/torch.hpp"
//
//   int main() {
//     auto ctx = ezpz::torch::init();                 // reads the environment below
//     auto t = torch::ones({4}, torch::TensorOptions().device(ctx.device));
//     std::vector<at::Tensor> ts{t};
//     ctx.process_group->allreduce(ts)->wait();       // every element is now WORLD_SIZE
//     ezpz::torch::finalize(ctx);
//   }
//
// The environment (what `ezpz exec`, `ezpz launch` and torchrun export for every rank; see env.hpp and
// docs/runtime-env.md): RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, NODE_RANK (optional),
// MASTER_ADDR, MASTER_PORT, TORCH_DEVICE (optional, default "cpu"), TORCH_BACKEND (optional, default
// nccl for cuda, xccl for xpu, else gloo). The node name is EZPZ_NODE_NAME, else SLURMD_NODENAME, else
// the host name. GLOO_SOCKET_IFNAME (comma-separated interface names), as in PyTorch, chooses Gloo's
// network interfaces; without it Gloo binds to the local address this host uses to reach MASTER_ADDR
// (127.0.0.1 for ranks on one machine that rendezvous on 127.0.0.1, the high-speed interface across
// nodes whose MASTER_ADDR names that interface). A job across nodes (WORLD_SIZE > LOCAL_WORLD_SIZE)
// whose MASTER_ADDR leads to loopback on this node fails at once with Gloo and no GLOO_SOCKET_IFNAME:
// other nodes could not reach it (to simulate nodes on one machine, set GLOO_SOCKET_IFNAME=lo).
//
// Including this header brings in c10d's ProcessGroup (and so ATen), about 5 s of compile time per
// translation unit; the Gloo/TCPStore headers stay inside the library.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <c10/core/Device.h>
#include <c10/util/intrusive_ptr.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "ezpz/torch/env.hpp"

namespace ezpz::torch {

struct InitOptions {
  // How long rank 0 waits for everyone to join the store, the others wait to reach it, and any
  // collective may take before it fails (as `timeout=` of init_process_group).
  std::chrono::milliseconds timeout = std::chrono::seconds(300);
  // Use this instead of reading the process environment (for programs that know their ranks some
  // other way). It is still checked as read_environment would.
  std::optional<Environment> environment;
};

// An initialised rank. Copyable (the process group and store are reference counted); finalize() once.
struct Context {
  // The process group for `backend`. Collectives on it follow c10d's rules: every rank calls the
  // same collectives in the same order.
  c10::intrusive_ptr<c10d::ProcessGroup> process_group;
  // The rendezvous store (a c10d::TCPStore at MASTER_ADDR:MASTER_PORT, hosted by rank 0, or by the
  // torchrun agent under TORCHELASTIC_USE_AGENT_STORE=True), for small key/value exchanges between
  // ranks. Keys starting with "ezpz/" belong to ezpz (the rendezvous, the process group).
  c10::intrusive_ptr<c10d::Store> store;
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  int local_world_size = 1;
  std::optional<int> node_rank;   // NODE_RANK when it was set
  c10::Device device{c10::kCPU};  // TORCH_DEVICE (torch::Device is this type)
  std::string backend;            // "gloo", "nccl", "mpi" ...
  std::string node_name;
  std::string master_addr;
  std::uint16_t master_port = 0;
  std::chrono::milliseconds timeout{0};
  double init_seconds = 0;  // wall time of init(): store rendezvous and process-group connection

  bool is_main() const { return rank == 0; }
};

// Reads and checks the environment, creates the TCPStore (rank 0 hosts it on MASTER_PORT, the others
// connect to MASTER_ADDR:MASTER_PORT, retrying until the timeout; under torchrun's static rendezvous
// everyone connects to the agent's store), waits until all WORLD_SIZE ranks have joined it, creates
// the process group for the backend, and returns the ready context. Throws std::runtime_error with a message that says
// what to fix: EnvironmentError for missing or invalid variables (all of them at once); for a TORCH_DEVICE LibTorch
// cannot parse or this build cannot use (e.g. cuda:0 with a CPU-only LibTorch); for a backend this LibTorch build lacks
// (nccl, xccl, mpi in Debian's CPU-only 1.13); when MASTER_PORT is taken; when ranks do not join within the timeout
// (naming the missing ranks); and when the joined ranks cannot connect to each other (naming the address Gloo uses).
// c10d itself may log the same failure through glog on stderr first; GLOG_minloglevel=3 silences it.
Context init(const InitOptions& options = {});

// Tears the context down: a barrier on the process group (so no rank leaves while others still talk
// to it; skipped when `barrier` is false, e.g. after a failed collective), then releases the process
// group and the store. The process group and store are released even when the barrier throws, and the
// context is left empty (process_group and store null). Calling it on an empty context does nothing.
void finalize(Context& context, bool barrier = true);

// The backends this LibTorch build can create ("gloo", plus "nccl"/"mpi" where built with them).
std::vector<std::string> available_backends();

// "LibTorch 1.13.0".
std::string libtorch_version();

}  // namespace ezpz::torch
