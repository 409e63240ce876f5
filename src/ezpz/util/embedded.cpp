// Lookup over the generated table of embedded files.
#include "ezpz/util/embedded.hpp"

namespace ezpz {

std::optional<std::string_view> find_embedded(std::string_view path) {
  for (const auto& file : embedded_files()) {
    if (file.path == path) return file.text;
  }
  return std::nullopt;
}

}  // namespace ezpz
