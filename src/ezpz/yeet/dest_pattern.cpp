// %n, %r, %% and $VAR expansion in DEST.
#include "ezpz/yeet/dest_pattern.hpp"

#include <unistd.h>

#include <cctype>
#include <filesystem>

#include "ezpz/util/error.hpp"
#include "ezpz/util/file.hpp"

namespace ezpz::core::yeet {
namespace {

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Reads the variable name at `text[i]` (after '$'); advances `i` past it. Empty when there is none.
std::string variable_name(const std::string& text, std::size_t& i, const std::string& pattern) {
  if (i < text.size() && text[i] == '{') {
    std::size_t close = text.find('}', i);
    std::string name = close == std::string::npos ? std::string() : text.substr(i + 1, close - i - 1);
    bool valid = !name.empty() && is_name_start(name[0]);
    for (char c : name) valid = valid && is_name_char(c);
    if (!valid) throw UserError("DEST '" + pattern + "' has a malformed ${…}", "write ${NAME} with a shell-style name");
    i = close + 1;
    return name;
  }
  std::size_t start = i;
  if (i < text.size() && is_name_start(text[i])) {
    while (i < text.size() && is_name_char(text[i])) ++i;
  }
  return text.substr(start, i - start);
}

}  // namespace

std::string expand_dest(const std::string& pattern, const std::string& node, int rank, const EnvLookup& env) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size();) {
    char c = pattern[i++];
    if (c == '%') {
      char code = i < pattern.size() ? pattern[i++] : '\0';
      if (code == 'n') {
        out += node;
      } else if (code == 'r') {
        out += std::to_string(rank);
      } else if (code == '%') {
        out += '%';
      } else {
        throw UserError("DEST '" + pattern + "' has an unknown '%" + std::string(code ? 1 : 0, code) + "'",
                        "%n is the node name, %r the rank, %% a '%'");
      }
    } else if (c == '$') {
      std::string name = variable_name(pattern, i, pattern);
      if (name.empty()) {
        out += '$';
        continue;
      }
      auto value = env(name);
      if (!value) throw UserError("DEST '" + pattern + "' uses $" + name + ", which is not set");
      out += *value;
    } else {
      out += c;
    }
  }
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  std::string last = std::filesystem::path(out).filename().string();
  if (out.empty() || out[0] != '/' || out == "/" || last == "." || last == "..") {
    throw UserError("DEST must be an absolute path to a directory yeet may replace, got '" + out + "'",
                    "for example /tmp/$USER/env or /local/scratch/env");
  }
  return out;
}

void check_dest_outside_src(const std::string& src, const std::string& dest) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path real_src = fs::canonical(src, error);
  if (error) return;
  fs::path real_dest = fs::weakly_canonical(dest, error);
  if (error) return;
  if (!path_is_under(real_dest.string(), real_src.string())) return;
  std::string seen = real_dest.string() == dest ? "" : " (it is '" + real_dest.string() + "')";
  throw UserError("DEST '" + dest + "' is inside SRC '" + src + "'" + seen + ": each run would copy the copies again");
}

}  // namespace ezpz::core::yeet
