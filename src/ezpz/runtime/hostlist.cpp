// Host list expansion and compression.
#include "ezpz/runtime/hostlist.hpp"

#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz {
namespace {

using Count = unsigned long long;

// At most 18 digits per number: every value, and every range size, fits with room to spare.
constexpr size_t k_max_digits = 18;
// Name counts saturate here (above any max_hosts anyone passes) instead of wrapping around.
constexpr Count k_count_cap = 1ULL << 62;
// Error messages show a list longer than this only around the offending character.
constexpr size_t k_error_window = 60;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

size_t digit_count(Count value) {
  size_t digits = 1;
  for (; value >= 10; value /= 10) ++digits;
  return digits;
}

// Appends `value` with leading zeros up to `width` digits (no allocation).
void append_number(std::string& out, Count value, size_t width) {
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

std::string quoted_char(char c) {
  return "'" + printable(std::string_view(&c, 1)) + "'";
}

// --- expansion ---------------------------------------------------------------------------------

// One bracket range "lo-hi" (or a single number). Like Slurm, every value is printed at least as wide
// as the lower bound is written: "08-10" has width 2, "8-10" width 1, "1-003" width 1.
struct Range {
  Count lo;
  Count hi;
  size_t width;
};

// One name of a list: text pieces between bracket groups, pieces.size() == groups.size() + 1.
struct Pattern {
  size_t start = 0;  // where the name is in the list
  size_t end = 0;
  std::vector<std::string_view> pieces;
  std::vector<std::vector<Range>> groups;

  // How many names this expands to, saturating at k_count_cap.
  Count count() const {
    Count total = 1;
    for (const auto& group : groups) {
      Count n = 0;  // each range holds at most 10^18 values, so this sum cannot wrap before the cap
      for (const auto& range : group) n = std::min(k_count_cap, n + (range.hi - range.lo + 1));
      total = total > k_count_cap / n ? k_count_cap : total * n;
    }
    return total;
  }
};

class Parser {
 public:
  Parser(std::string_view list, std::string_view what) : m_list(list), m_what(what) {}

  // Every name of the list, checked; nothing expanded yet.
  std::vector<Pattern> names() const {
    std::vector<Pattern> patterns;
    size_t pos = 0;
    while (pos < m_list.size()) {
      patterns.push_back(name(pos));
      if (pos < m_list.size()) {  // at a comma
        ++pos;
        if (pos == m_list.size()) fail(pos - 1, "trailing ','", 1, "remove the last comma");
      }
    }
    return patterns;
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
  // Parses the name starting at `pos`; stops at a top-level comma or the end.
  Pattern name(size_t& pos) const {
    Pattern pattern;
    pattern.start = pos;
    size_t piece = pos;
    while (pos < m_list.size() && m_list[pos] != ',') {
      char c = m_list[pos];
      if (c == '[') {
        pattern.pieces.push_back(m_list.substr(piece, pos - piece));
        pattern.groups.push_back(group(pos));
        piece = pos;
        continue;
      }
      if (c == ']') fail(pos, "']' without '['");
      if (is_space(c)) fail(pos, "whitespace in a host list", 1, "separate names with ',' only");
      ++pos;
    }
    if (pos == pattern.start) fail(pos, "empty name", 1, "remove the extra ','");
    pattern.pieces.push_back(m_list.substr(piece, pos - piece));
    pattern.end = pos;
    return pattern;
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
  std::vector<Range> group(size_t& pos) const {
    size_t open = pos++;
    std::vector<Range> ranges;
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
      ranges.push_back(range);
      if (pos >= m_list.size()) unclosed(open);
      char c = m_list[pos];
      if (c == ']') {
        ++pos;
        return ranges;
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

void expand_pattern(const Pattern& pattern, size_t group, std::string& prefix, std::vector<std::string>& out) {
  prefix += pattern.pieces[group];
  if (group == pattern.groups.size()) {
    out.push_back(prefix);
  } else {
    size_t keep = prefix.size();
    for (const auto& range : pattern.groups[group]) {
      for (Count value = range.lo; value <= range.hi; ++value) {
        append_number(prefix, value, range.width);
        expand_pattern(pattern, group + 1, prefix, out);
        prefix.resize(keep);
      }
    }
  }
  prefix.resize(prefix.size() - pattern.pieces[group].size());
}

// --- compression -------------------------------------------------------------------------------

// A digit run of a host name: its value and how many digits it was written with (leading zeros).
struct Number {
  Count value;
  size_t length;
  bool operator==(const Number& other) const { return value == other.value && length == other.length; }
  bool operator!=(const Number& other) const { return !(*this == other); }
};

// A name of the compressed list: text pieces between numeric fields, texts.size() == fields.size() + 1.
// A field holds one number, or several (a bracket group) once neighbours were merged.
struct Item {
  std::vector<std::string> texts;
  std::vector<std::vector<Number>> fields;

  bool operator==(const Item& other) const { return texts == other.texts && fields == other.fields; }
};

// Splits a host name into text and digit runs; runs too long to be counters stay text.
Item split_host(const std::string& host) {
  for (char c : host) {
    if (c == ',' || c == '[' || c == ']' || is_space(c)) {
      throw UserError("cannot compress host name '" + printable(host) + "': it contains " + quoted_char(c),
                      "host names in a list cannot contain ',', '[', ']' or whitespace");
    }
  }
  Item item;
  std::string text;
  size_t i = 0;
  while (i < host.size()) {
    if (!is_digit(host[i])) {
      text += host[i++];
      continue;
    }
    size_t start = i;
    while (i < host.size() && is_digit(host[i])) ++i;
    if (i - start > k_max_digits) {
      text.append(host, start, i - start);
      continue;
    }
    Count value = 0;
    for (size_t k = start; k < i; ++k) value = value * 10 + static_cast<Count>(host[k] - '0');
    item.texts.push_back(std::move(text));
    text.clear();
    item.fields.push_back({Number{value, i - start}});
  }
  item.texts.push_back(std::move(text));
  return item;
}

// The order of compressed lists (items of single values): text pieces as text, digit runs by value and
// then by written length ("nid9" < "nid10" < "nid010").
bool host_less(const Item& a, const Item& b) {
  size_t n = std::min(a.fields.size(), b.fields.size());
  for (size_t i = 0;; ++i) {
    int order = a.texts[i].compare(b.texts[i]);
    if (order != 0) return order < 0;
    if (i == n) break;
    const Number& x = a.fields[i].front();
    const Number& y = b.fields[i].front();
    if (x.value != y.value) return x.value < y.value;
    if (x.length != y.length) return x.length < y.length;
  }
  return a.fields.size() < b.fields.size();
}

// Whether `a` and `b` differ in field `f` only.
bool mergeable(const Item& a, const Item& b, size_t f) {
  if (f >= a.fields.size() || a.fields.size() != b.fields.size() || a.texts != b.texts) return false;
  for (size_t i = 0; i < a.fields.size(); ++i) {
    if (i != f && a.fields[i] != b.fields[i]) return false;
  }
  return true;
}

// Appends a field: its one number as written, or a bracket group of ranges. A range continues while the
// next value is one more and is written exactly as the range's width prints it.
void append_field(std::string& out, const std::vector<Number>& values) {
  if (values.size() == 1) {
    append_number(out, values[0].value, values[0].length);
    return;
  }
  out += '[';
  for (size_t i = 0; i < values.size();) {
    size_t width = values[i].length;
    size_t j = i;
    while (j + 1 < values.size() && values[j + 1].value == values[j].value + 1 &&
           values[j + 1].length == std::max(width, digit_count(values[j + 1].value))) {
      ++j;
    }
    if (i > 0) out += ',';
    append_number(out, values[i].value, values[i].length);
    if (j > i) {
      out += '-';
      append_number(out, values[j].value, values[j].length);
    }
    i = j + 1;
  }
  out += ']';
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view list, std::string_view what, size_t max_hosts) {
  Parser parser(list, what);
  std::vector<Pattern> patterns = parser.names();
  Count total = 0;
  for (const auto& pattern : patterns) {
    Count n = pattern.count();
    if (n > static_cast<Count>(max_hosts) - total) {
      parser.error(pattern.start, pattern.end - pattern.start,
                   "host list expands to more than " + std::to_string(max_hosts) + " names");
    }
    total += n;
  }
  std::vector<std::string> hosts;
  hosts.reserve(static_cast<size_t>(total));
  std::string name;
  for (const auto& pattern : patterns) expand_pattern(pattern, 0, name, hosts);
  return hosts;
}

std::string first_host(std::string_view list, std::string_view what) {
  Parser parser(list, what);
  std::vector<Pattern> patterns = parser.names();
  if (patterns.empty()) parser.error(0, 1, "empty host list");
  const Pattern& pattern = patterns.front();
  std::string name(pattern.pieces[0]);
  for (size_t i = 0; i < pattern.groups.size(); ++i) {
    append_number(name, pattern.groups[i][0].lo, pattern.groups[i][0].width);
    name += pattern.pieces[i + 1];
  }
  return name;
}

std::string compress_hostlist(const std::vector<std::string>& hosts) {
  std::vector<Item> items;
  items.reserve(hosts.size());
  size_t most_fields = 0;
  for (const auto& host : hosts) {
    if (host.empty()) continue;
    items.push_back(split_host(host));
    most_fields = std::max(most_fields, items.back().fields.size());
  }
  std::sort(items.begin(), items.end(), host_less);
  items.erase(std::unique(items.begin(), items.end()), items.end());

  // Merge neighbours that differ in one field, rightmost field first ("nid[001-100]"), then leftwards:
  // hosts that form a grid end with one bracket group per varying field. Merging only neighbours keeps
  // the order, so the expansion of the result is the sorted list again.
  for (size_t f = most_fields; f-- > 0;) {
    std::vector<Item> merged;
    merged.reserve(items.size());
    for (auto& item : items) {
      if (!merged.empty() && mergeable(merged.back(), item, f)) {
        auto& values = merged.back().fields[f];
        values.insert(values.end(), item.fields[f].begin(), item.fields[f].end());
      } else {
        merged.push_back(std::move(item));
      }
    }
    items = std::move(merged);
  }

  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ',';
    out += item.texts[0];
    for (size_t i = 0; i < item.fields.size(); ++i) {
      append_field(out, item.fields[i]);
      out += item.texts[i + 1];
    }
  }
  return out;
}

std::vector<std::string> read_nodefile(std::string_view text) {
  std::vector<std::string> hosts;
  std::unordered_set<std::string> seen;
  while (!text.empty()) {
    size_t newline = text.find('\n');
    std::string host = trim(text.substr(0, newline));
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (!host.empty() && seen.insert(host).second) hosts.push_back(std::move(host));
  }
  return hosts;
}

}  // namespace ezpz
