// XXH3-64 through libxxhash.
#include "ezpz/util/hash.hpp"

#include <xxhash.h>

#include <cstdio>

namespace ezpz {

std::string hash_hex(std::string_view data) {
  unsigned long long value = XXH3_64bits(data.data(), data.size());
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", value);
  return buffer;
}

}  // namespace ezpz
