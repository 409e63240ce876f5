// Ranks per node, cpus per rank, cpu binding and the torch device and backend, from the node's shape.
#include <algorithm>

#include "ezpz/resolve/cpu_bind.hpp"
#include "ezpz/resolve/resolver.hpp"
#include "ezpz/util/cpu_list.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

std::vector<std::string> with_auto(std::vector<std::string> items) {
  items.push_back("auto");
  return items;
}

bool contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

}  // namespace

void Resolver::resolve_ranks() {
  const SystemProfile& profile = *job.profile;
  const NodeShape& node = profile.node;
  const Devices& devices = node.devices;
  bool accelerated = devices.kind != DeviceKind::cpu;
  long cpus_per_node = node.usable_cores() * (profile.launcher.cpu_unit == "thread" ? node.threads_per_core : 1);

  auto& rpn = *job.spec.ranks_per_node;
  if (rpn.value == k_auto) {
    rpn = accelerated ? Sourced<long>{devices.count, from_profile(profile, devices.count_loc, "node.devices.count")}
                      : Sourced<long>{1, default_value("one rank per node without accelerators")};
  } else if (accelerated && rpn.value > devices.count) {
    d.error(at(rpn.origin),
            "ranks_per_node " + std::to_string(rpn.value) + " is more than the " + std::to_string(devices.count) + " " +
                device_kind_name(devices.kind) + " devices of a '" + profile.name + "' node",
            "use 'auto' for one rank per device");
  } else if (long threads = node.usable_cores() * node.threads_per_core;
             !accelerated && threads > 0 && rpn.value > threads) {
    d.error(at(rpn.origin), "ranks_per_node " + std::to_string(rpn.value) + " is more than the " +
                                std::to_string(threads) + " usable hardware threads of a '" + profile.name + "' node");
  }

  job.total_ranks = Sourced<long>{job.spec.nodes->value * rpn.value, derived("nodes x ranks_per_node")};
  auto& cpr = *job.spec.cpus_per_rank;
  if (cpr.value != k_auto && cpus_per_node > 0 && cpr.value * rpn.value > cpus_per_node) {
    d.error(at(cpr.origin), "cpus_per_rank " + std::to_string(cpr.value) + " x ranks_per_node " +
                                std::to_string(rpn.value) + " is more than the " + std::to_string(cpus_per_node) +
                                " usable cpus of a '" + profile.name + "' node");
    return;  // no binding can be computed for it either
  }
  resolve_cpu_bind(cpr.value == k_auto ? std::nullopt : std::optional<long>(cpr.value));
  resolve_rank_devices();
  const std::string& binding = job.spec.cpu_bind->value;
  if (cpus_per_node == 0) {
    // Unknown node shape: Slurm's and PBS's own default of one cpu per rank, but written out, since
    // srun does not inherit --cpus-per-task from the batch job (Slurm >= 22.05).
    if (cpr.value == k_auto) cpr = Sourced<long>{1, default_value("node shape unknown: one cpu per rank")};
  } else if (cpr.value == k_auto) {
    auto from_list = cpus_in_list(binding);
    cpr = from_list ? Sourced<long>{*from_list, derived("the cpu binding list")}
                    : Sourced<long>{std::max(1L, cpus_per_node / std::max(1L, rpn.value)),
                                    derived("usable cpus per node / ranks_per_node")};
  }
}

void Resolver::resolve_cpu_bind(std::optional<long> explicit_cpus) {
  const SystemProfile& profile = *job.profile;
  const Launcher& launcher = profile.launcher;
  auto& bind = *job.spec.cpu_bind;
  long rpn = job.spec.ranks_per_node->value;
  bool takes_binding = std::any_of(launcher.args.begin(), launcher.args.end(), [](const std::string& group) {
    return group.find("{cpu_bind}") != std::string::npos;
  });
  if (bind.value != "auto") {  // "none" or the user's own binding, used as written
    if (bind.value != "none" && !takes_binding) {
      d.error(at(bind.origin),
              std::string("the '") + launcher_kind_name(launcher.kind) + "' launcher of system '" + profile.name +
                  "' takes no cpu binding",
              "remove cpu_bind or set it to 'none'");
    }
    return;
  }
  bool lists = launcher.cpu_bind_default == "generate" ||
               (launcher.cpu_bind.count(rpn) != 0 && cpus_in_list(launcher.cpu_bind.at(rpn)));
  std::optional<std::string> binding;
  auto table = launcher.cpu_bind.find(rpn);
  bool table_fits =
      table != launcher.cpu_bind.end() && (!explicit_cpus || cpus_in_list(table->second) == explicit_cpus);
  if (explicit_cpus && lists && !table_fits) {
    binding = generate_cpu_list(profile.node, rpn, explicit_cpus);
    bind = Sourced<std::string>{binding.value_or("none"), derived("the node shape and cpus_per_rank")};
  } else if ((binding = cpu_binding(launcher, profile.node, rpn))) {
    bool from_table = launcher.cpu_bind.count(rpn) != 0;
    bind = Sourced<std::string>{*binding, from_table ? from_profile(profile, launcher.cpu_bind_loc, "launcher.cpu_bind")
                                                     : derived("the node shape (launcher.cpu_bind_default)")};
  } else {
    bind = Sourced<std::string>{"none", from_profile(profile, launcher.cpu_bind_loc, "no binding for this launcher")};
  }
  if (!binding && lists) {
    SourceLoc loc = at(explicit_cpus ? job.spec.cpus_per_rank->origin : job.spec.ranks_per_node->origin);
    d.error(loc,
            "cannot bind " + std::to_string(rpn) + " rank(s) per node" +
                (explicit_cpus ? " x " + std::to_string(*explicit_cpus) + " cpus" : std::string()) + " on a '" +
                profile.name + "' node (" + std::to_string(profile.node.sockets) + " socket(s), " +
                std::to_string(profile.node.usable_cores()) + " usable cores" +
                (profile.node.service_cores.empty() ? std::string()
                                                    : ", of which generated lists leave service cores " +
                                                          format_cpu_group(profile.node.service_cores) + " free") +
                ")",
            "use fewer ranks_per_node or cpus_per_rank, or set cpu_bind: none or your own list");
  }
}

void Resolver::resolve_rank_devices() {
  const SystemProfile& profile = *job.profile;
  long rpn = job.spec.ranks_per_node->value;
  if (profile.node.devices.for_ranks_per_node(rpn).sockets.empty()) return;
  job.rank_devices = rank_devices(profile.node, rpn, job.spec.cpu_bind->value);
  std::vector<std::string> crossing;
  for (const auto& rank : job.rank_devices) {
    if (rank.crosses_sockets()) crossing.push_back(rank.describe());
  }
  if (crossing.empty()) return;
  d.warning(at(job.spec.cpu_bind->origin),
            "cpu_bind puts " + std::to_string(crossing.size()) +
                " local rank(s) on another socket than their device: " + join(crossing, "; "),
            "ezpz exec gives each rank a device on the socket of its block (local ranks fill the sockets in order, "
            "in blocks: docs/runtime-env.md#device); bind them that way, or use cpu_bind: auto");
}

void Resolver::resolve_torch() {
  const Devices& devices = job.profile->node.devices;
  auto& device = *job.spec.torch.device;
  if (device.value == "auto") {
    device = Sourced<std::string>{
        torch_device_type(devices.kind),
        from_profile(*job.profile, {}, std::string("node.devices.kind '") + device_kind_name(devices.kind) + "'")};
  }
  auto devices_here = torch_devices_of(devices.kind);
  if (!contains(devices_here, device.value)) {
    d.error(at(device.origin),
            "torch.device '" + device.value + "' does not exist on a '" + job.profile->name + "' node (" +
                device_kind_name(devices.kind) + " devices)",
            "expected " + quoted_list(with_auto(devices_here)));
    return;
  }
  auto& backend = *job.spec.torch.backend;
  if (backend.value == "auto") {
    backend = Sourced<std::string>{default_backend(device.value), derived("torch.device '" + device.value + "'")};
  }
  auto backends = backends_for(device.value);
  if (!contains(backends, backend.value)) {
    d.error(at(backend.origin), "torch.backend '" + backend.value + "' cannot drive '" + device.value + "' devices",
            "expected " + quoted_list(with_auto(backends)));
  }
}

}  // namespace ezpz::core
