// The public runtime: the code behind `ezpz exec`, from an environment given as a map.
#include "ezpz/runtime.hpp"

#include "ezpz/api/impl.hpp"
#include "ezpz/profile/detect.hpp"
#include "ezpz/runtime/allocation.hpp"
#include "ezpz/runtime/rank.hpp"
#include "ezpz/runtime/rank_setup.hpp"
#include "ezpz/util/error.hpp"

namespace ezpz {

RankInfo discover_rank(const std::map<std::string, std::string>& env) {
  return detail::guarded([&] { return core::discover_rank(core::table_env(env)); });
}

RankSetup rank_setup(const Catalog& catalog, const std::map<std::string, std::string>& env, const std::string& hostname,
                     const std::string& device_root) {
  auto& impl = detail::CatalogImpl::of(catalog);
  return detail::guarded([&] {
    core::EnvLookup lookup = core::table_env(env);
    core::RuntimeInputs inputs;
    inputs.env = lookup;
    inputs.device_root = device_root;
    std::string system;
    {
      std::lock_guard<std::mutex> lock(impl->mutex);
      system = core::runtime_system(impl->catalog, {}, lookup, hostname.empty() ? core::host_name() : hostname);
      inputs.profile = &impl->catalog.system(system);
      inputs.job_variables = impl->catalog.job_variables();
    }
    core::RankSetup found = core::rank_setup(inputs);
    RankSetup setup;
    setup.rank = found.rank;
    setup.system = system;
    setup.scheduler = inputs.profile->scheduler;
    setup.generic_system = inputs.profile->detect.fallback > 0;
    setup.device = found.device.torch_device;
    setup.backend = found.backend;
    setup.master_addr = found.master_addr;
    setup.master_port = found.master_port;
    setup.nodes = found.nodes;
    setup.job_id = found.job_id;
    setup.gpus_per_node = found.gpus_per_node;
    setup.exports = found.exports;
    setup.notes = found.notes;
    try {
      setup.hosts = core::current_allocation(lookup, {}, inputs.job_variables).hosts;
    } catch (const core::UserError& error) {
      // A rank whose MASTER_ADDR is given never needed the host file: not knowing the hosts must not stop it.
      setup.notes.push_back(std::string("hosts unknown: ") + error.what());
    }
    return setup;
  });
}

}  // namespace ezpz
