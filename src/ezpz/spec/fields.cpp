// The field table of the job spec: every key once, with its type, description and override rules.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>

#include "ezpz/spec/job_spec.hpp"
#include "ezpz/util/cpu_list.hpp"
#include "ezpz/util/devices.hpp"
#include "ezpz/util/limits.hpp"
#include "ezpz/util/regex.hpp"
#include "ezpz/util/signals.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz::core {
namespace {

using json = nlohmann::json;

// JSON Schema fragments are built only for `ezpz schema`: building them on every run would cost more
// than reading a spec.
using SchemaFn = std::function<json()>;

template <class T>
struct ValueType {
  SchemaFn schema;
  std::function<std::optional<T>(const Node&, const std::string& path, Diagnostics&)> read;
  bool duration = false;  // seconds, shown as HH:MM:SS
};

struct FieldDef {
  std::string path;  // "torch.backend"
  std::string doc;
  SchemaFn schema;
  bool from_env = false;  // EZPZ_<PATH> overrides it
  bool duration = false;  // seconds, shown as HH:MM:SS
  std::function<void(JobSpec&, const Node&, Origin, Diagnostics&)> read;
  std::function<void(JobSpec&, const JobSpec&)> merge;
  std::function<std::optional<SpecValue>(const JobSpec&)> get;
};

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
  def.read = [access, read = type.read, path](JobSpec& spec, const Node& node, Origin origin,
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

ValueType<std::string> text_type() {
  return {[=] {
            return json{{"type", json::array({"string", "number"})}};
          },
          [](const Node& node, const std::string& path, Diagnostics& d) { return read_string(node, path, d); }};
}

// An ECMAScript regular expression, compiled here so that a bad one is reported where it is written.
ValueType<std::string> regex_type() {
  return {[=] {
            return json{{"type", "string"}, {"format", "regex"}};
          },
          [](const Node& node, const std::string& path, Diagnostics& d) -> std::optional<std::string> {
            auto value = read_string(node, path, d);
            if (!value) return value;
            std::string problem = regex_problem(*value);
            if (problem.empty()) return value;
            d.error(node.loc, "'" + path + "' is not a regular expression: " + problem,
                    "an ECMAScript regular expression, e.g. 'step [0-9]+'");
            return std::nullopt;
          }};
}

ValueType<std::string> cpu_bind_type() {
  return {[=] {
            return json{{"type", "string"}};
          },
          [](const Node& node, const std::string& path, Diagnostics& d) -> std::optional<std::string> {
            auto value = read_string(node, path, d);
            auto list = value ? strip_prefix(*value, "list:") : std::nullopt;
            if (!list) return value;
            std::string problem = parse_cpu_list(*list).problem;
            if (problem.empty()) return value;
            d.error(node.loc, "'" + path + "': " + problem,
                    "a cpu list is list:<cpus of rank 0>:<cpus of rank 1>…, e.g. list:1-8:9-16");
            return std::nullopt;
          }};
}

ValueType<long> count_type() {
  return {[=] {
            return json{{"type", "integer"}, {"minimum", 1}, {"maximum", k_max_count}};
          },
          [](const Node& node, const std::string& path, Diagnostics& d) {
            return read_int(node, path, 1, k_max_count, d);
          }};
}

ValueType<long> auto_count_type() {
  return {[=] {
            return json{{"anyOf", json::array({json{{"type", "integer"}, {"minimum", 1}, {"maximum", k_max_count}},
                                               json{{"const", "auto"}}})}};
          },
          [](const Node& node, const std::string& path, Diagnostics& d) -> std::optional<long> {
            if (node.is_scalar() && node.scalar == "auto") return k_auto;
            Diagnostics local;
            auto value = read_int(node, path, 1, k_max_count, local);
            if (!value)
              d.error(node.loc, "'" + path + "' expects 'auto' or an integer from 1 to " + std::to_string(k_max_count) +
                                    ", found " + node.describe());
            return value;
          }};
}

ValueType<bool> bool_type() {
  return {[=] {
            return json{{"type", "boolean"}};
          },
          [](const Node& node, const std::string& path, Diagnostics& d) { return read_bool(node, path, d); }};
}

ValueType<long> number_type(long min, long max) {
  return {[=] {
            return json{{"type", "integer"}, {"minimum", min}, {"maximum", max}};
          },
          [=](const Node& node, const std::string& path, Diagnostics& d) { return read_int(node, path, min, max, d); }};
}

// A duration as seconds, at least `min_seconds`: the walltime, and supervise's times.
ValueType<long> duration_type(long min_seconds) {
  ValueType<long> type{
      [=] {
        return json{{"type", "string"},
                    {"pattern", "^[0-9]+(:[0-9]+){1,2}$|^[0-9]+-[0-9]+(:[0-9]+){0,2}$|^([0-9]+[dDhHmMsS])+$"},
                    {"examples", json::array({"01:00:00", "90m", "1h30m"})}};
      },
      [=](const Node& node, const std::string& path, Diagnostics& d) -> std::optional<long> {
        if (!node.is_scalar()) {
          d.error(node.loc, "'" + path + "' expects a duration such as '01:00:00' or '90m', found " + node.describe());
          return std::nullopt;
        }
        std::string why;
        if (min_seconds == 0 && is_zero_duration(node.scalar)) return 0L;
        auto seconds = parse_walltime(node.scalar, &why);
        if (!seconds) {
          d.error(node.loc, "invalid " + path + " '" + node.scalar + "': " + why);
        } else if (*seconds < min_seconds) {
          d.error(node.loc,
                  "'" + path + "' must be at least " + std::to_string(min_seconds) + " s, found '" + node.scalar + "'");
          return std::nullopt;
        }
        return seconds;
      }};
  type.duration = true;
  return type;
}

ValueType<std::vector<std::string>> list_type() {
  return {[=] {
            return json{{"anyOf", json::array({json{{"type", "array"}, {"items", {{"type", "string"}}}},
                                               json{{"type", "string"}}})}};
          },
          [](const Node& node, const std::string& path, Diagnostics& d) {
            return read_string_list(node, path, d, /*allow_scalar=*/true);
          }};
}

ValueType<std::vector<std::string>> command_type() {
  return {[=] {
            return json{{"anyOf", json::array({json{{"type", "array"}, {"items", {{"type", "string"}}}},
                                               json{{"type", "string"}}})}};
          },
          [](const Node& node, const std::string& path, Diagnostics& d) -> std::optional<std::vector<std::string>> {
            if (!node.is_scalar()) return read_string_list(node, path, d);
            std::string why;
            auto words = split_command_words(node.scalar, &why);
            if (!words) d.error(node.loc, "cannot split '" + path + "' into words: " + why);
            return words;
          }};
}

bool check_choice(const Node& node, const std::string& path, const std::vector<std::string>& choices, Diagnostics& d) {
  if (node.is_scalar() && std::find(choices.begin(), choices.end(), node.scalar) != choices.end()) return true;
  d.error(node.loc, "'" + path + "' expects one of " + quoted_list(choices) + ", found " + node.describe(),
          node.is_scalar() ? suggestion_hint(node.scalar, choices) : std::string());
  return false;
}

std::vector<std::string> with_auto(std::vector<std::string> choices) {
  choices.insert(choices.begin(), "auto");
  return choices;
}

ValueType<std::string> choice_type(std::vector<std::string> choices) {
  return {[=] {
            return json{{"enum", choices}};
          },
          [choices](const Node& node, const std::string& path, Diagnostics& d) -> std::optional<std::string> {
            if (!check_choice(node, path, choices, d)) return std::nullopt;
            return node.scalar;
          }};
}

ValueType<std::vector<std::string>> choice_list_type(std::vector<std::string> choices) {
  return {
      [=] {
        return json{
            {"anyOf", json::array({json{{"enum", choices}}, json{{"type", "array"}, {"items", {{"enum", choices}}}}})}};
      },
      [choices](const Node& node, const std::string& path, Diagnostics& d) -> std::optional<std::vector<std::string>> {
        if (node.is_scalar()) {
          if (!check_choice(node, path, choices, d)) return std::nullopt;
          return std::vector<std::string>{node.scalar};
        }
        auto values = read_string_list(node, path, d);
        if (!values) return std::nullopt;
        bool ok = true;
        for (const auto& item : node.items) ok = check_choice(item, path, choices, d) && ok;
        if (!ok) return std::nullopt;
        return values;
      }};
}

ValueType<std::vector<StageEntry>> stage_type() {
  static const std::vector<std::string> k_keys = {"src", "dest", "unpack", "venv"};
  SchemaFn schema = [] {
    json entry_schema = {
        {"type", "object"},
        {"additionalProperties", false},
        {"required", json::array({"src", "dest"})},
        {"properties",
         {{"src", {{"type", "string"}, {"description", "file, directory or tarball to copy"}}},
          {"dest", {{"type", "string"}, {"description", "absolute path on node-local storage"}}},
          {"unpack", {{"type", "boolean"}, {"description", "unpack a .tar/.tar.gz/.tar.zst on arrival"}}},
          {"venv", {{"type", "boolean"}, {"description", "relocate a Python virtual environment"}}}}}};
    return json{{"type", "array"}, {"items", entry_schema}};
  };
  return {
      schema, [](const Node& node, const std::string& path, Diagnostics& d) -> std::optional<std::vector<StageEntry>> {
        if (!node.is_sequence()) {
          d.error(node.loc, "'" + path + "' expects a list of {src, dest} maps, found " + node.describe());
          return std::nullopt;
        }
        std::vector<StageEntry> entries;
        for (const auto& item : node.items) {
          if (!expect_map(item, path, d)) continue;
          check_keys(item, k_keys, d, path);
          StageEntry entry;
          entry.loc = item.loc;
          bool ok = true;
          for (const char* required : {"src", "dest"}) {
            const Node* value = item.find(required);
            auto text = value ? read_string(*value, path + "." + required, d) : std::nullopt;
            if (!value) d.error(item.loc, "missing '" + std::string(required) + "' in a '" + path + "' entry");
            if (!text || text->empty()) {
              if (text) d.error(value->loc, "'" + path + "." + required + "' must not be empty");
              ok = false;
              continue;
            }
            if (std::any_of(text->begin(), text->end(),
                            [](char c) { return std::iscntrl(static_cast<unsigned char>(c)); })) {
              d.error(value->loc,
                      "'" + path + "." + required + "' contains a control character: '" + printable(*text) + "'");
              ok = false;
              continue;
            }
            (std::string(required) == "src" ? entry.src : entry.dest) = *text;
            if (std::string(required) == "dest") entry.dest_loc = value->loc;
          }
          if (const Node* value = item.find("unpack"))
            entry.unpack = read_bool(*value, path + ".unpack", d).value_or(false);
          if (const Node* value = item.find("venv")) entry.venv = read_bool(*value, path + ".venv", d).value_or(false);
          if (ok && entry.dest.front() != '/') {
            d.error(item.find("dest")->loc, "'" + path + ".dest' must be an absolute path, found '" + entry.dest + "'");
          }
          entries.push_back(std::move(entry));
        }
        return entries;
      }};
}

void read_env_entry(JobSpec& spec, const std::string& name, const SourceLoc& key_loc, const Node& value, Origin origin,
                    Diagnostics& d) {
  if (!valid_env_name(name)) {
    d.error(key_loc, "invalid environment variable name '" + name + "'",
            "names are letters, digits and '_', not starting with a digit");
    return;
  }
  if (starts_with(name, "EZPZ_")) {
    d.error(key_loc, "'env." + name + "' would change the ezpz hand-off to the runtime",
            "ezpz sets EZPZ_* itself: use the spec key (system, torch.backend, torch.device, cpu_bind …) or "
            "export the variable in 'setup'; see docs/runtime-env.md");
    return;
  }
  if (!value.is_scalar()) {
    d.error(value.loc, "'env." + name + "' expects a string, found " + value.describe());
    return;
  }
  origin.loc = value.loc;
  spec.env[name] = Sourced<std::string>{value.scalar, std::move(origin)};
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
  def.read = [](JobSpec& spec, const Node& node, Origin origin, Diagnostics& d) {
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
            "supervise.signal", [](auto& s) -> auto& { return s.supervise.signal; }, choice_type(signal_names()),
            "the signal sent before the walltime ends; default USR2", !env),
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

// The key names directly under `prefix` ("" for the top level, "torch." for the torch group).
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

void read_map(JobSpec& spec, const Node& map, const std::string& prefix, const Origin& origin, Diagnostics& d) {
  for (const auto& entry : map.entries) {
    std::string path = prefix + entry.key;
    if (const FieldDef* def = find_field(path)) {
      def->read(spec, entry.value, origin, d);
    } else if (is_group(path)) {
      if (expect_map(entry.value, path, d)) read_map(spec, entry.value, path + ".", origin, d);
    } else {
      std::string context = prefix.empty() ? std::string() : " in '" + prefix.substr(0, prefix.size() - 1) + "'";
      d.error(entry.key_loc, "unknown key '" + entry.key + "'" + context,
              suggestion_hint(entry.key, keys_under(prefix)));
    }
  }
}

json schema_for(const std::string& prefix) {
  json properties = json::object();
  for (const auto& key : keys_under(prefix)) {
    std::string path = prefix + key;
    if (const FieldDef* def = find_field(path)) {
      properties[key] = def->schema();
    } else {
      properties[key] = {{"type", "object"}, {"additionalProperties", false}, {"properties", schema_for(path + ".")}};
    }
  }
  return properties;
}

}  // namespace

JobSpec read_job_spec(const Node& root, OriginKind kind, Diagnostics& diagnostics) {
  JobSpec spec;
  spec.loc = SourceLoc{root.loc.file, 0, 0, 1};
  if (root.is_null()) return spec;
  if (!root.is_map()) {
    diagnostics.error(root.loc, "a job spec is a map of keys such as 'nodes:' and 'run:', found " + root.describe());
    spec.rejected.push_back("*");
    return spec;
  }
  read_map(spec, root, "", Origin{kind, {}, {}}, diagnostics);
  return spec;
}

void apply_value(JobSpec& spec, std::string_view path_view, const SourceRef& source, size_t value_column,
                 OriginKind kind, Diagnostics& diagnostics) {
  std::string path(path_view);
  std::string_view text = std::string_view(source->text).substr(value_column);
  if (std::string problem = text_problem(source->text); !problem.empty()) {  // as in files (util/node.cpp)
    diagnostics.error(SourceLoc{source, 1, 1, static_cast<int>(std::max<size_t>(1, source->text.size()))},
                      "'" + printable(source->text) + "' " + problem);
    return;
  }
  Node value;
  if (!text.empty() && (text.front() == '[' || text.front() == '{')) {
    // Lists and maps are written in YAML flow syntax: modules=[a, b].
    try {
      value = parse_yaml(source, text, 0, static_cast<int>(value_column));
    } catch (const UserError& error) {
      diagnostics.add(error);
      return;
    }
  } else {
    // Anything else is taken literally: no YAML comments, tags or null.
    value = make_scalar(std::string(text), SourceLoc{source, 1, static_cast<int>(value_column) + 1,
                                                     static_cast<int>(std::max<size_t>(1, text.size()))});
    value.quoted = true;
  }
  if (value.is_null()) value.loc = SourceLoc{source, 1, static_cast<int>(value_column) + 1, 1};
  Origin origin{kind, {}, {}};
  SourceLoc key_loc{source, 1, 1, static_cast<int>(path.size())};
  if (const FieldDef* def = find_field(path)) {
    def->read(spec, value, origin, diagnostics);
  } else if (auto name = strip_prefix(path, "env.")) {
    read_env_entry(spec, std::string(*name), key_loc, value, origin, diagnostics);
  } else if (is_group(path)) {
    if (expect_map(value, path, diagnostics)) read_map(spec, value, path + ".", origin, diagnostics);
  } else {
    std::vector<std::string> paths;
    for (const auto& field_def : fields()) paths.push_back(field_def.path);
    diagnostics.error(key_loc, "unknown key '" + path + "'", suggestion_hint(path, paths));
  }
}

void apply_assignment(JobSpec& spec, std::string_view assignment, std::string_view source_name, OriginKind kind,
                      Diagnostics& diagnostics) {
  auto source = make_source(std::string(source_name), std::string(assignment), true);
  auto equals = assignment.find('=');
  if (equals == std::string_view::npos || equals == 0) {
    diagnostics.error(SourceLoc{source, 1, 1, static_cast<int>(assignment.size())},
                      "expected key=value, found '" + std::string(assignment) + "'", "for example: --set nodes=4");
    return;
  }
  apply_value(spec, assignment.substr(0, equals), source, equals + 1, kind, diagnostics);
}

void merge_into(JobSpec& lower, const JobSpec& higher) {
  for (const auto& def : fields()) def.merge(lower, higher);
  lower.rejected.insert(lower.rejected.end(), higher.rejected.begin(), higher.rejected.end());
}

bool JobSpec::was_rejected(const std::string& path) const {
  return std::find(rejected.begin(), rejected.end(), path) != rejected.end() ||
         std::find(rejected.begin(), rejected.end(), "*") != rejected.end();
}

std::string env_override_name(std::string_view path) {
  const FieldDef* def = find_field(path);
  if (def == nullptr || !def->from_env) return {};
  std::string name = "EZPZ_" + to_upper(path);
  std::replace(name.begin(), name.end(), '.', '_');
  return name;
}

JobSpec read_env_overrides(const EnvLookup& env, Diagnostics& diagnostics) {
  JobSpec spec;
  for (const auto& def : fields()) {
    if (!def.from_env) continue;
    std::string variable = env_override_name(def.path);
    std::optional<std::string> value = setting(env, variable);
    if (!value) continue;
    std::string text = variable + "=" + *value;
    apply_value(spec, def.path, make_source("env", text, true), variable.size() + 1, OriginKind::env, diagnostics);
  }
  return spec;
}

std::optional<SpecValue> get_value(const JobSpec& spec, std::string_view path) {
  const FieldDef* def = find_field(path);
  return def ? def->get(spec) : std::nullopt;
}

bool is_duration_key(std::string_view path) {
  const FieldDef* def = find_field(path);
  return def != nullptr && def->duration;
}

std::vector<std::pair<std::string, std::string>> job_spec_keys() {
  std::vector<std::pair<std::string, std::string>> keys;
  for (const auto& def : fields()) keys.emplace_back(def.path, def.doc);
  return keys;
}

std::string job_spec_schema() {
  json schema = {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
                 {"$id", "https://ezpz.dev/schema/job.json"},
                 {"title", "ezpz job spec"},
                 {"description", "A declarative job for 'ezpz render', 'ezpz submit' and 'ezpz validate'."},
                 {"type", "object"},
                 {"additionalProperties", false},
                 {"required", json::array({"run"})},
                 {"properties", schema_for("")}};
  return schema.dump(2) + "\n";
}

}  // namespace ezpz::core
