// Shared by host list expansion and compression (util/hostlist_expand.cpp, util/hostlist_compress.cpp):
// the number type, the characters a list reserves, and writing a padded number.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "ezpz/util/text.hpp"

namespace ezpz::core::hostlist_detail {

using Count = unsigned long long;

// At most 18 digits per number: every value, and every range size, fits with room to spare.
constexpr size_t k_max_digits = 18;
// Name counts saturate here (above any max_hosts anyone passes) instead of wrapping around.
constexpr Count k_count_cap = 1ULL << 62;
// Error messages show a list longer than this only around the offending character.
constexpr size_t k_error_window = 60;

inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
// Characters that mean something in a list (',', '[', ']') or cannot be in a name (whitespace): one
// table lookup per character on the hot paths.
struct SpecialTable {
  bool special[256] = {};
  constexpr SpecialTable() {
    for (unsigned char c : {',', '[', ']', ' ', '\t', '\n', '\v', '\f', '\r'}) special[c] = true;
  }
};
constexpr SpecialTable k_special;
inline bool is_special(char c) {
  return k_special.special[static_cast<unsigned char>(c)];
}

// a * b, saturating at k_count_cap (neither factor is above it).
inline Count times(Count a, Count b) {
  return b != 0 && a > k_count_cap / b ? k_count_cap : a * b;
}

inline size_t digit_count(Count value) {
  size_t digits = 1;
  for (; value >= 10; value /= 10) ++digits;
  return digits;
}

// Appends `value` with leading zeros up to `width` digits (no allocation).
inline void append_number(std::string& out, Count value, size_t width) {
  char buffer[24];
  char* end = buffer + sizeof buffer;
  char* begin = end;
  do {
    *--begin = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (static_cast<size_t>(end - begin) < width && begin > buffer) *--begin = '0';
  out.append(begin, end);
}

inline std::string quoted_char(char c) {
  return "'" + printable(std::string_view(&c, 1)) + "'";
}

}  // namespace ezpz::core::hostlist_detail
