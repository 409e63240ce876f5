// Variables passed to the ranks by name, for launchers that do not pass the job's environment
// (launcher.env_option, e.g. Open MPI's "-x {name}"), and the hand-off list they start from.
#include <algorithm>

#include "ezpz/resolve/resolver.hpp"
#include "ezpz/util/handoff_variables.hpp"

namespace ezpz::core {

std::vector<std::pair<std::string, std::string>> handoff_env(const ResolvedJob& job) {
  std::vector<std::pair<std::string, std::string>> handoff = {
      {k_env_system, job.profile->name},
      {k_env_torch_backend, job.spec.torch.backend->value},
      {k_env_torch_device, job.spec.torch.device->value},
  };
  const SuperviseSpec& supervise = job.spec.supervise;
  if (supervise.signal_before && supervise.signal) {  // read by every rank's ezpz exec (runtime/end_signal.hpp)
    handoff.emplace_back(k_env_end_signal, supervise.signal->value);
    handoff.emplace_back(k_env_signal_before, std::to_string(supervise.signal_before->value));
  }
  if (supervise.label && supervise.label->value) handoff.emplace_back(k_env_label, "1");
  if (supervise.log_dir) handoff.emplace_back(k_env_log_dir, supervise.log_dir->value);
  return handoff;
}

// Every variable the script exports for the ranks, in the order it exports them (EZPZ_BIN, the
// hand-off, the backend environment, the job's env), then the profile's launcher.env_names; each once.
// Their option groups end the rank launcher and the staging launcher.
void Resolver::forward_env(std::map<std::string, std::string> values) {
  const Launcher& launcher = job.profile->launcher;
  if (launcher.env_option.empty()) return;
  auto forward = [&](const std::string& name) {
    if (std::find(job.forwarded_env.begin(), job.forwarded_env.end(), name) == job.forwarded_env.end())
      job.forwarded_env.push_back(name);
  };
  forward(k_env_bin);
  for (const auto& [name, value] : handoff_env(job)) forward(name);
  if (job.spec.supervise.signal_before) forward(k_env_job_end_time);  // exported by the script itself
  if (job.spec.supervise.spare_nodes) forward(k_env_hosts);           // set by ezpz launch for each attempt
  for (const auto& [name, value] : job.backend_env) forward(name);
  for (const auto& [name, value] : job.spec.env) forward(name);
  for (const auto& name : launcher.env_names) forward(name);
  for (const auto& name : job.forwarded_env) {
    values["name"] = name;
    auto words = expand_option_group(launcher.env_option, values, job.profile->path + ": launcher.env_option");
    if (!words) continue;
    job.launcher.insert(job.launcher.end(), words->begin(), words->end());
    job.stage_launcher.insert(job.stage_launcher.end(), words->begin(), words->end());
    if (!job.probe_launcher.empty()) job.probe_launcher.insert(job.probe_launcher.end(), words->begin(), words->end());
  }
}

}  // namespace ezpz::core
