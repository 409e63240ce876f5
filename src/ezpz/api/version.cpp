// The library's version.
#include "ezpz/version.hpp"

namespace ezpz {

const char* version() noexcept {
  return k_version;
}

}  // namespace ezpz
