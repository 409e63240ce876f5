// resolve: the pipeline (precedence, then checks, then derived values) and its JSON/--explain views.
#include <algorithm>

#include "ezpz/resolve/resolver.hpp"
#include "ezpz/util/hash.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/walltime.hpp"
#include "ezpz/version.hpp"

namespace ezpz::core {
namespace {

using json = nlohmann::json;

std::string default_job_name(const std::string& spec_path) {
  std::string stem = spec_path.substr(spec_path.find_last_of('/') + 1);
  stem = stem.substr(0, stem.find('.'));
  std::string name;
  for (char c : stem) name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '-';
  if (name.empty() || name == "-") name = "ezpz-job";
  return name;
}

JobSpec builtin_defaults(const std::string& spec_path) {
  JobSpec spec;
  std::string name = default_job_name(spec_path);
  spec.name = Sourced<std::string>{name, default_value(name == "ezpz-job" ? "" : "the spec file's name")};
  spec.nodes = Sourced<long>{1, default_value()};
  spec.walltime = Sourced<long>{3600, default_value()};
  spec.ranks_per_node = Sourced<long>{k_auto, default_value()};
  spec.cpus_per_rank = Sourced<long>{k_auto, default_value()};
  spec.cpu_bind = Sourced<std::string>{"auto", default_value()};
  spec.torch.backend = Sourced<std::string>{"auto", default_value()};
  spec.torch.device = Sourced<std::string>{"auto", default_value()};
  return spec;
}

// Sets root.a.b for the key "a.b". Each part is escaped as a JSON pointer's token ('~' is "~0", '/' is
// "~1"), so no name can make the pointer malformed.
void set_path(json& root, const std::string& key, json value) {
  std::string pointer;
  for (const auto& part : split(key, '.')) pointer += "/" + replace_all(replace_all(part, "~", "~0"), "/", "~1");
  root[json::json_pointer(pointer)] = std::move(value);
}

}  // namespace

ResolvedJob Resolver::run() {
  JobSpec upper = inputs.spec;
  merge_into(upper, inputs.env);
  merge_into(upper, inputs.cli);
  job.profile = choose_profile(upper);
  job.scheduler = &catalog.scheduler(job.profile->scheduler);

  auto system = job.spec.system;
  job.spec = builtin_defaults(inputs.spec_path);
  merge_into(job.spec, job.profile->defaults);
  merge_into(job.spec, upper);
  job.spec.system = system;
  job.spec.loc = inputs.spec.loc;
  job.spec.rejected = upper.rejected;

  check_run();
  const Queue* queue = nullptr;
  if (!inputs.for_launch) {
    check_name();
    check_directive_values();
    check_workdir();
    check_required();
    check_stage();
    queue = check_queue();
  }
  resolve_ranks();
  check_queue_ranks(queue);
  resolve_torch();
  resolve_supervise();
  d.throw_if_any();
  build_commands(queue);
  job.hash = hash_hex(resolved_json(job, false).dump() + k_version);
  job.warnings = d.warnings();
  return std::move(job);
}

const SystemProfile* Resolver::choose_profile(const JobSpec& upper) {
  Field<std::string> system = upper.system;
  if (!system && inputs.detect) {
    if (auto detection = inputs.detect())
      system = Sourced<std::string>{detection->system, derived("detection: " + detection->reason)};
  }
  if (!system) {
    throw UserError(inputs.spec.loc, "no system given, and this machine matches no profile",
                    "add 'system: NAME' to the spec or pass --system NAME (see 'ezpz systems list')");
  }
  job.spec.system = system;
  return &catalog.system(system->value, system->origin.loc);
}

ResolvedJob resolve(const Catalog& catalog, const ResolveInputs& inputs) {
  Resolver resolver{catalog, inputs, {}, {}};
  return resolver.run();
}

std::vector<ExplainedValue> explain(const ResolvedJob& job) {
  std::vector<ExplainedValue> values;
  for (const auto& [path, doc] : job_spec_keys()) {
    if (path == "env") {
      for (const auto& [name, value] : job.spec.env) values.push_back({"env." + name, value.value, value.origin});
    } else if (auto value = get_value(job.spec, path)) {
      if (is_duration_key(path)) value->value = format_walltime(value->value.get<long>());
      values.push_back({path, value->value, value->origin});
    }
  }
  values.push_back({"scheduler", job.scheduler->name, from_profile(*job.profile, {}, "scheduler")});
  values.push_back({"total_ranks", job.total_ranks.value, job.total_ranks.origin});
  if (!job.rank_devices.empty()) {
    json ranks = json::array();
    for (const auto& rank : job.rank_devices) ranks.push_back(rank.describe());
    values.push_back({"rank_devices", ranks,
                      derived("node.devices.sockets and cpu_bind: each local rank's device on its cpus' socket")});
  }
  for (const auto& [name, value] : job.backend_env)
    values.push_back({"backend_env." + name, value.value, value.origin});
  Origin layout = derived("the scheduler and profile templates");
  values.push_back({"directives", job.directives, layout});
  json launcher = json::array();
  for (const auto& word : job.launcher) launcher.push_back(word.variable ? "$" + word.text : word.text);
  values.push_back({"launcher", launcher, layout});
  return values;
}

json resolved_json(const ResolvedJob& job, bool with_origins) {
  json root = json::object();
  for (const auto& item : explain(job)) {
    if (with_origins) {
      set_path(
          root, item.key,
          {{"value", item.value}, {"origin", item.origin.describe()}, {"kind", origin_kind_name(item.origin.kind)}});
    } else {
      set_path(root, item.key, item.value);
    }
  }
  if (!job.hash.empty()) root["hash"] = job.hash;
  return root;
}

}  // namespace ezpz::core
