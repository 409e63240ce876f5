// Atomic whole-file writes and directory listings.
#include "ezpz/util/file.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "ezpz/util/error.hpp"

namespace ezpz {

void write_file_atomically(const std::string& path, const std::string& text, bool executable) {
  std::string temporary = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      throw UserError("cannot write '" + path + "'", "check that the directory exists and is writable");
    }
  }
  if (executable) ::chmod(temporary.c_str(), 0755);
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw UserError("cannot write '" + path + "'", "check that the directory exists and is writable");
  }
}

std::optional<std::vector<std::string>> directory_names(const std::string& path) {
  DIR* directory = ::opendir(path.c_str());
  if (directory == nullptr) return std::nullopt;
  std::vector<std::string> names;
  while (const dirent* item = ::readdir(directory)) {
    std::string name = item->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(directory);
  return names;
}

}  // namespace ezpz
