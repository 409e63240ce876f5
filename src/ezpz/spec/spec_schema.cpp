// The job spec's JSON Schema (`ezpz schema`), from the field table.
#include <nlohmann/json.hpp>

#include "ezpz/spec/field_table.hpp"
#include "ezpz/spec/job_spec.hpp"

namespace ezpz::core {
namespace {

using json = nlohmann::json;

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
