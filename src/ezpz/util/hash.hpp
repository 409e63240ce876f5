// A fast content hash (XXH3-64): of a whole string, or streamed in pieces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace ezpz::core {

std::string hash_hex(std::string_view data);

// 16 lower-case hex digits of a 64-bit hash value.
std::string hash_hex(std::uint64_t value);

// XXH3-64 of data fed in pieces: the same value as hashing the concatenation at once.
class StreamHash {
 public:
  StreamHash();
  ~StreamHash();
  StreamHash(StreamHash&&) noexcept;
  StreamHash& operator=(StreamHash&&) noexcept;

  void update(const void* data, std::size_t size);
  std::uint64_t digest() const;
  void reset();

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

}  // namespace ezpz::core
