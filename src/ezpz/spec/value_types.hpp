// The value types of job spec keys: how each reads its YAML value (with located errors) and what JSON
// Schema it has. The field table (field_table.hpp) gives every key one of them.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ezpz/spec/job_spec.hpp"

namespace ezpz::core {

// JSON Schema fragments are built only for `ezpz schema`: building them on every run would cost more
// than reading a spec.
using SchemaFn = std::function<nlohmann::json()>;

template <class T>
struct ValueType {
  SchemaFn schema;
  std::function<std::optional<T>(const YamlNode&, const std::string& path, Diagnostics&)> read;
  bool duration = false;  // seconds, shown as HH:MM:SS
};

ValueType<std::string> text_type();
// A regular expression (RE2's syntax, util/regex.hpp), compiled when read so that a bad one is reported where it is
// written.
ValueType<std::string> regex_type();
ValueType<std::string> cpu_bind_type();  // auto, none, list:<cpus>:<cpus>… (checked), or the launcher's own
ValueType<long> count_type();            // a whole number of at least 1
ValueType<long> auto_count_type();       // count_type() or 'auto' (k_auto)
ValueType<bool> bool_type();
ValueType<long> number_type(long min, long max);
// A duration as seconds, at least `min_seconds`: the walltime, and supervise's times.
ValueType<long> duration_type(long min_seconds);
ValueType<std::vector<std::string>> list_type();
ValueType<std::vector<std::string>> command_type();  // a list (exact argv) or a string (split like a shell)
std::vector<std::string> with_auto(std::vector<std::string> choices);  // "auto" first, then `choices`
ValueType<std::string> choice_type(std::vector<std::string> choices);
ValueType<std::vector<std::string>> choice_list_type(std::vector<std::string> choices);
ValueType<std::vector<StageEntry>> stage_type();

// One entry of `env:` (or --set env.NAME=…): NAME must be a variable name and not EZPZ_*, the value a scalar.
void read_env_entry(JobSpec& spec, const std::string& name, const SourceLoc& key_loc, const YamlNode& value,
                    Origin origin, Diagnostics& d);

}  // namespace ezpz::core
