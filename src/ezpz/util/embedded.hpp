// Shipped data files (profiles, scheduler descriptions, templates) compiled into the binary.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace ezpz::core {

struct EmbeddedFile {
  std::string_view path;  // relative to the source root, e.g. "systems/aurora.yaml"
  std::string_view text;
  std::string_view tree;  // YAML files: the parsed tree (util/yaml_codec.hpp); else empty
};

// Every embedded file, sorted by path.
const std::vector<EmbeddedFile>& embedded_files();

// The embedded file at `path`, if any.
const EmbeddedFile* find_embedded(std::string_view path);

}  // namespace ezpz::core
