// What the fuzz targets share: the compiled-in catalog, and the rule that a UserError is an answer,
// not a finding. Anything else that escapes (another exception, a sanitizer report, a crash) is one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "ezpz/profile/catalog.hpp"
#include "ezpz/util/error.hpp"

namespace ezpz::core::fuzz {

inline const Catalog& builtin_catalog() {
  static const Catalog k_catalog;  // compiled-in profiles only
  return k_catalog;
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Runs `f`; a UserError is the expected answer to bad input, so its messages are formatted (as the
// CLI would print them) and it ends there. Returns whether `f` finished without one.
template <class F>
bool accepted(F&& f) {
  try {
    f();
    return true;
  } catch (const UserError& error) {
    for (const auto& diagnostic : error.diagnostics()) (void)format_diagnostic(diagnostic);
    return false;
  }
}

// Stops the process with a message libFuzzer keeps with the input: a property did not hold.
[[noreturn]] inline void property_failed(const std::string& what) {
  std::fprintf(stderr, "ezpz fuzz: property failed: %s\n", what.c_str());
  std::abort();
}

// A directory of this process's own under $TMPDIR, removed with everything in it when the process ends.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (mkdtemp(pattern.data()) == nullptr) property_failed("cannot create a temporary directory");
    m_path = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

// A rendered script never holds a byte bash would drop (NUL) or sbatch would refuse (CR).
inline void check_script(const std::string& text) {
  if (text.find('\0') != std::string::npos) property_failed("a NUL byte reached the script");
  if (text.find('\r') != std::string::npos) property_failed("a CR reached the script");
}

}  // namespace ezpz::core::fuzz
