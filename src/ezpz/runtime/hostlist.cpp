// Host list expansion and compression.
#include "ezpz/runtime/hostlist.hpp"

#include <algorithm>
#include <cstddef>
#include <unordered_set>

#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
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
// Characters that mean something in a list (',', '[', ']') or cannot be in a name (whitespace): one
// table lookup per character on the hot paths.
struct SpecialTable {
  bool special[256] = {};
  constexpr SpecialTable() {
    for (unsigned char c : {',', '[', ']', ' ', '\t', '\n', '\v', '\f', '\r'}) special[c] = true;
  }
};
constexpr SpecialTable k_special;
bool is_special(char c) {
  return k_special.special[static_cast<unsigned char>(c)];
}

// a * b, saturating at k_count_cap (neither factor is above it).
Count times(Count a, Count b) {
  return b != 0 && a > k_count_cap / b ? k_count_cap : a * b;
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
      for (size_t r = 0; r < grp.ranges; ++r) widest = std::max({widest, range(grp, r).width, digit_count(range(grp, r).hi)});
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

// --- compression -------------------------------------------------------------------------------

// A digit run of a host name: its value and how many digits it was written with (leading zeros).
struct Number {
  Count value;
  size_t length;
  bool operator==(const Number& other) const { return value == other.value && length == other.length; }
  bool operator!=(const Number& other) const { return !(*this == other); }
};

// Every host split into text pieces and digit runs, flat: host h has fields[h] numbers starting at
// numbers[first_number[h]] and fields[h] + 1 texts (views into the host name) starting at
// texts[first_number[h] + h]. Digit runs too long to be counters stay text.
struct Split {
  std::vector<std::string_view> texts;
  std::vector<Number> numbers;
  std::vector<size_t> first_number;
  std::vector<size_t> fields;

  size_t first_text(size_t host) const { return first_number[host] + host; }

  // Room for `hosts` names shaped like `sample` (the names of one list usually share their shape).
  void reserve(size_t hosts, std::string_view sample) {
    size_t runs = 0;
    for (size_t i = 0; i < sample.size(); ++i) runs += is_digit(sample[i]) && (i == 0 || !is_digit(sample[i - 1]));
    texts.reserve((runs + 1) * hosts);
    numbers.reserve(runs * hosts);
    first_number.reserve(hosts);
    fields.reserve(hosts);
  }

  // Adds `host`; returns the position of a character no list could hold (then nothing is usable), or npos.
  size_t add(std::string_view host) {
    first_number.push_back(numbers.size());
    size_t text = 0;
    size_t i = 0;
    while (i < host.size()) {
      if (!is_digit(host[i])) {
        if (is_special(host[i])) return i;
        ++i;
        continue;
      }
      size_t start = i;
      Count value = 0;  // wraps for runs too long to be counters, which stay text anyway
      for (; i < host.size() && is_digit(host[i]); ++i) value = value * 10 + static_cast<Count>(host[i] - '0');
      if (i - start > k_max_digits) continue;
      texts.push_back(host.substr(text, start - text));
      numbers.push_back(Number{value, i - start});
      text = i;
    }
    texts.push_back(host.substr(text));
    fields.push_back(numbers.size() - first_number.back());
    return std::string_view::npos;
  }

  // Text pieces are short ("nid", "c", "b0n"): compared inline rather than through memcmp.
  static int compare_text(std::string_view a, std::string_view b) {
    size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; ++i) {
      if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]) ? -1 : 1;
    }
    return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
  }

  // The order of compressed lists: text pieces as text, digit runs by value and then by written
  // length ("nid9" < "nid10" < "nid010").
  bool less(size_t a, size_t b) const {
    size_t n = std::min(fields[a], fields[b]);
    const std::string_view* ta = &texts[first_text(a)];
    const std::string_view* tb = &texts[first_text(b)];
    const Number* na = numbers.data() + first_number[a];  // not numbers[…]: may be one past the end
    const Number* nb = numbers.data() + first_number[b];
    for (size_t i = 0;; ++i) {
      int order = compare_text(ta[i], tb[i]);
      if (order != 0) return order < 0;
      if (i == n) break;
      if (na[i].value != nb[i].value) return na[i].value < nb[i].value;
      if (na[i].length != nb[i].length) return na[i].length < nb[i].length;
    }
    return fields[a] < fields[b];
  }

  bool same_texts(size_t a, size_t b) const {
    if (fields[a] != fields[b]) return false;
    const std::string_view* ta = &texts[first_text(a)];
    const std::string_view* tb = &texts[first_text(b)];
    for (size_t i = 0; i <= fields[a]; ++i) {
      if (compare_text(ta[i], tb[i]) != 0) return false;
    }
    return true;
  }
};

// A name of the compressed list: the texts of host `host`, and for each of its fields a run of
// values (one, or several once neighbours were merged) in a shared array.
struct Item {
  size_t host;
  size_t first_span;
};
struct Span {
  size_t begin;
  size_t count;
};

struct Items {
  std::vector<Item> items;
  std::vector<Span> spans;
  std::vector<Number> values;

  const Span& span(const Item& item, size_t field) const { return spans[item.first_span + field]; }
  bool same_values(const Span& a, const Span& b) const {
    return a.count == b.count &&
           std::equal(values.data() + a.begin, values.data() + a.begin + a.count, values.data() + b.begin);
  }
};

// Whether `a` and `b` differ in field `f` only.
bool mergeable(const Split& split, const Items& items, const Item& a, const Item& b, size_t f) {
  size_t fields = split.fields[a.host];
  if (f >= fields || split.fields[b.host] != fields) return false;
  // Neighbours differ in their numbers far more often than in their texts: numbers first.
  for (size_t g = 0; g < fields; ++g) {
    if (g != f && !items.same_values(items.span(a, g), items.span(b, g))) return false;
  }
  return split.same_texts(a.host, b.host);
}

// Merges runs of neighbours that differ in field `f` only into one item. Returns false, leaving
// `items` as they are, when no neighbours do (a field that never varies, like "b0" in Cray names).
bool merge_field(const Split& split, Items& items, size_t f) {
  bool any = false;
  for (size_t i = 0; i + 1 < items.items.size() && !any; ++i) {
    any = mergeable(split, items, items.items[i], items.items[i + 1], f);
  }
  if (!any) return false;
  const Items& in = items;
  Items out;
  out.items.reserve(in.items.size());
  out.spans.reserve(in.spans.size());
  out.values.reserve(in.values.size());
  auto copy = [&](const Span& span) {
    for (size_t k = 0; k < span.count; ++k) out.values.push_back(in.values[span.begin + k]);  // mostly 1
  };
  for (size_t i = 0; i < in.items.size();) {
    const Item& first = in.items[i];
    size_t j = i + 1;
    while (j < in.items.size() && mergeable(split, in, first, in.items[j], f)) ++j;
    out.items.push_back(Item{first.host, out.spans.size()});
    for (size_t g = 0; g < split.fields[first.host]; ++g) {
      Span span{out.values.size(), 0};
      for (size_t k = i; k < (g == f ? j : i + 1); ++k) copy(in.span(in.items[k], g));
      span.count = out.values.size() - span.begin;
      out.spans.push_back(span);
    }
    i = j;
  }
  items = std::move(out);
  return true;
}

// Whether a range of width `width` prints `number` as it was written: padded to exactly that width, or
// wider without leading zeros.
bool prints_as(const Number& number, size_t width) {
  return number.length == width || (number.length > width && number.length == digit_count(number.value));
}

// Appends a field: its one number as written, or a bracket group of ranges. A range continues while the
// next value is one more and is written exactly as the range's width prints it.
void append_field(std::string& out, const Number* values, size_t count) {
  if (count == 1) {
    append_number(out, values[0].value, values[0].length);
    return;
  }
  out += '[';
  for (size_t i = 0; i < count;) {
    size_t width = values[i].length;
    size_t j = i;
    while (j + 1 < count && values[j + 1].value == values[j].value + 1 && prints_as(values[j + 1], width)) ++j;
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

std::string compress_hostlist(const std::vector<std::string>& hosts) {
  Split split;
  split.reserve(hosts.size(), hosts.empty() ? std::string_view() : std::string_view(hosts.front()));
  std::vector<size_t> order;
  order.reserve(hosts.size());
  size_t most_fields = 0;
  for (size_t h = 0; h < hosts.size(); ++h) {
    size_t bad = split.add(hosts[h]);
    if (bad != std::string_view::npos) {
      throw UserError(
          "cannot compress host name '" + printable(hosts[h]) + "': it contains " + quoted_char(hosts[h][bad]),
          "host names in a list cannot contain ',', '[', ']' or whitespace");
    }
    if (hosts[h].empty()) continue;
    order.push_back(h);
    most_fields = std::max(most_fields, split.fields.back());
  }
  // Lists from schedulers and from expand_hostlist usually come sorted already.
  auto less = [&split](size_t a, size_t b) { return split.less(a, b); };
  if (!std::is_sorted(order.begin(), order.end(), less)) std::sort(order.begin(), order.end(), less);
  order.erase(std::unique(order.begin(), order.end(), [&hosts](size_t a, size_t b) { return hosts[a] == hosts[b]; }),
              order.end());

  Items items;
  items.items.reserve(order.size());
  items.spans.reserve(split.numbers.size());
  items.values = split.numbers;
  for (size_t h : order) {
    items.items.push_back(Item{h, items.spans.size()});
    for (size_t g = 0; g < split.fields[h]; ++g) items.spans.push_back(Span{split.first_number[h] + g, 1});
  }
  // Merge neighbours that differ in one field, rightmost field first ("nid[001-100]"), then leftwards:
  // hosts that form a grid end with one bracket group per varying field. Merging only neighbours keeps
  // the order, so the expansion of the result is the sorted list again.
  for (size_t f = most_fields; f-- > 0;) merge_field(split, items, f);

  std::string out;
  for (const auto& item : items.items) {
    if (!out.empty()) out += ',';
    const std::string_view* texts = &split.texts[split.first_text(item.host)];
    out += texts[0];
    for (size_t g = 0; g < split.fields[item.host]; ++g) {
      const Span& span = items.span(item, g);
      append_field(out, &items.values[span.begin], span.count);
      out += texts[g + 1];
    }
  }
  return out;
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
