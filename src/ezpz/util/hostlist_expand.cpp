// Host list expansion (nid[001-003]) and PBS nodefiles.
#include "ezpz/util/hostlist.hpp"

#include <algorithm>
#include <cstddef>
#include <unordered_set>

#include "ezpz/util/error.hpp"
#include "ezpz/util/hostlist_number.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

using namespace hostlist_detail;

// One bracket range "lo-hi" (or a single number). Like Slurm, every value is printed at least as wide
// as the lower bound is written: "08-10" has width 2, "8-10" width 1, "1-003" width 1.
struct Range {
  Count lo;
  Count hi;
  size_t width;
};

// A parsed list, flat (no allocation per name): each name has groups + 1 text pieces around its
// bracket groups, and each group a run of ranges.
struct Parsed {
  struct Group {
    size_t first_range;
    size_t ranges;
  };
  struct Name {
    size_t start;  // where the name is in the list
    size_t end;
    size_t first_piece;
    size_t first_group;
    size_t groups;
  };
  std::vector<Name> names;
  std::vector<std::string_view> pieces;
  std::vector<Group> groups;
  std::vector<Range> ranges;

  std::string_view piece(const Name& name, size_t i) const { return pieces[name.first_piece + i]; }
  const Group& group(const Name& name, size_t i) const { return groups[name.first_group + i]; }
  const Range& range(const Group& group, size_t i) const { return ranges[group.first_range + i]; }

  // How many names `name` expands to, saturating at k_count_cap.
  Count count(const Name& name) const {
    Count total = 1;
    for (size_t g = 0; g < name.groups; ++g) {
      const Group& grp = group(name, g);
      Count n = 0;  // each range holds at most 10^18 values, so this sum cannot wrap before the cap
      for (size_t r = 0; r < grp.ranges; ++r) {
        n = std::min(k_count_cap, n + (range(grp, r).hi - range(grp, r).lo + 1));
      }
      total = times(total, n);
    }
    return total;
  }

  // The length of the longest name `name` expands to: its text, and each group at its widest number.
  Count longest(const Name& name) const {
    Count length = 0;
    for (size_t i = 0; i <= name.groups; ++i) length += piece(name, i).size();
    for (size_t g = 0; g < name.groups; ++g) {
      const Group& grp = group(name, g);
      size_t widest = 0;
      for (size_t r = 0; r < grp.ranges; ++r)
        widest = std::max({widest, range(grp, r).width, digit_count(range(grp, r).hi)});
      length += widest;
    }
    return length;
  }
};

class Parser {
 public:
  Parser(std::string_view list, std::string_view what) : m_list(list), m_what(what) {}

  // Every name of the list, checked; nothing expanded yet.
  Parsed parse() const {
    Parsed parsed;
    // Every name takes two characters at least ("a,"): no reallocation while parsing, and the pages
    // reserved but never touched cost nothing.
    parsed.names.reserve(m_list.size() / 2 + 1);
    parsed.pieces.reserve(m_list.size() / 2 + 1);
    size_t pos = 0;
    while (pos < m_list.size()) {
      name(pos, parsed);
      if (pos < m_list.size()) {  // at a comma
        ++pos;
        if (pos == m_list.size()) fail(pos - 1, "trailing ','", 1, "remove the last comma");
      }
    }
    return parsed;
  }

  // Throws a UserError located at `at` (0-based), underlining `length` characters.
  [[noreturn]] void error(size_t at, size_t length, std::string message, std::string hint = {}) const {
    std::string text(m_list);
    size_t column = at;
    if (m_list.size() > k_error_window) {
      // Show a window around the error, and say where in the whole list it is.
      size_t end = std::min(m_list.size(), (at > k_error_window / 2 ? at - k_error_window / 2 : 0) + k_error_window);
      size_t begin = end - k_error_window;
      text = (begin > 0 ? "..." : "") + std::string(m_list.substr(begin, end - begin)) +
             (end < m_list.size() ? "..." : "");
      column = at - begin + (begin > 0 ? 3 : 0);
      length = std::min(length, end > at ? end - at : 1);
      message += " (character " + std::to_string(at + 1) + " of " + std::to_string(m_list.size()) + ")";
    }
    auto source = make_source(std::string(m_what), std::move(text), true);
    throw UserError(SourceLoc{source, 1, static_cast<int>(column) + 1, static_cast<int>(std::max<size_t>(length, 1))},
                    std::move(message), std::move(hint));
  }

  [[noreturn]] void fail(size_t at, const std::string& message, size_t length = 1, std::string hint = {}) const {
    error(at, length, "malformed host list: " + message, std::move(hint));
  }

 private:
  // Parses the name starting at `pos` into `parsed`; stops at a top-level comma or the end.
  void name(size_t& pos, Parsed& parsed) const {
    Parsed::Name name{pos, pos, parsed.pieces.size(), parsed.groups.size(), 0};
    size_t piece = pos;
    while (true) {
      pos = skip_ordinary(pos);
      if (pos == m_list.size() || m_list[pos] == ',') break;
      char c = m_list[pos];
      if (c == '[') {
        parsed.pieces.push_back(m_list.substr(piece, pos - piece));
        group(pos, parsed);
        ++name.groups;
        piece = pos;
        continue;
      }
      if (c == ']') fail(pos, "']' without '['");
      fail(pos, "whitespace in a host list", 1, "separate names with ',' only");
    }
    if (pos == name.start) fail(pos, "empty name", 1, "remove the extra ','");
    parsed.pieces.push_back(m_list.substr(piece, pos - piece));
    name.end = pos;
    parsed.names.push_back(name);
  }

  // The position of the first character at or after `pos` that means something in a list.
  size_t skip_ordinary(size_t pos) const {
    const char* data = m_list.data();
    const size_t size = m_list.size();
    while (pos < size && !is_special(data[pos])) ++pos;
    return pos;
  }

  [[noreturn]] void unclosed(size_t open) const { fail(open, "'[' is never closed", 1, "add the missing ']'"); }

  // A run of digits at `pos` (inside the group opened at `open`).
  Count number(size_t& pos, size_t open, size_t& digits) const {
    if (pos >= m_list.size()) unclosed(open);
    size_t start = pos;
    while (pos < m_list.size() && is_digit(m_list[pos])) ++pos;
    digits = pos - start;
    if (digits == 0) {
      if (pos >= m_list.size()) unclosed(open);
      fail(pos, "expected a number in brackets, found " + quoted_char(m_list[pos]));
    }
    if (digits > k_max_digits) fail(start, "number longer than 18 digits", digits);
    Count value = 0;
    for (size_t i = start; i < pos; ++i) value = value * 10 + static_cast<Count>(m_list[i] - '0');
    return value;
  }

  // The bracket group at `pos`: "[1-3,5,08-10]".
  void group(size_t& pos, Parsed& parsed) const {
    size_t open = pos++;
    parsed.groups.push_back(Parsed::Group{parsed.ranges.size(), 0});
    while (true) {
      size_t start = pos;
      size_t digits = 0;
      Range range{};
      range.lo = number(pos, open, digits);
      range.width = digits;
      range.hi = range.lo;
      bool is_range = pos < m_list.size() && m_list[pos] == '-';
      if (is_range) {
        size_t dash = pos++;
        size_t hi_digits = 0;
        range.hi = number(pos, open, hi_digits);
        if (range.hi < range.lo) {
          std::string swapped(m_list.substr(dash + 1, pos - dash - 1));
          swapped += "-";
          swapped += m_list.substr(start, dash - start);
          fail(start, "range '" + std::string(m_list.substr(start, pos - start)) + "' goes down", pos - start,
               "write the lower bound first: '" + swapped + "'");
        }
      }
      parsed.ranges.push_back(range);
      ++parsed.groups.back().ranges;
      if (pos >= m_list.size()) unclosed(open);
      char c = m_list[pos];
      if (c == ']') {
        ++pos;
        return;
      }
      if (c != ',') {
        fail(pos, std::string(is_range ? "expected ',' or ']'" : "expected ',', '-' or ']'") + " in brackets, found " +
                      quoted_char(c));
      }
      ++pos;
    }
  }

  std::string_view m_list;
  std::string_view m_what;
};

// Adds 1 to the decimal number in name[begin, end) in place ("099" → "100", "9" → "10"); returns the
// new end (one further when the number gained a digit).
size_t increment(std::string& name, size_t begin, size_t end) {
  size_t i = end;
  while (i > begin && name[i - 1] == '9') name[--i] = '0';
  if (i > begin) {
    ++name[i - 1];
    return end;
  }
  name.insert(name.begin() + static_cast<std::ptrdiff_t>(begin), '1');
  return end + 1;
}

// Appends the expansion of `name` from group `g` on; `prefix` holds the text before it.
void expand_name(const Parsed& parsed, const Parsed::Name& name, size_t g, std::string& prefix,
                 std::vector<std::string>& out) {
  prefix += parsed.piece(name, g);
  size_t keep = prefix.size();
  if (g == name.groups) {
    out.push_back(prefix);
  } else if (g + 1 == name.groups) {
    // The last group varies fastest: count up in place instead of formatting every number.
    std::string_view suffix = parsed.piece(name, g + 1);
    const Parsed::Group& group = parsed.group(name, g);
    for (size_t r = 0; r < group.ranges; ++r) {
      const Range& range = parsed.range(group, r);
      append_number(prefix, range.lo, range.width);
      size_t end = prefix.size();
      prefix += suffix;
      for (Count value = range.lo;; ++value) {
        out.push_back(prefix);
        if (value == range.hi) break;
        end = increment(prefix, keep, end);
      }
      prefix.resize(keep);
    }
  } else {
    const Parsed::Group& group = parsed.group(name, g);
    for (size_t r = 0; r < group.ranges; ++r) {
      const Range& range = parsed.range(group, r);
      for (Count value = range.lo;; ++value) {
        append_number(prefix, value, range.width);
        expand_name(parsed, name, g + 1, prefix, out);
        prefix.resize(keep);
        if (value == range.hi) break;
      }
    }
  }
  prefix.resize(keep - parsed.piece(name, g).size());
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view list, std::string_view what, HostLimits limits,
                                         HostLimits already) {
  Parser parser(list, what);
  Parsed parsed = parser.parse();
  // Counted before anything is expanded, in Count (saturating): a 213-byte list can name 10^18 hosts.
  Count total = already.names;
  Count bytes = already.bytes;
  for (const auto& name : parsed.names) {
    Count n = parsed.count(name);
    total = std::min(k_count_cap, total + n);
    bytes = std::min(k_count_cap, bytes + times(n, parsed.longest(name)));
    const char* over = total > limits.names ? " names" : bytes > limits.bytes ? " bytes of names" : nullptr;
    if (over != nullptr) {
      parser.error(name.start, name.end - name.start,
                   "host list expands to more than " +
                       std::to_string(total > limits.names ? limits.names : limits.bytes) + over);
    }
  }
  total -= already.names;
  std::vector<std::string> hosts;
  hosts.reserve(static_cast<size_t>(total));
  std::string prefix;
  for (const auto& name : parsed.names) {
    if (name.groups == 0) {
      hosts.emplace_back(parsed.piece(name, 0));
    } else {
      expand_name(parsed, name, 0, prefix, hosts);
    }
  }
  return hosts;
}

std::string first_host(std::string_view list, std::string_view what) {
  Parser parser(list, what);
  Parsed parsed = parser.parse();
  if (parsed.names.empty()) parser.error(0, 1, "empty host list");
  const Parsed::Name& name = parsed.names.front();
  std::string first(parsed.piece(name, 0));
  for (size_t g = 0; g < name.groups; ++g) {
    const Range& range = parsed.range(parsed.group(name, g), 0);
    append_number(first, range.lo, range.width);
    first += parsed.piece(name, g + 1);
  }
  return first;
}

std::vector<std::string> read_nodefile(std::string_view text, std::string_view what, size_t max_hosts) {
  std::vector<std::string> hosts;
  std::unordered_set<std::string> seen;
  while (!text.empty()) {
    size_t newline = text.find('\n');
    std::string host = trim(text.substr(0, newline));
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (host.empty() || !seen.insert(host).second) continue;
    if (hosts.size() == max_hosts) {
      throw UserError(std::string(what) + " names more than " + std::to_string(max_hosts) + " different hosts");
    }
    hosts.push_back(std::move(host));
  }
  return hosts;
}

}  // namespace ezpz::core
