// Reading a job spec, --set and EZPZ_* overrides into a JobSpec, and merging layers, through the field table.
#include <algorithm>

#include "ezpz/spec/field_table.hpp"
#include "ezpz/spec/job_spec.hpp"
#include "ezpz/util/env_lookup.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

void read_map(JobSpec& spec, const YamlNode& map, const std::string& prefix, const Origin& origin, Diagnostics& d) {
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

}  // namespace

JobSpec read_job_spec(const YamlNode& root, OriginKind kind, Diagnostics& diagnostics) {
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
  if (std::string problem = text_problem(source->text); !problem.empty()) {  // as in files (util/yaml_node.cpp)
    diagnostics.error(SourceLoc{source, 1, 1, static_cast<int>(std::max<size_t>(1, source->text.size()))},
                      "'" + printable(source->text) + "' " + problem);
    return;
  }
  YamlNode value;
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

}  // namespace ezpz::core
