// Putting rank, rendezvous, device and backend together.
#include "ezpz/runtime/rank_setup.hpp"

#include "ezpz/runtime/kill.hpp"

#include <netdb.h>

#include <algorithm>
#include <string_view>

#include "ezpz/runtime/allocation.hpp"
#include "ezpz/runtime/torchrun_env.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/handoff_variables.hpp"
#include "ezpz/util/hash.hpp"
#include "ezpz/util/rank_variables.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/variable_refs.hpp"

namespace ezpz::core {
namespace {

constexpr long k_default_port = 29500;

constexpr std::string_view k_first_host = "{first_host}";

// What `ezpz exec` exports for a profile environment entry, or nullopt to leave the variable alone:
// an entry the job has not set, with its $NAME references expanded here; or one that extends its own
// variable (LD_LIBRARY_PATH=/x:$LD_LIBRARY_PATH) and whose additions are not in it yet (the script
// applied it already; `ezpz launch` inside an allocation did not).
std::optional<std::string> profile_export(const std::string& name, const std::string& value, const EnvLookup& env) {
  auto current = env(name);
  if (!current) return expand_variable_refs(value, env);
  auto before = text_before_ref(value, name);
  if (!before || current->find(expand_variable_refs(*before, env)) != std::string::npos) return std::nullopt;
  return expand_variable_refs(value, env);
}

}  // namespace

std::string master_addr_for(const std::string& pattern, const std::string& host) {
  auto at = pattern.find(k_first_host);
  if (at == std::string::npos) return pattern;
  std::string name = host.substr(0, host.find('.'));
  // What the pattern adds to the first label ("-hsn0" on Sunspot): a host list that already holds the
  // network name (Sunspot's PBS_NODEFILE lists x1921c1s0b0n0-hsn0.hsn.cm.sunspot.alcf.anl.gov) must
  // not get it twice, so the result is the same for the short and the network form of a host.
  std::string rest = pattern.substr(at + k_first_host.size());
  std::string label_tail = rest.substr(0, rest.find('.'));
  if (!label_tail.empty() && name.size() > label_tail.size() && ends_with(name, label_tail)) {
    name.resize(name.size() - label_tail.size());
  }
  return pattern.substr(0, at) + name + rest;
}

HostResolver system_host_resolver() {
  return [](const std::string& host) -> std::optional<std::string> {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    int error = getaddrinfo(host.c_str(), nullptr, &hints, &found);
    if (error == 0) freeaddrinfo(found);
    // Only "no such name" counts: a resolver that is down or slow (EAI_AGAIN, EAI_FAIL) says nothing
    // about the name, and a rank must not fail a healthy job over it.
    if (error != EAI_NONAME && error != EAI_NODATA) return std::nullopt;
    return std::string(gai_strerror(error));
  };
}

void check_rendezvous_host(const RankSetup& setup, const HostResolver& resolve) {
  if (setup.nodes <= 1 || setup.rank.local_rank != 0) return;
  auto error = resolve(setup.master_addr);
  if (!error) return;
  throw UserError("MASTER_ADDR '" + setup.master_addr + "' does not resolve on this node (" + *error +
                      "); it comes from " + setup.master_addr_origin,
                  "the other ranks would wait for rank 0 there until the walltime; check the host list and the "
                  "profile's master_addr, or export MASTER_ADDR");
}

long port_for_job(const std::string& job_id) {
  std::string hex = hash_hex(job_id);
  return 20000 + static_cast<long>(std::stoull(hex.substr(0, 8), nullptr, 16) % 40000);
}

Rendezvous rendezvous_for(const EnvLookup& env, const SystemProfile* profile, long nodes,
                          const JobVariables& variables) {
  Rendezvous r;
  // Rendezvous without any broadcast: every rank computes the same address and port. The hosts are
  // read only when MASTER_ADDR is not given: a host file need not even be readable then.
  std::string job_id = current_job_id(env, variables);
  auto addr = env("MASTER_ADDR");
  Allocation allocation = addr && !addr->empty() ? Allocation{} : current_allocation(env, {}, variables);
  if (addr && !addr->empty()) {
    r.addr = *addr;
    r.addr_origin = "MASTER_ADDR set in the environment";
    r.notes.push_back("MASTER_ADDR already set");
  } else if (!allocation.hosts.empty()) {
    std::string pattern = profile ? profile->master_addr : "{first_host}";
    const std::string& first = allocation.hosts.front();
    r.addr_origin = "the first host '" + first.substr(0, first.find('.')) + "' of " + allocation.hosts_from +
                    " in master_addr '" + pattern + "'" + (profile ? " of profile '" + profile->name + "'" : "");
    r.addr = master_addr_for(pattern, first);
    r.notes.push_back("MASTER_ADDR from the first host of " + allocation.hosts_from);
  } else if (nodes == 1) {
    r.addr = "127.0.0.1";
    r.addr_origin = "all ranks on this node";
    r.notes.push_back("MASTER_ADDR 127.0.0.1: all ranks are on this node");
  } else {
    throw UserError("this job spans " + std::to_string(nodes) + " nodes but neither MASTER_ADDR nor a host list (" +
                        host_variable_names(variables) + ") is set",
                    "ezpz will not guess localhost for a multi-node job (ranks would hang); export MASTER_ADDR");
  }
  if (auto port = env("MASTER_PORT"); port && !port->empty()) {
    bool digits =
        port->size() <= 5 && std::all_of(port->begin(), port->end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || std::stol(*port) < 1 || std::stol(*port) > 65535) {
      throw UserError("MASTER_PORT='" + printable(*port) + "' is not a TCP port (1 to 65535)",
                      "unset it: ezpz derives a port from the job id");
    }
    r.port = *port;
  } else if (profile != nullptr && profile->master_port) {
    r.port = std::to_string(*profile->master_port);
  } else {
    r.port = std::to_string(job_id.empty() ? k_default_port : port_for_job(job_id));
    r.notes.push_back("MASTER_PORT " + r.port + (job_id.empty() ? " (default)" : " derived from job id " + job_id));
  }

  return r;
}

namespace {

// The device this rank uses: among the profile's devices when it names accelerators, else among what
// this node has; none with EZPZ_TORCH_DEVICE=cpu. `count` is how many accelerators it chose among.
DeviceChoice rank_device(const RuntimeInputs& inputs, const RankInfo& rank, long& count,
                         std::vector<std::string>& notes) {
  Devices devices;
  int sockets = 1;
  std::string device_source;
  if (inputs.profile != nullptr && inputs.profile->node.devices.kind != DeviceKind::cpu) {
    devices = inputs.profile->node.devices.for_ranks_per_node(rank.local_world_size);
    sockets = inputs.profile->node.sockets;
    device_source = "profile '" + inputs.profile->name + "'";
  } else {
    devices = probe_devices(inputs.device_root, inputs.env, &device_source);
  }
  if (auto wanted = inputs.env(k_env_torch_device); wanted && *wanted == "cpu") {
    devices = Devices{};
    device_source = "EZPZ_TORCH_DEVICE=cpu";
  }
  DeviceChoice device = choose_device(devices, sockets, rank.local_rank, rank.local_world_size, inputs.env);
  count = devices.kind == DeviceKind::cpu ? 0 : devices.count;
  notes.push_back("device " + device.torch_device + " (" + device_source + "): " + device.reason);
  return device;
}

// The device's backend, or EZPZ_TORCH_BACKEND when it names one.
std::string rank_backend(const DeviceChoice& device, const EnvLookup& env) {
  auto wanted = env(k_env_torch_backend);
  if (!wanted || wanted->empty() || *wanted == "auto") return default_backend(device.torch_device);
  const auto& known = backend_names();
  if (std::find(known.begin(), known.end(), *wanted) == known.end()) {
    throw UserError("EZPZ_TORCH_BACKEND='" + *wanted + "' is not a torch.distributed backend",
                    "expected " + quoted_list(known));
  }
  return *wanted;
}

// The variables `ezpz exec` sets, in order: identity, rendezvous, device, backend, the mark `ezpz kill`
// looks for, the profile's backend environment for this job's node and rank counts (the same entries
// the script exports, BackendEnv::for_job), then torchrun's contract (runtime/torchrun_env.hpp).
std::vector<std::pair<std::string, std::string>> rank_exports(const RankSetup& setup, const RuntimeInputs& inputs) {
  const EnvLookup& env = inputs.env;
  std::vector<std::pair<std::string, std::string>> exports = rank_variables(setup.rank);
  exports.emplace_back("MASTER_ADDR", setup.master_addr);
  exports.emplace_back("MASTER_PORT", setup.master_port);
  if (setup.device.visibility) exports.push_back(*setup.device.visibility);
  exports.emplace_back("TORCH_DEVICE", setup.device.torch_device);
  exports.emplace_back("TORCH_BACKEND", setup.backend);
  exports.emplace_back(k_rank_mark, rank_mark(setup.job_id, setup.rank.rank, node_name(env)));
  if (inputs.profile != nullptr) {
    for (const auto& entry : inputs.profile->backend_env.for_job(setup.nodes, setup.rank.local_world_size)) {
      if (auto value = profile_export(entry.name, entry.value, env)) exports.emplace_back(entry.name, *value);
    }
  }
  add_torchrun_exports(exports, {setup.rank, setup.nodes, setup.job_id, setup.master_addr, setup.master_port}, env);
  return exports;
}

}  // namespace

RankSetup rank_setup(const RuntimeInputs& inputs) {
  const EnvLookup& env = inputs.env;
  RankSetup out;
  out.rank = discover_rank(env);
  const RankInfo& rank = out.rank;
  out.nodes = (rank.world_size + rank.local_world_size - 1) / rank.local_world_size;
  out.notes.push_back("rank " + std::to_string(rank.rank) + " of " + std::to_string(rank.world_size) + " from " +
                      (rank.variables.empty() ? std::string("no launcher (a single process)")
                                              : rank.launcher + " (" + join(rank.variables, ", ") + ")"));
  out.device = rank_device(inputs, rank, out.gpus_per_node, out.notes);
  out.backend = rank_backend(out.device, env);

  Rendezvous rendezvous = rendezvous_for(env, inputs.profile, out.nodes, inputs.job_variables);
  out.master_addr = rendezvous.addr;
  out.master_addr_origin = rendezvous.addr_origin;
  out.master_port = rendezvous.port;
  out.notes.insert(out.notes.end(), rendezvous.notes.begin(), rendezvous.notes.end());
  out.job_id = current_job_id(env, inputs.job_variables);

  out.exports = rank_exports(out, inputs);
  out.run = rank_run_plan(rank, env);
  if (out.run.run == RankRun::supervise) out.notes.push_back("program supervised by ezpz exec: " + out.run.reason);
  return out;
}

}  // namespace ezpz::core
