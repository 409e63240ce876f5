// The field table of the job spec: every key once, with its path, description, value type and
// override rules. Reading, merging, overrides (apply_fields.cpp) and the schema (spec_schema.cpp) all
// go through it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ezpz/spec/job_spec.hpp"
#include "ezpz/spec/value_types.hpp"

namespace ezpz::core {

struct FieldDef {
  std::string path;  // "torch.backend"
  std::string doc;
  SchemaFn schema;
  bool from_env = false;  // EZPZ_<PATH> overrides it
  bool duration = false;  // seconds, shown as HH:MM:SS
  std::function<void(JobSpec&, const YamlNode&, Origin, Diagnostics&)> read;
  std::function<void(JobSpec&, const JobSpec&)> merge;
  std::function<std::optional<SpecValue>(const JobSpec&)> get;
};

// Every key, in the order `ezpz resolve` and the docs list them.
const std::vector<FieldDef>& fields();
// The key at `path` ("torch.backend"), or nullptr for a group or an unknown path.
const FieldDef* find_field(std::string_view path);
// Whether `path` is a group of keys ("torch", "supervise").
bool is_group(const std::string& path);
// The key names directly under `prefix` ("" for the top level, "torch." for the torch group).
std::vector<std::string> keys_under(const std::string& prefix);

}  // namespace ezpz::core
