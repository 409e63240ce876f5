// Atomic whole-file writes.
#include "ezpz/util/file.hpp"

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

}  // namespace ezpz
