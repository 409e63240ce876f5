// Host list expansion and compression.
#include "ezpz/runtime/hostlist.hpp"

#include <algorithm>
#include <map>
#include <unordered_set>

#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz {
namespace {

// One bracket range "lo-hi" (or a single number) with the width of its zero padding.
struct Range {
  unsigned long long lo;
  unsigned long long hi;
  size_t width;  // digits of the padded form, 0 = no padding
};

// A name is text pieces between bracket groups: pieces.size() == groups.size() + 1.
struct Pattern {
  std::vector<std::string_view> pieces;
  std::vector<std::vector<Range>> groups;
};

class Parser {
 public:
  Parser(std::string_view list, std::string_view what) : m_list(list), m_what(what) {}

  [[noreturn]] void fail(size_t at, const std::string& message) const {
    auto source = make_source(std::string(m_what), std::string(m_list), true);
    throw UserError(SourceLoc{source, 1, static_cast<int>(at) + 1, 1}, "malformed host list: " + message);
  }

  // Parses the name starting at `pos`; stops at a top-level comma or the end.
  Pattern name(size_t& pos) const {
    Pattern pattern;
    size_t piece = pos;
    while (pos < m_list.size() && m_list[pos] != ',') {
      char c = m_list[pos];
      if (c == ']') fail(pos, "']' without '['");
      if (c == '[') {
        pattern.pieces.push_back(m_list.substr(piece, pos - piece));
        pattern.groups.push_back(group(pos));
        piece = pos;
        continue;
      }
      if (std::isspace(static_cast<unsigned char>(c))) fail(pos, "space inside a host name");
      ++pos;
    }
    pattern.pieces.push_back(m_list.substr(piece, pos - piece));
    return pattern;
  }

 private:
  unsigned long long number(size_t& pos, size_t& digits) const {
    size_t start = pos;
    while (pos < m_list.size() && std::isdigit(static_cast<unsigned char>(m_list[pos]))) ++pos;
    digits = pos - start;
    if (digits == 0) fail(pos, "expected a number");
    if (digits > 18) fail(start, "number too long");
    return std::stoull(std::string(m_list.substr(start, digits)));
  }

  std::vector<Range> group(size_t& pos) const {
    size_t open = pos++;
    std::vector<Range> ranges;
    while (true) {
      if (pos >= m_list.size()) fail(open, "'[' is never closed");
      size_t digits = 0;
      size_t start = pos;
      Range range{};
      range.lo = number(pos, digits);
      range.width = digits > 1 && m_list[start] == '0' ? digits : 0;
      range.hi = range.lo;
      if (pos < m_list.size() && m_list[pos] == '-') {
        ++pos;
        size_t hi_digits = 0;
        size_t hi_start = pos;
        range.hi = number(pos, hi_digits);
        if (range.hi < range.lo) fail(hi_start, "range goes down");
        if (range.width == 0 && digits > 1 && digits == hi_digits) range.width = 0;
      }
      ranges.push_back(range);
      if (pos >= m_list.size()) fail(open, "'[' is never closed");
      if (m_list[pos] == ']') {
        ++pos;
        return ranges;
      }
      if (m_list[pos] != ',') fail(pos, std::string("unexpected '") + m_list[pos] + "' in brackets");
      ++pos;
    }
  }

  std::string_view m_list;
  std::string_view m_what;
};

std::string padded(unsigned long long value, size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

unsigned long long count(const Pattern& pattern) {
  unsigned long long total = 1;
  for (const auto& group : pattern.groups) {
    unsigned long long n = 0;
    for (const auto& range : group) n += range.hi - range.lo + 1;
    total = n == 0 || total > (1ULL << 40) / n ? (1ULL << 40) : total * n;
  }
  return total;
}

void expand_pattern(const Pattern& pattern, size_t group, std::string& prefix, std::vector<std::string>& out) {
  prefix += pattern.pieces[group];
  if (group == pattern.groups.size()) {
    out.push_back(prefix);
  } else {
    size_t keep = prefix.size();
    for (const auto& range : pattern.groups[group]) {
      for (unsigned long long value = range.lo; value <= range.hi; ++value) {
        prefix += padded(value, range.width);
        expand_pattern(pattern, group + 1, prefix, out);
        prefix.resize(keep);
      }
    }
  }
  prefix.resize(prefix.size() - pattern.pieces[group].size());
}

// --- compression -------------------------------------------------------------------------------

// A host name split into text and numeric fields: texts.size() == numbers.size() + 1.
struct Split {
  std::vector<std::string> texts;
  std::vector<std::pair<unsigned long long, size_t>> numbers;  // value, padded width (0 = none)
};

Split split_host(const std::string& host) {
  Split split;
  std::string text;
  size_t i = 0;
  while (i < host.size()) {
    if (!std::isdigit(static_cast<unsigned char>(host[i]))) {
      text += host[i++];
      continue;
    }
    size_t start = i;
    while (i < host.size() && std::isdigit(static_cast<unsigned char>(host[i]))) ++i;
    std::string digits = host.substr(start, i - start);
    if (digits.size() > 18) {  // too long to be a counter: keep it as text
      text += digits;
      continue;
    }
    split.texts.push_back(text);
    text.clear();
    split.numbers.emplace_back(std::stoull(digits), digits.size() > 1 && digits[0] == '0' ? digits.size() : 0);
  }
  split.texts.push_back(text);
  return split;
}

// A field of a compressed name: a set of values of one padding width, or already a bracket text.
struct Field {
  std::vector<unsigned long long> values;  // sorted, unique
  size_t width = 0;

  std::string text() const {
    if (values.size() == 1) return padded(values[0], width);
    std::vector<std::string> ranges;
    for (size_t i = 0; i < values.size();) {
      size_t j = i;
      while (j + 1 < values.size() && values[j + 1] == values[j] + 1) ++j;
      ranges.push_back(i == j ? padded(values[i], width) : padded(values[i], width) + "-" + padded(values[j], width));
      i = j + 1;
    }
    return "[" + join(ranges, ",") + "]";
  }
  bool operator<(const Field& other) const { return std::tie(values, width) < std::tie(other.values, other.width); }
  bool operator==(const Field& other) const { return values == other.values && width == other.width; }
};

struct Item {
  std::vector<std::string> texts;
  std::vector<Field> fields;

  std::string text() const {
    std::string out = texts[0];
    for (size_t i = 0; i < fields.size(); ++i) out += fields[i].text() + texts[i + 1];
    return out;
  }
  bool operator<(const Item& other) const { return std::tie(texts, fields) < std::tie(other.texts, other.fields); }
};

// Merges items that differ only in field `f` (same width there); returns whether anything merged.
bool merge_field(std::vector<Item>& items, size_t f) {
  std::map<std::pair<std::vector<std::string>, std::vector<std::string>>, size_t> index;
  std::vector<Item> merged;
  for (auto& item : items) {
    if (f >= item.fields.size()) {
      merged.push_back(std::move(item));
      continue;
    }
    std::vector<std::string> others;
    for (size_t i = 0; i < item.fields.size(); ++i) others.push_back(i == f ? "w" + std::to_string(item.fields[i].width) : item.fields[i].text());
    auto key = std::make_pair(item.texts, others);
    auto found = index.find(key);
    if (found == index.end()) {
      index.emplace(key, merged.size());
      merged.push_back(std::move(item));
    } else {
      auto& values = merged[found->second].fields[f].values;
      values.insert(values.end(), item.fields[f].values.begin(), item.fields[f].values.end());
    }
  }
  bool changed = merged.size() != items.size();
  for (auto& item : merged) {
    if (f < item.fields.size()) {
      auto& values = item.fields[f].values;
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
    }
  }
  items = std::move(merged);
  return changed;
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view list, std::string_view what, size_t max_hosts) {
  Parser parser(list, what);
  std::vector<std::string> hosts;
  size_t pos = 0;
  while (pos < list.size()) {
    size_t start = pos;
    Pattern pattern = parser.name(pos);
    if (pos == start) parser.fail(pos, "empty name");
    if (count(pattern) > max_hosts - hosts.size()) {
      parser.fail(start, "expands to more than " + std::to_string(max_hosts) + " names");
    }
    std::string prefix;
    expand_pattern(pattern, 0, prefix, hosts);
    if (pos < list.size()) {
      ++pos;  // the comma
      if (pos == list.size()) parser.fail(pos - 1, "trailing ','");
    }
  }
  return hosts;
}

std::string first_host(std::string_view list, std::string_view what) {
  Parser parser(list, what);
  size_t pos = 0;
  Pattern pattern = parser.name(pos);
  if (pos == 0) parser.fail(0, "empty name");
  std::string name(pattern.pieces[0]);
  for (size_t i = 0; i < pattern.groups.size(); ++i) {
    name += padded(pattern.groups[i][0].lo, pattern.groups[i][0].width);
    name += pattern.pieces[i + 1];
  }
  return name;
}

std::string compress_hostlist(const std::vector<std::string>& hosts) {
  std::vector<Item> items;
  std::unordered_set<std::string> seen;
  for (const auto& host : hosts) {
    if (host.empty() || !seen.insert(host).second) continue;
    Split split = split_host(host);
    Item item;
    item.texts = split.texts;
    for (const auto& [value, width] : split.numbers) item.fields.push_back(Field{{value}, width});
    items.push_back(std::move(item));
  }
  // Merge along the rightmost fields first (the usual "nid[001-100]"), then leftwards, until stable:
  // hosts that form a grid end up with one bracket group per varying field.
  for (bool changed = true; changed;) {
    changed = false;
    size_t most_fields = 0;
    for (const auto& item : items) most_fields = std::max(most_fields, item.fields.size());
    for (size_t f = most_fields; f-- > 0;) changed = merge_field(items, f) || changed;
  }
  std::sort(items.begin(), items.end());
  std::vector<std::string> parts;
  for (const auto& item : items) parts.push_back(item.text());
  return join(parts, ",");
}

std::vector<std::string> read_nodefile(std::string_view text) {
  std::vector<std::string> hosts;
  std::unordered_set<std::string> seen;
  for (const auto& line : split(text, '\n')) {
    std::string host = trim(line);
    if (!host.empty() && seen.insert(host).second) hosts.push_back(host);
  }
  return hosts;
}

}  // namespace ezpz
