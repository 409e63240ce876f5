// The field table of the job spec: every key once, with its type, description and override rules.
#include "ezpz/spec/field_table.hpp"

#include <algorithm>

#include "ezpz/util/devices.hpp"
#include "ezpz/util/limits.hpp"
#include "ezpz/util/signals.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

using json = nlohmann::json;

json to_json(const std::string& value) {
  return value;
}
json to_json(long value) {
  return value;
}
json to_json(bool value) {
  return value;
}
json to_json(const std::vector<std::string>& value) {
  return value;
}
json to_json(const std::vector<StageEntry>& value) {
  json out = json::array();
  for (const auto& entry : value) {
    out.push_back({{"src", entry.src}, {"dest", entry.dest}, {"unpack", entry.unpack}, {"venv", entry.venv}});
  }
  return out;
}

template <class T, class Access>
FieldDef field(std::string path, Access access, ValueType<T> type, std::string doc, bool from_env) {
  FieldDef def;
  def.schema = [schema = type.schema, doc] {
    json out = schema();
    out["description"] = doc;
    return out;
  };
  def.path = path;
  def.doc = std::move(doc);
  def.from_env = from_env;
  def.duration = type.duration;
  def.read = [access, read = type.read, path](JobSpec& spec, const YamlNode& node, Origin origin,
                                              Diagnostics& diagnostics) {
    if (auto value = read(node, path, diagnostics)) {
      origin.loc = node.loc;
      access(spec) = Sourced<T>{std::move(*value), std::move(origin)};
    } else {
      spec.rejected.push_back(path);
    }
  };
  def.merge = [access](JobSpec& lower, const JobSpec& higher) {
    if (access(higher)) access(lower) = access(higher);
  };
  def.get = [access](const JobSpec& spec) -> std::optional<SpecValue> {
    const auto& value = access(spec);
    if (!value) return std::nullopt;
    return SpecValue{to_json(value->value), value->origin};
  };
  return def;
}

FieldDef env_field() {
  FieldDef def;
  def.path = "env";
  def.doc = "environment variables exported before launch; values are literal text (no shell expansion)";
  def.schema = [doc = def.doc] {
    return json{{"type", "object"},
                {"additionalProperties", {{"type", json::array({"string", "number", "boolean"})}}},
                {"propertyNames", {{"pattern", "^[A-Za-z_][A-Za-z0-9_]*$"}}},
                {"description", doc}};
  };
  def.read = [](JobSpec& spec, const YamlNode& node, Origin origin, Diagnostics& d) {
    if (!expect_map(node, "env", d)) return;
    for (const auto& entry : node.entries) read_env_entry(spec, entry.key, entry.key_loc, entry.value, origin, d);
  };
  def.merge = [](JobSpec& lower, const JobSpec& higher) {
    for (const auto& [name, value] : higher.env) lower.env[name] = value;
  };
  def.get = [](const JobSpec& spec) -> std::optional<SpecValue> {
    if (spec.env.empty()) return std::nullopt;
    json values = json::object();
    for (const auto& [name, value] : spec.env) values[name] = value.value;
    return SpecValue{values, spec.env.begin()->second.origin};
  };
  return def;
}

}  // namespace

const std::vector<FieldDef>& fields() {
  static const std::vector<FieldDef> k_fields = [] {
    const bool env = true;
    return std::vector<FieldDef>{
        field(
            "name", [](auto& s) -> auto& { return s.name; }, text_type(),
            "job name (PBS -N, Slurm --job-name); default: the spec file's name", env),
        field(
            "system", [](auto& s) -> auto& { return s.system; }, text_type(),
            "system profile to use (see 'ezpz systems list'); default: detected", env),
        field(
            "account", [](auto& s) -> auto& { return s.account; }, text_type(),
            "project or account charged for the job (PBS -A, Slurm --account)", env),
        field(
            "queue", [](auto& s) -> auto& { return s.queue; }, text_type(),
            "queue as the system profile names it (a PBS queue, a Slurm partition or QOS); default from the profile",
            env),
        field(
            "nodes", [](auto& s) -> auto& { return s.nodes; }, count_type(), "number of nodes; default 1", env),
        field(
            "walltime", [](auto& s) -> auto& { return s.walltime; }, duration_type(1),
            "time limit: HH:MM:SS, MM:SS, or units such as 90m and 1h30m; normalised to HH:MM:SS", env),
        field(
            "filesystems", [](auto& s) -> auto& { return s.filesystems; }, list_type(),
            "filesystems the job needs (PBS -l filesystems=); default from the profile", env),
        field(
            "ranks_per_node", [](auto& s) -> auto& { return s.ranks_per_node; }, auto_count_type(),
            "ranks started on each node; auto = devices per node", env),
        field(
            "cpus_per_rank", [](auto& s) -> auto& { return s.cpus_per_rank; }, auto_count_type(),
            "cpus bound to each rank; auto = usable cpus per node / ranks_per_node", env),
        field(
            "cpu_bind", [](auto& s) -> auto& { return s.cpu_bind; }, cpu_bind_type(),
            "CPU binding given to the launcher: auto (from the profile and node shape), none, or the launcher's own "
            "value such as list:1-8:9-16 or depth",
            env),
        env_field(),
        field(
            "modules", [](auto& s) -> auto& { return s.modules; }, list_type(),
            "environment modules to load, in order; replaces the profile's list", !env),
        field(
            "setup", [](auto& s) -> auto& { return s.setup; }, text_type(),
            "shell lines run before launch (activate a virtual environment …); replaces the profile's", !env),
        field(
            "stage", [](auto& s) -> auto& { return s.stage; }, stage_type(),
            "files copied to node-local storage on every node before launch", !env),
        field(
            "run", [](auto& s) -> auto& { return s.run; }, command_type(),
            "the program every rank runs: a list (exact argv) or a string split into words without shell expansion",
            !env),
        field(
            "torch.backend", [](auto& s) -> auto& { return s.torch.backend; }, choice_type(with_auto(backend_names())),
            "torch.distributed backend; auto = nccl for CUDA/ROCm, xccl for XPU, gloo for CPU", env),
        field(
            "torch.device", [](auto& s) -> auto& { return s.torch.device; },
            choice_type({"auto", "cuda", "xpu", "cpu"}),
            "torch device type; auto = from the profile's devices (ROCm is 'cuda' in torch)", env),
        field(
            "scheduler_args", [](auto& s) -> auto& { return s.scheduler_args; }, list_type(),
            "extra scheduler directives emitted verbatim after validation, e.g. '-l place=scatter:group=tier0'", !env),
        field(
            "workdir", [](auto& s) -> auto& { return s.workdir; }, text_type(),
            "directory the job runs in; default: the directory it was submitted from", env),
        field(
            "output", [](auto& s) -> auto& { return s.output; }, text_type(),
            "path of the job's standard output (PBS -o, Slurm --output)", env),
        field(
            "error", [](auto& s) -> auto& { return s.error; }, text_type(),
            "path of the job's standard error (PBS -e, Slurm --error)", env),
        field(
            "mail.user", [](auto& s) -> auto& { return s.mail.user; }, text_type(), "address that receives job mail",
            !env),
        field(
            "mail.events", [](auto& s) -> auto& { return s.mail.events; }, choice_list_type({"begin", "end", "fail"}),
            "when to send mail", !env),
        field(
            "after", [](auto& s) -> auto& { return s.after; }, list_type(),
            "job ids that must complete successfully before this job starts (afterok)", !env),
        field(
            "supervise.timeout", [](auto& s) -> auto& { return s.supervise.timeout; }, duration_type(1),
            "end the launch when no rank has written a byte for this long (TERM, then KILL; exit 124)", !env),
        field(
            "supervise.retries", [](auto& s) -> auto& { return s.supervise.retries; }, number_type(0, 1000),
            "run a failed launch again, up to this many more times, in the same allocation", !env),
        field(
            "supervise.retry_delay", [](auto& s) -> auto& { return s.supervise.retry_delay; }, duration_type(0),
            "wait before the first retry; each later wait doubles, up to 5 minutes; default 10s", !env),
        field(
            "supervise.signal_before", [](auto& s) -> auto& { return s.supervise.signal_before; }, duration_type(1),
            "send every rank 'supervise.signal' this long before the walltime ends, to checkpoint", !env),
        field(
            "supervise.signal", [](auto& s) -> auto& { return s.supervise.signal; },
            choice_type(signal_names(SignalUse::warning)), "the signal sent before the walltime ends; default USR2",
            !env),
        field(
            "supervise.requeue", [](auto& s) -> auto& { return s.supervise.requeue; }, number_type(1, 1000),
            "let the scheduler requeue the job after a node failure or preemption, up to this many times; output "
            "is appended across starts",
            !env),
        field(
            "supervise.label", [](auto& s) -> auto& { return s.supervise.label; }, bool_type(),
            "prefix each line of output with its rank: [rank 3] …", !env),
        field(
            "supervise.log_dir", [](auto& s) -> auto& { return s.supervise.log_dir; }, text_type(),
            "write each rank's output (stdout and stderr) to DIR/rank-N.log, appended; the console shows rank 0", !env),
        field(
            "supervise.spare_nodes", [](auto& s) -> auto& { return s.supervise.spare_nodes; },
            number_type(1, k_max_count),
            "ask for this many nodes beyond 'nodes' and keep them in reserve: a node proven bad is swapped for one",
            !env),
        field(
            "supervise.progress", [](auto& s) -> auto& { return s.supervise.progress; }, regex_type(),
            "a regular expression: an attempt whose output matches it got past start-up (default: it lived "
            "'supervise.startup')",
            !env),
        field(
            "supervise.startup", [](auto& s) -> auto& { return s.supervise.startup; }, duration_type(1),
            "how long an attempt must live to count as past start-up, without 'supervise.progress'; default 5m", !env),
        field(
            "supervise.probe_timeout", [](auto& s) -> auto& { return s.supervise.probe_timeout; }, duration_type(0),
            "time limit of the health probe of every node after a failed attempt; 0 turns it off; default 1m", !env),
    };
  }();
  return k_fields;
}

const FieldDef* find_field(std::string_view path) {
  for (const auto& def : fields()) {
    if (def.path == path) return &def;
  }
  return nullptr;
}

bool is_group(const std::string& path) {
  return std::any_of(fields().begin(), fields().end(),
                     [&](const FieldDef& def) { return starts_with(def.path, path + "."); });
}

std::vector<std::string> keys_under(const std::string& prefix) {
  std::vector<std::string> keys;
  for (const auto& def : fields()) {
    auto rest = strip_prefix(def.path, prefix);
    if (!rest) continue;
    std::string key(rest->substr(0, rest->find('.')));
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  return keys;
}

}  // namespace ezpz::core
