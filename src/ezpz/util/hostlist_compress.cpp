// Host list compression: names into a compact list with bracket groups.
#include "ezpz/util/hostlist.hpp"

#include <algorithm>
#include <cstddef>

#include "ezpz/util/error.hpp"
#include "ezpz/util/hostlist_number.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

using namespace hostlist_detail;

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

}  // namespace ezpz::core
