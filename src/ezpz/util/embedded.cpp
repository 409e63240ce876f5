// Lookup over the generated table of embedded files.
#include "ezpz/util/embedded.hpp"

namespace ezpz::core {

const EmbeddedFile* find_embedded(std::string_view path) {
  for (const auto& file : embedded_files()) {
    if (file.path == path) return &file;
  }
  return nullptr;
}

}  // namespace ezpz::core
