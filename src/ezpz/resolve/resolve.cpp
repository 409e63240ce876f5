// resolve: precedence, 'auto' values, queue limits and every other check that needs the profile.
#include "ezpz/resolve/resolve.hpp"

#include <algorithm>
#include <regex>

#include "ezpz/resolve/cpu_bind.hpp"
#include "ezpz/util/hash.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/version.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz {
namespace {

using json = nlohmann::json;

// Device family → torch device type (ROCm builds of torch call their devices "cuda").
const std::vector<std::pair<std::string, std::string>> k_torch_device_of_kind = {
    {"cuda", "cuda"}, {"rocm", "cuda"}, {"xpu", "xpu"}, {"cpu", "cpu"}};
// torch device type → default torch.distributed backend.
const std::vector<std::pair<std::string, std::string>> k_backend_of_device = {
    {"cuda", "nccl"}, {"xpu", "xccl"}, {"cpu", "gloo"}};

// Which torch devices a node of each device family can serve, and which backends each device can use.
const std::vector<std::pair<std::string, std::vector<std::string>>> k_devices_of_kind = {
    {"cuda", {"cuda", "cpu"}}, {"rocm", {"cuda", "cpu"}}, {"xpu", {"xpu", "cpu"}}, {"cpu", {"cpu"}}};
const std::vector<std::pair<std::string, std::vector<std::string>>> k_backends_of_device = {
    {"cuda", {"nccl", "gloo", "mpi"}}, {"xpu", {"xccl", "gloo", "mpi"}}, {"cpu", {"gloo", "mpi"}}};

// Spec keys whose values go into directive lines, which no shell parses: they cannot be quoted, so
// they must not contain anything that would end or split a directive.
const std::vector<std::string> k_directive_keys = {"account", "queue", "output", "error", "mail.user",
                                                   "filesystems", "after"};

template <class Value>
Value lookup(const std::vector<std::pair<std::string, Value>>& table, const std::string& key) {
  for (const auto& [k, v] : table) {
    if (k == key) return v;
  }
  return {};
}

std::vector<std::string> with_auto(std::vector<std::string> items) {
  items.push_back("auto");
  return items;
}

bool contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

Origin builtin(std::string note = {}) { return Origin{OriginKind::builtin, {}, std::move(note)}; }
Origin derived(std::string note) { return Origin{OriginKind::derived, {}, std::move(note)}; }
Origin from_profile(const SystemProfile& profile, SourceLoc loc, std::string note) {
  if (!loc.known()) loc = SourceLoc{profile.source, 0, 0, 1};
  return Origin{OriginKind::profile, std::move(loc), std::move(note)};
}

template <class T>
SourceLoc loc_of(const Field<T>& field) {
  return field ? field->origin.loc : SourceLoc{};
}

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
  spec.name = Sourced<std::string>{default_job_name(spec_path), builtin("the spec file's name")};
  spec.nodes = Sourced<long>{1, builtin()};
  spec.walltime = Sourced<long>{3600, builtin()};
  spec.ranks_per_node = Sourced<long>{k_auto, builtin()};
  spec.cpus_per_rank = Sourced<long>{k_auto, builtin()};
  spec.cpu_bind = Sourced<std::string>{"auto", builtin()};
  spec.torch.backend = Sourced<std::string>{"auto", builtin()};
  spec.torch.device = Sourced<std::string>{"auto", builtin()};
  return spec;
}

bool has_value(const JobSpec& spec, const std::string& path) {
  auto value = get_value(spec, path);
  return value && !value->value.empty() && value->value != "";
}

bool directive_safe(const std::string& text) {
  return std::none_of(text.begin(), text.end(), [](char c) {
    return std::iscntrl(static_cast<unsigned char>(c)) || c == ' ' || c == '"' || c == '\'' || c == '\\' || c == '#';
  });
}

// The option a directive sets: "--time" for "--time=1:00:00", "-l place" for "-l place=scatter",
// "-q" for "-q debug". Two directives with the same option conflict.
std::string directive_option(const std::string& line) {
  auto words = split_words(line);
  if (words.empty()) return {};
  std::string option = words[0].substr(0, words[0].find('='));
  if ((option == "-l" || option == "-W") && words.size() > 1) option += " " + words[1].substr(0, words[1].find('='));
  return option;
}

std::string walltime_text(long seconds) { return "'" + format_walltime(seconds) + "'"; }

struct Resolver {
  const Catalog& catalog;
  const ResolveInputs& inputs;
  Diagnostics d;
  ResolvedJob job;

  // Where to point an error about a value: its own location, else the spec file (built-in defaults
  // have no location of their own).
  SourceLoc at(const Origin& origin) const { return origin.loc.known() ? origin.loc : inputs.spec.loc; }

  const SystemProfile* choose_profile(const JobSpec& upper) {
    Field<std::string> system = upper.system;
    if (!system && inputs.detect) {
      if (auto detection = inputs.detect()) system = Sourced<std::string>{detection->system, derived("detection: " + detection->reason)};
    }
    if (!system) {
      throw UserError(inputs.spec.loc, "no system given, and this machine matches no profile",
                      "add 'system: NAME' to the spec or pass --system NAME (see 'ezpz systems list')");
    }
    job.spec.system = system;
    return &catalog.system(system->value, system->origin.loc);
  }

  void check_name() {
    const auto& name = *job.spec.name;
    static const std::regex k_name("[A-Za-z0-9_][A-Za-z0-9._+-]*");
    if (!std::regex_match(name.value, k_name)) {
      d.error(at(name.origin), "job name '" + printable(name.value) + "' is not accepted by " + job.scheduler->name,
              "use letters, digits, '.', '_', '+' and '-', starting with a letter, digit or '_'");
    }
    auto limit = job.scheduler->max_length.find("name");
    if (limit != job.scheduler->max_length.end() && static_cast<long>(name.value.size()) > limit->second) {
      d.error(at(name.origin), "job name is " + std::to_string(name.value.size()) + " characters long; " +
                                   job.scheduler->name + " accepts at most " + std::to_string(limit->second));
    }
  }

  void check_directive_values() {
    for (const auto& path : k_directive_keys) {
      auto value = get_value(job.spec, path);
      if (!value) continue;
      std::vector<std::string> items = value->value.is_array() ? value->value.get<std::vector<std::string>>()
                                                               : std::vector<std::string>{value->value.get<std::string>()};
      for (const auto& item : items) {
        if (item.empty()) {
          d.error(at(value->origin), "'" + path + "' must not be empty");
        } else if (!directive_safe(item)) {
          d.error(at(value->origin), "'" + path + "' value '" + printable(item) + "' cannot go into a scheduler directive",
                  "spaces, quotes, backslashes, '#' and control characters are not allowed there");
        }
      }
    }
    if (job.spec.scheduler_args) {
      for (const auto& arg : job.spec.scheduler_args->value) {
        if (arg.empty() || arg.front() != '-' || !std::none_of(arg.begin(), arg.end(), [](char c) {
              return std::iscntrl(static_cast<unsigned char>(c)) || c == '#';
            })) {
          d.error(at(job.spec.scheduler_args->origin), "scheduler argument '" + printable(arg) + "' is not a single option",
                  "each entry starts with '-' and has no '#' (PBS rejects trailing comments) or line breaks");
        }
      }
    }
  }

  void check_required() {
    const SystemProfile& profile = *job.profile;
    for (const auto& key : profile.required) {
      if (!has_value(job.spec, key) && !job.spec.was_rejected(key)) {
        d.error(inputs.spec.loc, "system '" + profile.name + "' requires '" + key + "'",
                "add '" + key + ":' to the spec or pass --set " + key + "=…");
      }
    }
    if (!profile.filesystems.empty() && job.spec.filesystems) {
      for (const auto& fs : job.spec.filesystems->value) {
        if (std::find(profile.filesystems.begin(), profile.filesystems.end(), fs) == profile.filesystems.end()) {
          d.error(at(job.spec.filesystems->origin), "unknown filesystem '" + fs + "' for system '" + profile.name + "'",
                  suggestion_hint(fs, profile.filesystems));
        }
      }
    }
  }

  std::string fitting_queues(long nodes, std::optional<long> walltime) const {
    std::vector<std::string> names;
    for (const auto& queue : job.profile->queues) {
      bool fits = nodes >= queue.min_nodes && (!queue.max_nodes || nodes <= *queue.max_nodes);
      auto limit = queue.walltime_limit(nodes);
      if (fits && (!walltime || !limit || *walltime <= *limit)) names.push_back(queue.name);
    }
    if (names.empty()) return "no queue of '" + job.profile->name + "' takes this job";
    return "queues that fit: " + quoted_list(names, ", ");
  }

  const Queue* check_queue() {
    const SystemProfile& profile = *job.profile;
    const auto& queue_field = job.spec.queue;
    if (profile.queues.empty()) return nullptr;
    if (!queue_field) {
      d.error(inputs.spec.loc, "no queue given and system '" + profile.name + "' has no default queue",
              "queues: " + quoted_list(profile.queue_names(), ", "));
      return nullptr;
    }
    const Queue* queue = profile.find_queue(queue_field->value);
    if (queue == nullptr && queue_field->value.empty()) {
      return nullptr;  // reported as an empty directive value
    } else if (queue == nullptr) {
      d.error(at(queue_field->origin), "unknown queue '" + queue_field->value + "' for system '" + profile.name + "'",
              suggestion_hint(queue_field->value, profile.queue_names()));
      return nullptr;
    }
    const auto& nodes = *job.spec.nodes;
    const auto& walltime = *job.spec.walltime;
    if (nodes.value < queue->min_nodes) {
      d.error(at(nodes.origin), "queue '" + queue->name + "' needs at least " + std::to_string(queue->min_nodes) +
                                    " nodes, found " + std::to_string(nodes.value),
              fitting_queues(nodes.value, std::nullopt));
    } else if (queue->max_nodes && nodes.value > *queue->max_nodes) {
      d.error(at(nodes.origin), "nodes " + std::to_string(nodes.value) + " is over the limit of queue '" + queue->name +
                                    "' (at most " + std::to_string(*queue->max_nodes) + ")",
              fitting_queues(nodes.value, std::nullopt));
    }
    if (auto limit = queue->walltime_limit(nodes.value); limit && walltime.value > *limit) {
      d.error(at(walltime.origin), "walltime " + walltime_text(walltime.value) + " is over the limit of queue '" +
                                       queue->name + "' for " + std::to_string(nodes.value) + " node" +
                                       (nodes.value == 1 ? "" : "s") + " (" + format_walltime(*limit) + ")",
              fitting_queues(nodes.value, walltime.value));
    }
    return queue;
  }

  void resolve_ranks() {
    const SystemProfile& profile = *job.profile;
    const NodeShape& node = profile.node;
    const Devices& devices = node.devices;
    bool accelerated = devices.kind != "cpu";
    long cpus_per_node = node.usable_cores() * (profile.launcher.cpu_unit == "thread" ? node.threads_per_core : 1);

    auto& rpn = *job.spec.ranks_per_node;
    if (rpn.value == k_auto) {
      rpn = accelerated ? Sourced<long>{devices.count, from_profile(profile, devices.count_loc, "node.devices.count")}
                        : Sourced<long>{1, builtin("one rank per node without accelerators")};
    } else if (accelerated && rpn.value > devices.count) {
      d.error(at(rpn.origin), "ranks_per_node " + std::to_string(rpn.value) + " is more than the " +
                                  std::to_string(devices.count) + " " + devices.kind + " devices of a '" + profile.name +
                                  "' node",
              "use 'auto' for one rank per device");
    } else if (long threads = node.usable_cores() * node.threads_per_core; !accelerated && threads > 0 && rpn.value > threads) {
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
    const std::string& binding = job.spec.cpu_bind->value;
    if (cpus_per_node == 0) {
      // Unknown node shape: Slurm's and PBS's own default of one cpu per rank, but written out, since
      // srun does not inherit --cpus-per-task from the batch job (Slurm >= 22.05).
      if (cpr.value == k_auto) cpr = Sourced<long>{1, builtin("node shape unknown: one cpu per rank")};
    } else if (cpr.value == k_auto) {
      auto from_list = cpus_in_list(binding);
      cpr = from_list ? Sourced<long>{*from_list, derived("the cpu binding list")}
                      : Sourced<long>{std::max(1L, cpus_per_node / std::max(1L, rpn.value)),
                                      derived("usable cpus per node / ranks_per_node")};
    }
  }

  // Sets spec.cpu_bind to the binding the launcher gets ("none" for none).
  void resolve_cpu_bind(std::optional<long> explicit_cpus) {
    const SystemProfile& profile = *job.profile;
    const Launcher& launcher = profile.launcher;
    auto& bind = *job.spec.cpu_bind;
    long rpn = job.spec.ranks_per_node->value;
    bool takes_binding = std::any_of(launcher.args.begin(), launcher.args.end(), [](const std::string& group) {
      return group.find("{cpu_bind}") != std::string::npos;
    });
    if (bind.value != "auto") {  // "none" or the user's own binding, used as written
      if (bind.value != "none" && !takes_binding) {
        d.error(at(bind.origin), "the '" + launcher.kind + "' launcher of system '" + profile.name + "' takes no cpu binding",
                "remove cpu_bind or set it to 'none'");
      }
      return;
    }
    bool lists = launcher.cpu_bind_default == "generate" || (launcher.cpu_bind.count(rpn) != 0 && cpus_in_list(launcher.cpu_bind.at(rpn)));
    std::optional<std::string> binding;
    auto table = launcher.cpu_bind.find(rpn);
    bool table_fits = table != launcher.cpu_bind.end() && (!explicit_cpus || cpus_in_list(table->second) == explicit_cpus);
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
      d.error(loc, "cannot bind " + std::to_string(rpn) + " rank(s) per node" +
                       (explicit_cpus ? " x " + std::to_string(*explicit_cpus) + " cpus" : std::string()) + " on a '" +
                       profile.name + "' node (" + std::to_string(profile.node.sockets) + " socket(s), " +
                       std::to_string(profile.node.usable_cores()) + " usable cores)",
              "use a ranks_per_node divisible by the sockets, fewer cpus_per_rank, or set cpu_bind: none or your own list");
    }
  }

  void resolve_torch() {
    const Devices& devices = job.profile->node.devices;
    auto& device = *job.spec.torch.device;
    if (device.value == "auto") {
      device = Sourced<std::string>{lookup(k_torch_device_of_kind, devices.kind),
                                    from_profile(*job.profile, {}, "node.devices.kind '" + devices.kind + "'")};
    }
    auto devices_here = lookup(k_devices_of_kind, devices.kind);
    if (!contains(devices_here, device.value)) {
      d.error(at(device.origin), "torch.device '" + device.value + "' does not exist on a '" + job.profile->name +
                                     "' node (" + devices.kind + " devices)",
              "expected " + quoted_list(with_auto(devices_here)));
      return;
    }
    auto& backend = *job.spec.torch.backend;
    if (backend.value == "auto") {
      backend = Sourced<std::string>{lookup(k_backend_of_device, device.value), derived("torch.device '" + device.value + "'")};
    }
    auto backends = lookup(k_backends_of_device, device.value);
    if (!contains(backends, backend.value)) {
      d.error(at(backend.origin), "torch.backend '" + backend.value + "' cannot drive '" + device.value +
                                      "' devices",
              "expected " + quoted_list(with_auto(backends)));
    }
  }

  void check_run() {
    const auto& run = job.spec.run;
    if (!run && job.spec.was_rejected("run")) {
      return;
    } else if (!run) {
      d.error(inputs.spec.loc, "missing required key 'run': the program every rank runs",
              "for example: run: [python3, train.py]");
    } else if (run->value.empty() || run->value.front().empty()) {
      d.error(run->origin.loc, "'run' is empty: it must name the program every rank runs",
              "for example: run: [python3, train.py]");
    }
  }

  bool stages_to_node_local() const {
    std::string local = job.profile->node.node_local;
    local = local.substr(0, local.find_first_of("$%"));
    while (local.size() > 1 && local.back() == '/') local.pop_back();
    if (local.empty() || !job.spec.stage) return false;
    return std::any_of(job.spec.stage->value.begin(), job.spec.stage->value.end(), [&](const StageEntry& entry) {
      return entry.dest == local || entry.dest.rfind(local + "/", 0) == 0;
    });
  }

  std::map<std::string, std::string> placeholder_values(const Queue* queue) const {
    const JobSpec& s = job.spec;
    auto text = [](const auto& field) { return field ? field->value : std::string(); };
    auto joined = [](const auto& field) { return field ? join(field->value, ":") : std::string(); };
    std::string mail_events;
    if (s.mail.events) {
      std::vector<std::string> words;
      for (const auto& event : s.mail.events->value) {
        auto mapped = job.scheduler->mail_events.find(event);
        if (mapped != job.scheduler->mail_events.end()) words.push_back(mapped->second);
      }
      mail_events = join(words, job.scheduler->mail_events_separator);
    }
    const Devices& devices = job.profile->node.devices;
    return {
        {"name", text(s.name)},
        {"account", text(s.account)},
        {"queue", queue ? queue->name : text(s.queue)},
        {"nodes", std::to_string(s.nodes->value)},
        {"walltime", format_walltime(s.walltime->value)},
        {"filesystems", joined(s.filesystems)},
        {"ranks_per_node", std::to_string(s.ranks_per_node->value)},
        {"cpus_per_rank", std::to_string(s.cpus_per_rank->value)},
        {"total_ranks", std::to_string(job.total_ranks.value)},
        {"gpus_per_node", devices.kind == "cpu" ? std::string() : std::to_string(devices.count)},
        {"cpu_bind", s.cpu_bind->value == "none" ? std::string() : s.cpu_bind->value},
        {"output", text(s.output)},
        {"error", text(s.error)},
        {"mail.user", text(s.mail.user)},
        {"mail.events", mail_events},
        {"after", joined(s.after)},
    };
  }

  std::vector<CommandWord> expand_groups(const std::vector<std::string>& groups,
                                         const std::map<std::string, std::string>& values, const std::string& context) {
    std::vector<CommandWord> words;
    for (const auto& group : groups) {
      if (auto expanded = expand_option_group(group, values, context)) words.insert(words.end(), expanded->begin(), expanded->end());
    }
    return words;
  }

  void build_commands(const Queue* queue) {
    const SystemProfile& profile = *job.profile;
    auto values = placeholder_values(queue);

    NamedTemplates templates = job.scheduler->directives;
    merge_templates(templates, profile.directives);
    if (queue) merge_templates(templates, queue->directives);
    if (stages_to_node_local()) merge_templates(templates, profile.node.node_local_directives);
    for (const auto& [name, text] : templates) {
      auto words = expand_option_group(*text, values, profile.path + ": directive '" + name + "'");
      if (!words) continue;
      std::vector<std::string> parts;
      for (const auto& word : *words) parts.push_back(word.text);
      job.directives.push_back(join(parts, " "));
    }
    if (job.spec.scheduler_args) {
      // An escape-hatch argument replaces a generated directive for the same option ("-l place=…").
      for (const auto& arg : job.spec.scheduler_args->value) {
        auto same = [&](const std::string& line) { return directive_option(line) == directive_option(arg); };
        job.directives.erase(std::remove_if(job.directives.begin(), job.directives.end(), same), job.directives.end());
      }
      job.directives.insert(job.directives.end(), job.spec.scheduler_args->value.begin(), job.spec.scheduler_args->value.end());
    }

    job.launcher = expand_groups(profile.launcher.args, values, profile.path + ": launcher.args");
    auto stage_values = values;
    stage_values["ranks_per_node"] = "1";
    stage_values["total_ranks"] = std::to_string(job.spec.nodes->value);
    stage_values["cpus_per_rank"] = "";
    stage_values["cpu_bind"] = "";
    job.stage_launcher = expand_groups(profile.launcher.args, stage_values, profile.path + ": launcher.args");

    const BackendEnv& env = profile.backend_env;
    bool multi = job.spec.nodes->value > 1;
    auto add = [&](const auto& vars, const char* section) {
      for (const auto& [name, value] : vars) {
        job.backend_env.emplace_back(name, Sourced<std::string>{value, from_profile(profile, {}, section)});
      }
    };
    add(env.always, "backend_env.always");
    add(multi ? env.multi_node : env.single_node, multi ? "backend_env.multi_node" : "backend_env.single_node");
  }

  ResolvedJob run() {
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
    check_name();
    check_directive_values();
    check_required();
    const Queue* queue = check_queue();
    resolve_ranks();
    resolve_torch();
    d.throw_if_any();
    build_commands(queue);
    job.hash = hash_hex(resolved_json(job, false).dump() + k_version);
    return std::move(job);
  }
};

void set_path(json& root, const std::string& key, json value) {
  std::string pointer = "/" + key;
  std::replace(pointer.begin(), pointer.end(), '.', '/');
  root[json::json_pointer(pointer)] = std::move(value);
}

}  // namespace

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
      if (path == "walltime") value->value = format_walltime(value->value.get<long>());
      values.push_back({path, value->value, value->origin});
    }
  }
  values.push_back({"scheduler", job.scheduler->name, from_profile(*job.profile, {}, "scheduler")});
  values.push_back({"total_ranks", job.total_ranks.value, job.total_ranks.origin});
  for (const auto& [name, value] : job.backend_env) values.push_back({"backend_env." + name, value.value, value.origin});
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
      set_path(root, item.key, {{"value", item.value}, {"origin", item.origin.describe()}, {"kind", origin_kind_name(item.origin.kind)}});
    } else {
      set_path(root, item.key, item.value);
    }
  }
  if (!job.hash.empty()) root["hash"] = job.hash;
  return root;
}

}  // namespace ezpz
