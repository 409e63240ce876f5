// XXH3-64 through libxxhash.
#include "ezpz/util/hash.hpp"

#define XXH_STATIC_LINKING_ONLY  // the state type, so a StreamHash needs no separate allocation call
#include <xxhash.h>

#include <cstdio>

namespace ezpz::core {

std::string hash_hex(std::uint64_t value) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(value));
  return buffer;
}

std::string hash_hex(std::string_view data) {
  return hash_hex(XXH3_64bits(data.data(), data.size()));
}

struct StreamHash::State {
  XXH3_state_t state;
};

StreamHash::StreamHash() : m_state(std::make_unique<State>()) {
  reset();
}
StreamHash::~StreamHash() = default;
StreamHash::StreamHash(StreamHash&&) noexcept = default;
StreamHash& StreamHash::operator=(StreamHash&&) noexcept = default;

void StreamHash::update(const void* data, std::size_t size) {
  XXH3_64bits_update(&m_state->state, data, size);
}
std::uint64_t StreamHash::digest() const {
  return XXH3_64bits_digest(&m_state->state);
}
void StreamHash::reset() {
  XXH3_64bits_reset(&m_state->state);
}

}  // namespace ezpz::core
