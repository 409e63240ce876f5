// A small binary codec for what yeet sends between ranks: fixed-width little-endian integers and
// length-prefixed strings. Both ends run the same build, so no versioning beyond a leading tag.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ezpz::core::wire {

class Writer {
 public:
  void u8(std::uint8_t value) { m_bytes.push_back(static_cast<char>(value)); }
  void u32(std::uint32_t value) { put(&value, sizeof value); }
  void u64(std::uint64_t value) { put(&value, sizeof value); }
  void i64(std::int64_t value) { put(&value, sizeof value); }
  void str(std::string_view value) {
    u64(value.size());
    m_bytes.append(value.data(), value.size());
  }
  std::string take() { return std::move(m_bytes); }

 private:
  void put(const void* data, std::size_t size) { m_bytes.append(static_cast<const char*>(data), size); }
  std::string m_bytes;
};

// Throws std::runtime_error on truncated input: a bug or a corrupted message, never user input.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : m_bytes(bytes) {}
  std::uint8_t u8() { return static_cast<std::uint8_t>(take(1)[0]); }
  std::uint32_t u32() { return get<std::uint32_t>(); }
  std::uint64_t u64() { return get<std::uint64_t>(); }
  std::int64_t i64() { return get<std::int64_t>(); }
  std::string str() {
    std::uint64_t size = u64();
    return std::string(take(size));
  }
  bool done() const { return m_bytes.empty(); }

 private:
  template <class T>
  T get() {
    T value;
    std::memcpy(&value, take(sizeof value).data(), sizeof value);
    return value;
  }
  std::string_view take(std::uint64_t size) {
    if (size > m_bytes.size()) throw std::runtime_error("yeet: truncated message");
    std::string_view part = m_bytes.substr(0, size);
    m_bytes.remove_prefix(size);
    return part;
  }
  std::string_view m_bytes;
};

}  // namespace ezpz::core::wire
