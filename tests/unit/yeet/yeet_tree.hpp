// Test helpers for yeet: a temporary directory and small file utilities.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "ezpz/util/file.hpp"
#include "ezpz/yeet/pending_copy.hpp"

namespace ezpz::core::yeet::test {

class TempDir {
 public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "ezpz-yeet-XXXXXX";
    m_path = ::mkdtemp(pattern.data());
  }
  ~TempDir() { remove_tree(m_path); }
  const std::string& path() const { return m_path; }
  std::string operator/(const std::string& name) const { return m_path + "/" + name; }

 private:
  std::string m_path;
};

inline void write_file(const std::string& path, const std::string& content, mode_t mode = 0644) {
  std::ofstream(path, std::ios::binary) << content;
  ::chmod(path.c_str(), mode);
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

inline bool exists(const std::string& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0;
}

// Names in `directory` that start with `prefix` (staging directories are ".<name>.yeet-<tag>-<random>").
inline int count_prefixed(const std::string& directory, const std::string& prefix) {
  int count = 0;
  for (const auto& name : directory_names(directory).value_or(std::vector<std::string>{}))
    count += name.rfind(prefix, 0) == 0;
  return count;
}

inline mode_t mode_of(const std::string& path) {
  struct stat info {};
  ::lstat(path.c_str(), &info);
  return info.st_mode & 07777;
}

}  // namespace ezpz::core::yeet::test
