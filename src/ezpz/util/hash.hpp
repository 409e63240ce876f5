// A fast content hash (XXH3-64) as 16 lower-case hex digits.
#pragma once

#include <string>
#include <string_view>

namespace ezpz {

std::string hash_hex(std::string_view data);

}  // namespace ezpz
