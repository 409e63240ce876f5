// Reading profiles and scheduler descriptions through key tables; every problem names file:line:col.
#include "ezpz/profile/read_profile.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <numeric>
#include <tuple>

#include "ezpz/profile/job_state.hpp"
#include "ezpz/profile/output_formats.hpp"
#include "ezpz/util/regex.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz::core {
namespace {

constexpr long k_max = std::numeric_limits<long>::max();

// Reads one typed value into `target` when the node is valid.
struct Reader {
  Diagnostics& d;

  void text(std::string& target, const YamlNode& node, std::string_view what) {
    if (auto value = read_string(node, what, d)) target = *value;
  }
  void number(int& target, const YamlNode& node, std::string_view what, long min, long max) {
    if (auto value = read_int(node, what, min, max, d)) target = static_cast<int>(*value);
  }
  void number(long& target, const YamlNode& node, std::string_view what, long min) {
    if (auto value = read_int(node, what, min, k_max, d)) target = *value;
  }
  void flag(bool& target, const YamlNode& node, std::string_view what) {
    if (auto value = read_bool(node, what, d)) target = *value;
  }
  void list(std::vector<std::string>& target, const YamlNode& node, std::string_view what) {
    if (auto value = read_string_list(node, what, d)) target = *value;
  }
  void choice(std::string& target, const YamlNode& node, std::string_view what,
              const std::vector<std::string>& choices) {
    if (!node.is_scalar() || std::find(choices.begin(), choices.end(), node.scalar) == choices.end()) {
      d.error(node.loc,
              "'" + std::string(what) + "' expects one of " + quoted_list(choices) + ", found " + node.describe(),
              node.is_scalar() ? suggestion_hint(node.scalar, choices) : std::string());
      return;
    }
    target = node.scalar;
  }
  void walltime(long& target, const YamlNode& node, std::string_view what) {
    std::string why;
    std::optional<long> seconds;
    if (node.is_scalar()) seconds = parse_walltime(node.scalar, &why);
    if (seconds) {
      target = *seconds;
    } else {
      d.error(node.loc, "invalid " + std::string(what) + " " + node.describe() + (why.empty() ? "" : ": " + why));
    }
  }
  void int_list(std::vector<int>& target, const YamlNode& node, std::string_view what) {
    if (!node.is_sequence()) {
      d.error(node.loc, "'" + std::string(what) + "' expects a list of integers, found " + node.describe());
      return;
    }
    target.clear();
    for (const auto& item : node.items) {
      if (auto value = read_int(item, what, 0, 1 << 20, d)) target.push_back(static_cast<int>(*value));
    }
  }
  // A regular expression (RE2's syntax), checked here: a bad one is an error at its place, not at its
  // first use, where it is compiled again. tests/unit/profile checks every shipped pattern.
  void regex(const YamlNode& node, std::string_view what, std::string& target) {
    std::string pattern;
    text(pattern, node, what);
    if (std::string problem = regex_problem(pattern); !problem.empty()) {
      d.error(node.loc, "'" + std::string(what) + "' is not a regular expression: " + problem, k_regex_hint);
      return;
    }
    target = pattern;
  }
  // A map of names to scalars; null values are kept as "remove" markers.
  void templates(NamedTemplates& target, const YamlNode& node, std::string_view what) {
    if (!expect_map(node, what, d)) return;
    for (const auto& entry : node.entries) {
      if (entry.value.is_null()) {
        target.emplace_back(entry.key, std::nullopt);
      } else if (auto value = read_string(entry.value, std::string(what) + "." + entry.key, d)) {
        target.emplace_back(entry.key, *value);
      }
    }
  }
  // A map of names to strings, in order. With `environment`, the names are environment variables.
  void variables(std::vector<std::pair<std::string, std::string>>& target, const YamlNode& node, std::string_view what,
                 bool environment = false) {
    if (!expect_map(node, what, d)) return;
    for (const auto& entry : node.entries) {
      if (environment && !valid_env_name(entry.key)) {
        // The ranks would never see it, and it is a key of the resolved job's JSON.
        d.error(entry.key_loc,
                "'" + std::string(what) + "' holds '" + printable(entry.key) + "', which is not a variable name",
                "names are letters, digits and '_', not starting with a digit");
        continue;
      }
      if (entry.value.is_null()) continue;
      if (auto value = read_string(entry.value, std::string(what) + "." + entry.key, d))
        target.emplace_back(entry.key, *value);
    }
  }
};

// node.devices.by_ranks_per_node: ranks per node → {count, sockets}.
void read_device_layouts(Devices& devices, const YamlNode& node, Reader& r) {
  if (!expect_map(node, "node.devices.by_ranks_per_node", r.d)) return;
  for (const auto& entry : node.entries) {
    YamlNode key = make_scalar(entry.key, entry.key_loc);
    auto ranks = read_int(key, "node.devices.by_ranks_per_node key (ranks per node)", 1, 4096, r.d);
    std::string what = "node.devices.by_ranks_per_node." + entry.key;
    DeviceLayout layout;
    read_section(entry.value, what,
                 {
                     {"count", [&](const YamlNode& n) { r.number(layout.count, n, what + ".count", 1, 1024); }},
                     {"sockets", [&](const YamlNode& n) { r.int_list(layout.sockets, n, what + ".sockets"); }},
                 },
                 r.d);
    if (ranks) devices.by_ranks_per_node[*ranks] = layout;
  }
}

// Every device of `sockets` (node.devices.sockets or a by_ranks_per_node entry's) names a socket of the
// node, one entry per device.
void check_device_sockets(const std::vector<int>& sockets, int count, int node_sockets, const YamlNode* where,
                          const std::string& what, Reader& r) {
  if (sockets.empty() || where == nullptr) return;
  if (static_cast<int>(sockets.size()) != count) {
    r.d.error(where->loc,
              "'" + what + "' lists " + std::to_string(sockets.size()) + " socket(s) for " + std::to_string(count) +
                  " device(s)",
              "give the socket of each device, in device order");
  }
  for (int socket : sockets) {
    if (socket >= node_sockets) {
      r.d.error(where->loc, "'" + what + "' names socket " + std::to_string(socket) + ", but a node has " +
                                std::to_string(node_sockets) + " socket(s) (node.sockets), numbered from 0");
      return;
    }
  }
}

void read_devices(Devices& devices, const YamlNode& node, Reader& r) {
  read_section(node, "node.devices",
               {
                   {"kind",
                    [&](const YamlNode& n) {
                      std::string kind = device_kind_name(devices.kind);
                      r.choice(kind, n, "node.devices.kind", device_kind_names());
                      devices.kind = parse_device_kind(kind).value_or(devices.kind);
                    }},
                   {"count",
                    [&](const YamlNode& n) {
                      r.number(devices.count, n, "node.devices.count", 1, 1024);
                      devices.count_loc = n.loc;
                    }},
                   {"visibility", [&](const YamlNode& n) { r.text(devices.visibility, n, "node.devices.visibility"); }},
                   {"order", [&](const YamlNode& n) { r.int_list(devices.order, n, "node.devices.order"); }},
                   {"select",
                    [&](const YamlNode& n) {
                      r.choice(devices.select, n, "node.devices.select", {"mask", "index", "launcher"});
                    }},
                   {"sockets", [&](const YamlNode& n) { r.int_list(devices.sockets, n, "node.devices.sockets"); }},
                   {"by_ranks_per_node", [&](const YamlNode& n) { read_device_layouts(devices, n, r); }},
               },
               r.d);
  if (devices.order.empty()) {
    devices.order.resize(static_cast<size_t>(devices.count));
    std::iota(devices.order.begin(), devices.order.end(), 0);
  } else {
    std::vector<int> sorted = devices.order;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> expected(static_cast<size_t>(devices.count));
    std::iota(expected.begin(), expected.end(), 0);
    if (sorted != expected) {
      r.d.error(node.find("order")->loc, "'node.devices.order' must list each device 0 to " +
                                             std::to_string(devices.count - 1) + " exactly once");
    }
  }
}

void read_node_shape(NodeShape& shape, const YamlNode& node, Reader& r) {
  shape.loc = node.loc;
  read_section(
      node, "node",
      {
          {"sockets", [&](const YamlNode& n) { r.number(shape.sockets, n, "node.sockets", 1, 64); }},
          {"cores_per_socket",
           [&](const YamlNode& n) { r.number(shape.cores_per_socket, n, "node.cores_per_socket", 1, 4096); }},
          {"threads_per_core",
           [&](const YamlNode& n) { r.number(shape.threads_per_core, n, "node.threads_per_core", 1, 16); }},
          {"reserved_cores", [&](const YamlNode& n) { r.int_list(shape.reserved_cores, n, "node.reserved_cores"); }},
          {"service_cores", [&](const YamlNode& n) { r.int_list(shape.service_cores, n, "node.service_cores"); }},
          {"node_local", [&](const YamlNode& n) { r.text(shape.node_local, n, "node.node_local"); }},
          {"node_local_directives",
           [&](const YamlNode& n) { r.templates(shape.node_local_directives, n, "node.node_local_directives"); }},
          {"devices", [&](const YamlNode& n) { read_devices(shape.devices, n, r); }},
      },
      r.d);
  const YamlNode* devices = node.find("devices");
  if (devices == nullptr) return;
  check_device_sockets(shape.devices.sockets, shape.devices.count, shape.sockets, devices->find("sockets"),
                       "node.devices.sockets", r);
  const YamlNode* layouts = devices->find("by_ranks_per_node");
  for (const auto& [ranks, layout] : shape.devices.by_ranks_per_node) {
    const YamlNode* entry = layouts ? layouts->find(std::to_string(ranks)) : nullptr;
    std::string what = "node.devices.by_ranks_per_node." + std::to_string(ranks) + ".sockets";
    check_device_sockets(layout.sockets, layout.count, shape.sockets, entry ? entry->find("sockets") : nullptr, what,
                         r);
  }
}

void read_cpu_bind(Launcher& launcher, const YamlNode& node, Reader& r) {
  launcher.cpu_bind_loc = node.loc;
  if (!expect_map(node, "launcher.cpu_bind", r.d)) return;
  for (const auto& entry : node.entries) {
    YamlNode key = make_scalar(entry.key, entry.key_loc);
    auto ranks = read_int(key, "launcher.cpu_bind key (ranks per node)", 1, 4096, r.d);
    auto binding = read_string(entry.value, "launcher.cpu_bind." + entry.key, r.d);
    if (ranks && binding) launcher.cpu_bind[*ranks] = *binding;
  }
}

// filesystem name → option groups, e.g. {daos_user_fs: ["--no-vni"]}.
void read_filesystem_args(Launcher& launcher, const YamlNode& node, Reader& r) {
  if (!expect_map(node, "launcher.filesystem_args", r.d)) return;
  for (const auto& entry : node.entries) {
    if (entry.value.is_null()) continue;
    std::vector<std::string> groups;
    r.list(groups, entry.value, "launcher.filesystem_args." + entry.key);
    launcher.filesystem_args.emplace_back(entry.key, groups);
  }
}

void read_launcher(Launcher& launcher, const YamlNode& node, Reader& r) {
  read_section(
      node, "launcher",
      {
          {"kind",
           [&](const YamlNode& n) {
             std::string kind = launcher_kind_name(launcher.kind);
             r.choice(kind, n, "launcher.kind", launcher_kind_names());
             launcher.kind = parse_launcher_kind(kind).value_or(launcher.kind);
           }},
          {"family",
           [&](const YamlNode& n) { r.choice(launcher.family, n, "launcher.family", launcher_family_names()); }},
          {"args", [&](const YamlNode& n) { r.list(launcher.args, n, "launcher.args"); }},
          {"multi_node_args",
           [&](const YamlNode& n) { r.list(launcher.multi_node_args, n, "launcher.multi_node_args"); }},
          {"cpu_unit",
           [&](const YamlNode& n) {
             r.choice(launcher.cpu_unit, n, "launcher.cpu_unit", {"core", "thread"});
           }},
          {"cpu_bind", [&](const YamlNode& n) { read_cpu_bind(launcher, n, r); }},
          {"cpu_bind_default",
           [&](const YamlNode& n) { r.text(launcher.cpu_bind_default, n, "launcher.cpu_bind_default"); }},
          {"rank_wrapper", [&](const YamlNode& n) { r.flag(launcher.rank_wrapper, n, "launcher.rank_wrapper"); }},
          {"env_option", [&](const YamlNode& n) { r.text(launcher.env_option, n, "launcher.env_option"); }},
          {"env_names", [&](const YamlNode& n) { r.list(launcher.env_names, n, "launcher.env_names"); }},
          {"filesystem_args", [&](const YamlNode& n) { read_filesystem_args(launcher, n, r); }},
          {"hosts_option", [&](const YamlNode& n) { r.text(launcher.hosts_option, n, "launcher.hosts_option"); }},
      },
      r.d);
  if (node.is_map() && !node.find("kind"))
    r.d.error(node.loc, "missing 'launcher.kind'", "one of " + quoted_list(launcher_kind_names(), ", "));
  if (node.is_map() && !node.find("args")) r.d.error(node.loc, "missing 'launcher.args': the launch command");
  if (const YamlNode* option = node.is_map() ? node.find("env_option") : nullptr;
      option && !launcher.env_option.empty() && launcher.env_option.find("{name}") == std::string::npos) {
    r.d.error(option->loc, "'launcher.env_option' must contain '{name}', found '" + launcher.env_option + "'",
              "the option group that passes one variable to the ranks, e.g. \"-x {name}\"");
  }
  if (const YamlNode* names = node.is_map() ? node.find("env_names") : nullptr) {
    for (const auto& name : launcher.env_names) {
      if (!valid_env_name(name)) {
        r.d.error(names->loc, "'launcher.env_names' holds '" + name + "', which is not a variable name",
                  "names are letters, digits and '_', not starting with a digit");
      }
    }
  }
}

void read_failure_pattern(FailurePattern& pattern, const YamlNode& node, const std::string& what, Reader& r) {
  pattern.loc = node.loc;
  read_section(
      node, what,
      {
          {"name", [&](const YamlNode& n) { r.text(pattern.name, n, what + ".name"); }},
          {"regex", [&](const YamlNode& n) { r.regex(n, what + ".regex", pattern.regex); }},
          {"host_group", [&](const YamlNode& n) { r.number(pattern.host_group, n, what + ".host_group", 0, 99); }},
          {"host_is",
           [&](const YamlNode& n) {
             r.choice(pattern.host_is, n, what + ".host_is", {"name", "address"});
           }},
          {"proves", [&](const YamlNode& n) { r.flag(pattern.proves, n, what + ".proves"); }},
      },
      r.d);
  if (node.is_map() && !node.find("regex")) r.d.error(node.loc, "missing '" + what + ".regex': the line to look for");
}

void read_failover(Failover& failover, const YamlNode& node, Reader& r) {
  read_section(node, "failover",
               {
                   {"node_key",
                    [&](const YamlNode& n) {
                      failover.node_key_loc = n.loc;
                      r.regex(n, "failover.node_key", failover.node_key);
                    }},
                   {"patterns",
                    [&](const YamlNode& n) {
                      if (!n.is_sequence()) {
                        r.d.error(n.loc, "'failover.patterns' expects a list of patterns, found " + n.describe());
                        return;
                      }
                      for (const auto& item : n.items) {
                        FailurePattern pattern;
                        read_failure_pattern(pattern, item,
                                             "failover.patterns[" + std::to_string(failover.patterns.size()) + "]", r);
                        failover.patterns.push_back(pattern);
                      }
                    }},
               },
               r.d);
}

void read_node_state(NodeStateQuery& query, const YamlNode& node, Reader& r) {
  read_section(node, "node_state",
               {
                   {"command", [&](const YamlNode& n) { r.list(query.command, n, "node_state.command"); }},
                   {"format",
                    [&](const YamlNode& n) {
                      r.choice(query.format, n, "node_state.format", output_format_names(OutputKind::node_states));
                    }},
                   {"bad", [&](const YamlNode& n) { r.list(query.bad, n, "node_state.bad"); }},
                   {"job_nodes", [&](const YamlNode& n) { r.list(query.job_nodes, n, "node_state.job_nodes"); }},
               },
               r.d);
  if (node.is_map() && (!node.find("command") || !node.find("format")))
    r.d.error(node.loc, "'node_state' needs 'command' and 'format'");
}

// What each column of a `columns` job list can be ("-": a column ezpz does not read).
const std::vector<std::string> k_job_list_columns = {"job_id", "user", "account", "queue", "state", "-"};

void read_job_list(JobListQuery& query, const YamlNode& node, Reader& r) {
  read_section(node, "job_list",
               {
                   {"command", [&](const YamlNode& n) { r.list(query.command, n, "job_list.command"); }},
                   {"format",
                    [&](const YamlNode& n) {
                      r.choice(query.format, n, "job_list.format", output_format_names(OutputKind::job_list));
                    }},
                   {"columns",
                    [&](const YamlNode& n) {
                      r.list(query.columns, n, "job_list.columns");
                      for (const auto& column : query.columns) {
                        if (std::find(k_job_list_columns.begin(), k_job_list_columns.end(), column) ==
                            k_job_list_columns.end()) {
                          r.d.error(n.loc, "'job_list.columns' holds '" + printable(column) + "'; expected one of " +
                                               quoted_list(k_job_list_columns));
                        }
                      }
                    }},
               },
               r.d);
  if (!node.is_map()) return;
  if (!node.find("command") || !node.find("format")) r.d.error(node.loc, "'job_list' needs 'command' and 'format'");
  if (query.format == "columns" && query.columns.empty())
    r.d.error(node.loc, "'job_list.format: columns' needs 'job_list.columns'");
}

void read_walltime_steps(Queue& queue, const YamlNode& node, Reader& r) {
  std::string what = "queues." + queue.name + ".walltime_by_nodes";
  if (!node.is_sequence()) {
    r.d.error(node.loc, "'" + what + "' expects a list of {max_nodes, max_walltime}, found " + node.describe());
    return;
  }
  for (const auto& item : node.items) {
    WalltimeStep step{0, 0};
    read_section(
        item, what,
        {
            {"max_nodes", [&](const YamlNode& n) { r.number(step.max_nodes, n, what + ".max_nodes", 1); }},
            {"max_walltime", [&](const YamlNode& n) { r.walltime(step.max_walltime, n, what + ".max_walltime"); }},
        },
        r.d);
    if (step.max_nodes > 0 && step.max_walltime > 0) queue.walltime_by_nodes.push_back(step);
  }
}

void read_caps(Queue& queue, const YamlNode& node, Reader& r) {
  std::string what = "queues." + queue.name + ".caps";
  if (!expect_map(node, what, r.d)) return;
  std::vector<std::string> kinds;
  for (const auto& kind : queue_cap_kinds()) kinds.emplace_back(kind.name);
  for (const auto& entry : node.entries) {
    if (entry.value.is_null()) continue;
    if (std::find(kinds.begin(), kinds.end(), entry.key) == kinds.end()) {
      r.d.error(entry.key_loc, "unknown cap '" + entry.key + "' in '" + what + "'", suggestion_hint(entry.key, kinds));
      continue;
    }
    QueueCap cap{entry.key, 0};
    r.number(cap.value, entry.value, what + "." + entry.key, 1);
    if (cap.value > 0) queue.caps.push_back(cap);
  }
}

void read_queues(std::vector<Queue>& queues, const YamlNode& node, Reader& r) {
  if (!expect_map(node, "queues", r.d)) return;
  for (const auto& entry : node.entries) {
    if (entry.value.is_null()) continue;
    Queue queue;
    queue.name = entry.key;
    queue.loc = entry.key_loc;
    std::string what = "queues." + entry.key;
    long max_nodes = 0;
    long max_walltime = 0;
    long min_walltime = 0;
    read_section(entry.value, what,
                 {
                     {"description", [&](const YamlNode& n) { r.text(queue.description, n, what + ".description"); }},
                     {"min_nodes", [&](const YamlNode& n) { r.number(queue.min_nodes, n, what + ".min_nodes", 1); }},
                     {"max_nodes", [&](const YamlNode& n) { r.number(max_nodes, n, what + ".max_nodes", 1); }},
                     {"max_walltime", [&](const YamlNode& n) { r.walltime(max_walltime, n, what + ".max_walltime"); }},
                     {"min_walltime", [&](const YamlNode& n) { r.walltime(min_walltime, n, what + ".min_walltime"); }},
                     {"by_request", [&](const YamlNode& n) { r.flag(queue.by_request, n, what + ".by_request"); }},
                     {"ranks_per_node",
                      [&](const YamlNode& n) { r.int_list(queue.ranks_per_node, n, what + ".ranks_per_node"); }},
                     {"caps", [&](const YamlNode& n) { read_caps(queue, n, r); }},
                     {"routes_to", [&](const YamlNode& n) { r.list(queue.routes_to, n, what + ".routes_to"); }},
                     {"walltime_by_nodes", [&](const YamlNode& n) { read_walltime_steps(queue, n, r); }},
                     {"directives", [&](const YamlNode& n) { r.templates(queue.directives, n, what + ".directives"); }},
                 },
                 r.d);
    if (max_nodes > 0) queue.max_nodes = max_nodes;
    if (max_walltime > 0) queue.max_walltime = max_walltime;
    if (min_walltime > 0) queue.min_walltime = min_walltime;
    queues.push_back(std::move(queue));
  }
}

void read_installed(InstalledRules& installed, const YamlNode& node, Reader& r) {
  bool is_map = read_section(
      node, "detect.installed",
      {
          {"commands",
           [&](const YamlNode& n) {
             r.list(installed.commands, n, "detect.installed.commands");
             for (const auto& item : n.items) {
               if (item.is_scalar() && (item.scalar.empty() || item.scalar.find('/') != std::string::npos)) {
                 r.d.error(
                     item.loc,
                     "'detect.installed.commands' holds '" + printable(item.scalar) + "', which is not a program name",
                     "name the program as PATH finds it: 'sbatch', not '/usr/bin/sbatch'");
               }
             }
           }},
          {"config_env",
           [&](const YamlNode& n) {
             r.text(installed.config_env, n, "detect.installed.config_env");
             if (n.is_scalar() && !valid_env_name(n.scalar)) {
               r.d.error(n.loc, "'detect.installed.config_env' is '" + printable(n.scalar) + "', not a variable name",
                         "names are letters, digits and '_', not starting with a digit");
             }
           }},
          {"config",
           [&](const YamlNode& n) {
             r.list(installed.config, n, "detect.installed.config");
             for (const auto& item : n.items) {
               if (item.is_scalar() && (item.scalar.empty() || item.scalar.front() != '/')) {
                 r.d.error(item.loc, "'detect.installed.config' holds '" + printable(item.scalar) +
                                         "', which is not an absolute path");
               }
             }
           }},
      },
      r.d);
  // Commands alone are found on machines that only have a client installed, or another scheduler's
  // look-alike (Grid Engine and Torque have qsub and qstat too): the configuration is the evidence.
  if (is_map && (installed.commands.empty() || (installed.config_env.empty() && installed.config.empty()))) {
    r.d.error(node.loc, "'detect.installed' needs 'commands' and at least one of 'config' and 'config_env'");
  }
}

void read_detect(DetectRules& detect, const YamlNode& node, Reader& r) {
  read_section(node, "detect",
               {
                   {"env",
                    [&](const YamlNode& n) {
                      if (!expect_map(n, "detect.env", r.d)) return;
                      for (const auto& entry : n.entries) {
                        if (entry.value.is_null()) continue;
                        std::string pattern;
                        r.regex(entry.value, "detect.env." + entry.key, pattern);
                        detect.env.emplace_back(entry.key, pattern);
                      }
                    }},
                   {"hostname",
                    [&](const YamlNode& n) {
                      if (!n.is_sequence()) {
                        r.d.error(n.loc,
                                  "'detect.hostname' expects a list of regular expressions, found " + n.describe());
                        return;
                      }
                      for (const auto& item : n.items) {
                        std::string pattern;
                        r.regex(item, "detect.hostname", pattern);
                        detect.hostname.push_back(pattern);
                      }
                    }},
                   {"installed", [&](const YamlNode& n) { read_installed(detect.installed, n, r); }},
                   {"fallback", [&](const YamlNode& n) { r.number(detect.fallback, n, "detect.fallback", 0, 9); }},
               },
               r.d);
}

void read_backend_env(BackendEnv& env, const YamlNode& node, Reader& r) {
  read_section(
      node, "backend_env",
      {
          {"always", [&](const YamlNode& n) { r.variables(env.always, n, "backend_env.always", true); }},
          {"single_node", [&](const YamlNode& n) { r.variables(env.single_node, n, "backend_env.single_node", true); }},
          {"multi_node", [&](const YamlNode& n) { r.variables(env.multi_node, n, "backend_env.multi_node", true); }},
          {"by_ranks_per_node",
           [&](const YamlNode& n) {
             if (!expect_map(n, "backend_env.by_ranks_per_node", r.d)) return;
             for (const auto& entry : n.entries) {
               YamlNode key = make_scalar(entry.key, entry.key_loc);
               auto ranks = read_int(key, "backend_env.by_ranks_per_node key (ranks per node)", 1, 4096, r.d);
               std::vector<std::pair<std::string, std::string>> vars;
               r.variables(vars, entry.value, "backend_env.by_ranks_per_node." + entry.key, true);
               if (ranks) env.by_ranks_per_node[*ranks] = vars;
             }
           }},
      },
      r.d);
}

// A getopt string ("ab:c::"): each letter, then ':' for a value, '::' for an optional one.
void read_getopt_string(std::map<char, OptionTable::Value>& target, const YamlNode& node, Reader& r) {
  std::string text;
  r.text(text, node, "options.short");
  for (size_t i = 0; i < text.size(); ++i) {
    if (!std::isalnum(static_cast<unsigned char>(text[i]))) {
      r.d.error(node.loc,
                "'options.short' is a getopt string: letters, each followed by ':' or '::' if it takes a value");
      return;
    }
    size_t colons = 0;
    while (colons < 2 && i + 1 + colons < text.size() && text[i + 1 + colons] == ':') ++colons;
    target[text[i]] = colons == 0   ? OptionTable::Value::none
                      : colons == 1 ? OptionTable::Value::required
                                    : OptionTable::Value::optional;
    i += colons;
  }
}

void read_long_options(std::map<std::string, OptionTable::Value>& target, const YamlNode& node, Reader& r) {
  auto kind = [&](OptionTable::Value value, const char* what) {
    return [&target, &r, value, what](const YamlNode& n) {
      std::vector<std::string> names;
      r.list(names, n, what);
      for (const auto& name : names) target[name] = value;
    };
  };
  read_section(node, "options.long",
               {
                   {"value", kind(OptionTable::Value::required, "options.long.value")},
                   {"optional", kind(OptionTable::Value::optional, "options.long.optional")},
                   {"flag", kind(OptionTable::Value::none, "options.long.flag")},
               },
               r.d);
}

void read_options(OptionTable& table, const YamlNode& node, Reader& r) {
  read_section(
      node, "options",
      {
          {"short", [&](const YamlNode& n) { read_getopt_string(table.short_options, n, r); }},
          {"long", [&](const YamlNode& n) { read_long_options(table.long_options, n, r); }},
          {"long_prefixes", [&](const YamlNode& n) { r.flag(table.long_prefixes, n, "options.long_prefixes"); }},
          {"lists", [&](const YamlNode& n) { r.list(table.lists, n, "options.lists"); }},
          {"list_names_ignore_case",
           [&](const YamlNode& n) { r.flag(table.list_names_ignore_case, n, "options.list_names_ignore_case"); }},
          {"same_as",
           [&](const YamlNode& n) {
             std::vector<std::pair<std::string, std::string>> spellings;
             r.variables(spellings, n, "options.same_as");
             table.same_as.insert(spellings.begin(), spellings.end());
           }},
      },
      r.d);
}

void check_required_keys(const YamlNode& root, const std::vector<std::string>& keys, Diagnostics& d) {
  for (const auto& key : keys) {
    const YamlNode* value = root.find(key);
    if (value == nullptr || value->is_null())
      d.error(SourceLoc{root.loc.file, 0, 0, 1}, "missing required key '" + key + "'");
  }
}

}  // namespace

SystemProfile read_system_profile(const YamlNode& root, const std::string& name, Diagnostics& d) {
  SystemProfile p;
  p.name = name;
  Reader r{d};
  std::vector<std::string> spec_keys;
  for (const auto& [key, doc] : job_spec_keys()) spec_keys.push_back(key);
  bool is_map = read_section(
      root, "profile",
      {
          {"description", [&](const YamlNode& n) { r.text(p.description, n, "description"); }},
          {"extends", [&](const YamlNode& n) { r.text(p.extends, n, "extends"); }},
          {"scheduler", [&](const YamlNode& n) { r.text(p.scheduler, n, "scheduler"); }},
          {"audited", [&](const YamlNode& n) { r.text(p.audited, n, "audited"); }},
          {"sources", [&](const YamlNode& n) { r.list(p.sources, n, "sources"); }},
          {"unverified", [&](const YamlNode& n) { r.list(p.unverified, n, "unverified"); }},
          {"notes", [&](const YamlNode& n) { r.list(p.notes, n, "notes"); }},
          {"detect", [&](const YamlNode& n) { read_detect(p.detect, n, r); }},
          {"node", [&](const YamlNode& n) { read_node_shape(p.node, n, r); }},
          {"launcher", [&](const YamlNode& n) { read_launcher(p.launcher, n, r); }},
          {"queues", [&](const YamlNode& n) { read_queues(p.queues, n, r); }},
          {"required",
           [&](const YamlNode& n) {
             r.list(p.required, n, "required");
             for (const auto& item : n.items) {
               if (item.is_scalar() && std::find(spec_keys.begin(), spec_keys.end(), item.scalar) == spec_keys.end()) {
                 d.error(item.loc, "'required' lists '" + item.scalar + "', which is not a job spec key",
                         suggestion_hint(item.scalar, spec_keys));
               }
             }
           }},
          {"filesystems", [&](const YamlNode& n) { r.list(p.filesystems, n, "filesystems"); }},
          {"defaults", [&](const YamlNode& n) { p.defaults = read_job_spec(n, OriginKind::profile, d); }},
          {"module_use", [&](const YamlNode& n) { r.list(p.module_use, n, "module_use"); }},
          {"directives", [&](const YamlNode& n) { r.templates(p.directives, n, "directives"); }},
          {"shell", [&](const YamlNode& n) { r.text(p.shell, n, "shell"); }},
          {"backend_env", [&](const YamlNode& n) { read_backend_env(p.backend_env, n, r); }},
          {"master_addr", [&](const YamlNode& n) { r.text(p.master_addr, n, "master_addr"); }},
          {"failover", [&](const YamlNode& n) { read_failover(p.failover, n, r); }},
          {"master_port",
           [&](const YamlNode& n) {
             long port = 0;
             r.number(port, n, "master_port", 1);
             if (port > 0) p.master_port = port;
           }},
      },
      d);
  if (is_map) check_required_keys(root, {"scheduler", "node", "launcher"}, d);
  if (root.loc.file) p.path = root.loc.file->name;
  return p;
}

namespace {

// What each column of a `columns` status answer can be ("-": a column ezpz does not read).
const std::vector<std::string> k_status_columns = {"state", "exit_code", "reason", "-"};

// job_env: key → a variable name or a list of them (the first one set wins).
void read_job_env(std::map<std::string, std::vector<std::string>>& target, const YamlNode& node, Reader& r) {
  if (!expect_map(node, "job_env", r.d)) return;
  for (const auto& entry : node.entries) {
    std::string what = "job_env." + entry.key;
    const auto& keys = job_env_keys();
    if (std::find(keys.begin(), keys.end(), entry.key) == keys.end()) {
      r.d.error(entry.key_loc,
                "unknown key '" + printable(entry.key) + "' in 'job_env'; expected one of " + quoted_list(keys),
                suggestion_hint(entry.key, keys));
      continue;
    }
    std::vector<std::string> names;
    std::vector<const YamlNode*> nodes;
    if (entry.value.is_sequence()) {
      for (const auto& item : entry.value.items) nodes.push_back(&item);
    } else {
      nodes.push_back(&entry.value);
    }
    for (const YamlNode* item : nodes) {
      auto name = read_string(*item, what, r.d);
      if (name && !valid_env_name(*name)) {
        r.d.error(item->loc, "'" + what + "' holds '" + printable(*name) + "', which is not a variable name");
      } else if (name) {
        names.push_back(*name);
      }
    }
    target[entry.key] = names;
  }
}

}  // namespace

Scheduler read_scheduler(const YamlNode& root, const std::string& name, Diagnostics& d) {
  Scheduler s;
  s.name = name;
  s.template_name = name;
  s.source = root.loc.file;
  Reader r{d};
  read_section(
      root, "scheduler",
      {
          {"description", [&](const YamlNode& n) { r.text(s.description, n, "description"); }},
          {"template", [&](const YamlNode& n) { r.text(s.template_name, n, "template"); }},
          {"directive_prefix", [&](const YamlNode& n) { r.text(s.directive_prefix, n, "directive_prefix"); }},
          {"directives", [&](const YamlNode& n) { r.templates(s.directives, n, "directives"); }},
          {"mail_events",
           [&](const YamlNode& n) {
             std::vector<std::pair<std::string, std::string>> events;
             r.variables(events, n, "mail_events");
             s.mail_events.insert(events.begin(), events.end());
           }},
          {"mail_events_separator",
           [&](const YamlNode& n) { r.text(s.mail_events_separator, n, "mail_events_separator"); }},
          {"workdir_variable", [&](const YamlNode& n) { r.text(s.workdir_variable, n, "workdir_variable"); }},
          {"job_env", [&](const YamlNode& n) { read_job_env(s.job_env, n, r); }},
          {"submit", [&](const YamlNode& n) { r.list(s.submit, n, "submit"); }},
          {"submit_hold", [&](const YamlNode& n) { r.list(s.submit_hold, n, "submit_hold"); }},
          {"status_format",
           [&](const YamlNode& n) {
             r.choice(s.status_format, n, "status_format", output_format_names(OutputKind::job_status));
           }},
          {"status_fallback", [&](const YamlNode& n) { r.list(s.status_fallback, n, "status_fallback"); }},
          {"status_fallback_format",
           [&](const YamlNode& n) {
             r.choice(s.status_fallback_format, n, "status_fallback_format",
                      output_format_names(OutputKind::job_status));
           }},
          {"states",
           [&](const YamlNode& n) {
             std::vector<std::pair<std::string, std::string>> states;
             r.variables(states, n, "states");
             for (const auto& entry : n.entries) {
               std::string state;
               r.choice(state, entry.value, "states." + entry.key, job_state_names());
               if (auto known = parse_job_state(state)) s.states[entry.key] = *known;
             }
           }},
          {"status_columns",
           [&](const YamlNode& n) {
             r.list(s.status_columns, n, "status_columns");
             for (const auto& column : s.status_columns) {
               if (std::find(k_status_columns.begin(), k_status_columns.end(), column) == k_status_columns.end()) {
                 d.error(n.loc, "'status_columns' holds '" + printable(column) + "'; expected one of " +
                                    quoted_list(k_status_columns));
               }
             }
           }},
          {"unknown_job", [&](const YamlNode& n) { r.list(s.unknown_job, n, "unknown_job"); }},
          {"never_starts", [&](const YamlNode& n) { r.list(s.never_starts, n, "never_starts"); }},
          {"held_reasons", [&](const YamlNode& n) { r.list(s.held_reasons, n, "held_reasons"); }},
          {"default_output", [&](const YamlNode& n) { r.text(s.default_output, n, "default_output"); }},
          {"default_error", [&](const YamlNode& n) { r.text(s.default_error, n, "default_error"); }},
          {"output_note", [&](const YamlNode& n) { r.text(s.output_note, n, "output_note"); }},
          {"job_id_pattern", [&](const YamlNode& n) { r.regex(n, "job_id_pattern", s.job_id_pattern); }},
          {"status", [&](const YamlNode& n) { r.list(s.status, n, "status"); }},
          {"cancel", [&](const YamlNode& n) { r.list(s.cancel, n, "cancel"); }},
          {"ping", [&](const YamlNode& n) { r.list(s.ping, n, "ping"); }},
          {"joins",
           [&](const YamlNode& n) {
             r.variables(s.joins, n, "joins");
             for (const auto& [directive, file] : s.joins) {
               if (file != "output" && file != "error") {
                 d.error(n.loc, "'joins." + directive + "' must be output or error, found '" + file + "'");
               }
             }
           }},
          {"node_state", [&](const YamlNode& n) { read_node_state(s.node_state, n, r); }},
          {"job_list", [&](const YamlNode& n) { read_job_list(s.job_list, n, r); }},
          {"options", [&](const YamlNode& n) { read_options(s.options, n, r); }},
          {"value_rules",
           [&](const YamlNode& n) {
             if (!expect_map(n, "value_rules", d)) return;
             for (const auto& entry : n.entries) {
               read_section(entry.value, "value_rules." + entry.key,
                            {
                                {"max_length",
                                 [&](const YamlNode& v) {
                                   long length = 0;
                                   r.number(length, v, "value_rules." + entry.key + ".max_length", 1);
                                   if (length > 0) s.max_length[entry.key] = length;
                                 }},
                            },
                            d);
             }
           }},
      },
      d);
  // Each command needs the format its answer is read in.
  for (const auto& [command, format, what] :
       {std::tuple{&s.status, &s.status_format, "status"},
        std::tuple{&s.status_fallback, &s.status_fallback_format, "status_fallback"}}) {
    if (!command->empty() && format->empty())
      d.error(root.find(what)->loc, std::string("'") + what + "' needs '" + what + "_format'");
  }
  if (s.status_format == "columns" && s.status_columns.empty())
    d.error(root.find("status_format")->loc, "'status_format: columns' needs 'status_columns'");
  // scheduler_args are checked by reading them with this table; without it nothing would be.
  if (!s.directive_prefix.empty() && s.options.empty())
    d.error(SourceLoc{root.loc.file, 0, 0, 1}, "missing 'options': the table that reads directive lines");
  return s;
}

}  // namespace ezpz::core
