// Source texts and locations.
#include "ezpz/util/source.hpp"

namespace ezpz::core {

std::string_view SourceFile::line(int n) const {
  if (n < 1) return {};
  std::string_view rest = text;
  for (int i = 1; i < n; ++i) {
    auto newline = rest.find('\n');
    if (newline == std::string_view::npos) return {};
    rest.remove_prefix(newline + 1);
  }
  auto end = rest.find('\n');
  auto result = rest.substr(0, end);
  if (!result.empty() && result.back() == '\r') result.remove_suffix(1);
  return result;
}

SourceRef make_source(std::string name, std::string text, bool synthetic) {
  return std::make_shared<const SourceFile>(SourceFile{std::move(name), std::move(text), synthetic});
}

std::string SourceLoc::describe() const {
  if (!file) return {};
  if (file->synthetic) return file->name + " " + file->text;
  if (line == 0) return file->name;
  return file->name + ":" + std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace ezpz::core
