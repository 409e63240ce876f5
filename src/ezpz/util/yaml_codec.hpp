// A compact binary form of a located YAML tree, so compiled-in profiles need no YAML parsing at run time.
#pragma once

#include <string>
#include <string_view>

#include "ezpz/util/yaml_node.hpp"

namespace ezpz::core {

// Encodes `node` with every location (line, column, length); the file itself is not stored.
std::string encode_node(const YamlNode& node);

// Decodes what encode_node produced; locations point into `source`. Asserts on corrupt input (the
// data is generated at build time, so corruption is a bug, not a user error).
YamlNode decode_node(std::string_view data, const SourceRef& source);

}  // namespace ezpz::core
