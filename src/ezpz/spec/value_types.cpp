// The value types of job spec keys: reading, checking and the JSON Schema of each.
#include "ezpz/spec/value_types.hpp"

#include <algorithm>

#include "ezpz/util/cpu_list.hpp"
#include "ezpz/util/limits.hpp"
#include "ezpz/util/regex.hpp"
#include "ezpz/util/signals.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz::core {
namespace {

using json = nlohmann::json;

bool check_choice(const YamlNode& node, const std::string& path, const std::vector<std::string>& choices,
                  Diagnostics& d) {
  if (node.is_scalar() && std::find(choices.begin(), choices.end(), node.scalar) != choices.end()) return true;
  d.error(node.loc, "'" + path + "' expects one of " + quoted_list(choices) + ", found " + node.describe(),
          node.is_scalar() ? suggestion_hint(node.scalar, choices) : std::string());
  return false;
}

}  // namespace

ValueType<std::string> text_type() {
  return {[=] {
            return json{{"type", json::array({"string", "number"})}};
          },
          [](const YamlNode& node, const std::string& path, Diagnostics& d) { return read_string(node, path, d); }};
}

ValueType<std::string> regex_type() {
  return {[=] {
            return json{{"type", "string"}, {"format", "regex"}};
          },
          [](const YamlNode& node, const std::string& path, Diagnostics& d) -> std::optional<std::string> {
            auto value = read_string(node, path, d);
            if (!value) return value;
            std::string problem = regex_problem(*value);
            if (problem.empty()) return value;
            d.error(node.loc, "'" + path + "' is not a regular expression: " + problem,
                    "an RE2 regular expression (no backreferences or lookaround), e.g. 'step [0-9]+'");
            return std::nullopt;
          }};
}

ValueType<std::string> cpu_bind_type() {
  return {[=] {
            return json{{"type", "string"}};
          },
          [](const YamlNode& node, const std::string& path, Diagnostics& d) -> std::optional<std::string> {
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
          [](const YamlNode& node, const std::string& path, Diagnostics& d) {
            return read_int(node, path, 1, k_max_count, d);
          }};
}

ValueType<long> auto_count_type() {
  return {[=] {
            return json{{"anyOf", json::array({json{{"type", "integer"}, {"minimum", 1}, {"maximum", k_max_count}},
                                               json{{"const", "auto"}}})}};
          },
          [](const YamlNode& node, const std::string& path, Diagnostics& d) -> std::optional<long> {
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
          [](const YamlNode& node, const std::string& path, Diagnostics& d) { return read_bool(node, path, d); }};
}

ValueType<long> number_type(long min, long max) {
  return {
      [=] {
        return json{{"type", "integer"}, {"minimum", min}, {"maximum", max}};
      },
      [=](const YamlNode& node, const std::string& path, Diagnostics& d) { return read_int(node, path, min, max, d); }};
}

ValueType<long> duration_type(long min_seconds) {
  ValueType<long> type{
      [=] {
        return json{{"type", "string"},
                    {"pattern", "^[0-9]+(:[0-9]+){1,2}$|^[0-9]+-[0-9]+(:[0-9]+){0,2}$|^([0-9]+[dDhHmMsS])+$"},
                    {"examples", json::array({"01:00:00", "90m", "1h30m"})}};
      },
      [=](const YamlNode& node, const std::string& path, Diagnostics& d) -> std::optional<long> {
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
          [](const YamlNode& node, const std::string& path, Diagnostics& d) {
            return read_string_list(node, path, d, /*allow_scalar=*/true);
          }};
}

ValueType<std::vector<std::string>> command_type() {
  return {[=] {
            return json{{"anyOf", json::array({json{{"type", "array"}, {"items", {{"type", "string"}}}},
                                               json{{"type", "string"}}})}};
          },
          [](const YamlNode& node, const std::string& path, Diagnostics& d) -> std::optional<std::vector<std::string>> {
            if (!node.is_scalar()) return read_string_list(node, path, d);
            std::string why;
            auto words = split_command_words(node.scalar, &why);
            if (!words) d.error(node.loc, "cannot split '" + path + "' into words: " + why);
            return words;
          }};
}

std::vector<std::string> with_auto(std::vector<std::string> choices) {
  choices.insert(choices.begin(), "auto");
  return choices;
}

ValueType<std::string> choice_type(std::vector<std::string> choices) {
  return {[=] {
            return json{{"enum", choices}};
          },
          [choices](const YamlNode& node, const std::string& path, Diagnostics& d) -> std::optional<std::string> {
            if (!check_choice(node, path, choices, d)) return std::nullopt;
            return node.scalar;
          }};
}

ValueType<std::vector<std::string>> choice_list_type(std::vector<std::string> choices) {
  return {[=] {
            return json{{"anyOf", json::array({json{{"enum", choices}},
                                               json{{"type", "array"}, {"items", {{"enum", choices}}}}})}};
          },
          [choices](const YamlNode& node, const std::string& path,
                    Diagnostics& d) -> std::optional<std::vector<std::string>> {
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
  return {schema,
          [](const YamlNode& node, const std::string& path, Diagnostics& d) -> std::optional<std::vector<StageEntry>> {
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
                const YamlNode* value = item.find(required);
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
              if (const YamlNode* value = item.find("unpack"))
                entry.unpack = read_bool(*value, path + ".unpack", d).value_or(false);
              if (const YamlNode* value = item.find("venv"))
                entry.venv = read_bool(*value, path + ".venv", d).value_or(false);
              if (ok && entry.dest.front() != '/') {
                d.error(item.find("dest")->loc,
                        "'" + path + ".dest' must be an absolute path, found '" + entry.dest + "'");
              }
              entries.push_back(std::move(entry));
            }
            return entries;
          }};
}

void read_env_entry(JobSpec& spec, const std::string& name, const SourceLoc& key_loc, const YamlNode& value,
                    Origin origin, Diagnostics& d) {
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

}  // namespace ezpz::core
