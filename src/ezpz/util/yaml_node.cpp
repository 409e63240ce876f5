// YAML → YamlNode conversion (the only place yaml-cpp is used), merging and typed reads.
#include "ezpz/util/yaml_node.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

SourceLoc point(SourceLoc loc) {
  loc.length = 1;
  return loc;
}

struct Converter {
  SourceRef source;
  int line_offset;
  int column_offset;
  ValueBudget budget;

  SourceLoc at(const YAML::Mark& mark, size_t length) const {
    if (mark.line < 0) return SourceLoc{source, 1, 1, 1};
    int line = mark.line + 1 + line_offset;
    int column = mark.column + 1 + (mark.line == 0 ? column_offset : 0);
    return SourceLoc{source, line, column, static_cast<int>(std::max<size_t>(1, length))};
  }

  // Every value counts once where it stands (keys do not), so an alias counts its whole target again.
  void count_value(int depth, const SourceLoc& loc) { budget.count_value(depth, loc); }
  void count_text(size_t bytes, const SourceLoc& loc) { budget.count_text(bytes, loc); }
  void check_text(const std::string& text, const YAML::Mark& mark) { budget.check_text(text, at(mark, text.size())); }
};

// Builds the YamlNode tree from yaml-cpp's parser events in one pass. An alias is a copy of its anchor's
// finished node, counted and depth-checked like written-out text, so an alias bomb stops at the caps;
// an alias inside its own anchor ('run: &r [x, *r]') is refused where it stands.
class TreeBuilder : public YAML::EventHandler {
 public:
  explicit TreeBuilder(Converter& converter) : m_converter(converter) {}

  YAML::Mark document_start;
  YamlNode root;

  void OnDocumentStart(const YAML::Mark& mark) override { document_start = mark; }
  void OnDocumentEnd() override {}
  void OnAnchor(const YAML::Mark&, const std::string& name) override { m_pending_anchor_name = name; }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    YamlNode node;
    node.loc = m_converter.at(mark, 1);
    count_here(node.loc);
    finish(std::move(node), anchor);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    YamlNode node;
    node.kind = YamlNode::Kind::scalar;
    node.quoted = tag == "!";
    node.loc = m_converter.at(mark, value.size() + (node.quoted ? 2 : 0));
    count_here(node.loc);
    m_converter.check_text(value, mark);
    node.scalar = value;
    finish(std::move(node), anchor);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto target = m_anchors.find(anchor);
    if (target == m_anchors.end()) {
      throw UserError(
          m_converter.at(mark, 1),
          "recursive alias '*" + m_names[anchor] + "': it stands inside the node it names, which would never end",
          "an alias may name only a node that is complete before it");
    }
    bool key = awaiting_key();
    finish(copy(target->second, depth(), key), 0);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(YamlNode::Kind::sequence, mark, anchor);
  }
  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(YamlNode::Kind::map, mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    YamlNode node;
    YAML::anchor_t anchor = 0;
    std::optional<YamlNode> key;                     // maps: the key whose value comes next
    std::unordered_map<std::string, int> key_lines;  // maps: a set, not find(): 100,000 keys took 16 s
  };

  Converter& m_converter;
  std::vector<Frame> m_open;
  std::unordered_map<YAML::anchor_t, YamlNode> m_anchors;
  std::unordered_map<YAML::anchor_t, std::string> m_names;
  std::string m_pending_anchor_name;

  int depth() const { return static_cast<int>(m_open.size()); }
  bool awaiting_key() const { return !m_open.empty() && m_open.back().node.is_map() && !m_open.back().key; }

  void count_here(const SourceLoc& loc) {
    if (!awaiting_key()) m_converter.count_value(depth(), loc);
  }

  void name(YAML::anchor_t anchor) {
    if (anchor != 0) m_names[anchor] = std::move(m_pending_anchor_name);
    m_pending_anchor_name.clear();
  }

  void open(YamlNode::Kind kind, const YAML::Mark& mark, YAML::anchor_t anchor) {
    Frame frame;
    frame.node.kind = kind;
    frame.node.loc = m_converter.at(mark, 1);
    frame.anchor = anchor;
    count_here(frame.node.loc);
    name(anchor);
    m_open.push_back(std::move(frame));
  }

  void close() {
    Frame frame = std::move(m_open.back());
    m_open.pop_back();
    if (frame.anchor != 0) m_anchors[frame.anchor] = frame.node;
    place(std::move(frame.node));
  }

  void finish(YamlNode node, YAML::anchor_t anchor) {
    if (anchor != 0) {
      name(anchor);
      m_anchors[anchor] = node;
    }
    place(std::move(node));
  }

  // Puts a finished node where it belongs: the root, a list item, a map key, or the value of that key.
  void place(YamlNode node) {
    if (m_open.empty()) {
      root = std::move(node);
      return;
    }
    Frame& parent = m_open.back();
    if (parent.node.is_sequence()) {
      parent.node.items.push_back(std::move(node));
    } else if (!parent.key) {
      parent.key = std::move(node);
    } else {
      MapEntry entry;
      entry.key = parent.key->is_scalar() ? std::move(parent.key->scalar) : std::string("?");
      entry.key_loc = parent.key->loc;
      entry.key_loc.length = static_cast<int>(std::max<size_t>(1, entry.key.size()));
      parent.key.reset();
      auto [earlier, added] = parent.key_lines.emplace(entry.key, entry.key_loc.line);
      if (!added) {
        throw UserError(entry.key_loc,
                        "duplicate key '" + entry.key + "' (first at line " + std::to_string(earlier->second) + ")");
      }
      entry.value = std::move(node);
      if (entry.value.is_null()) entry.value.loc = entry.key_loc;
      parent.node.entries.push_back(std::move(entry));
    }
  }

  // A copy of an anchored node for an alias at `at_depth`, counted as if it were written out there.
  YamlNode copy(const YamlNode& from, int at_depth, bool is_key) {
    if (!is_key) m_converter.count_value(at_depth, from.loc);
    YamlNode node;
    node.kind = from.kind;
    node.quoted = from.quoted;
    node.loc = from.loc;
    if (from.is_scalar()) {
      m_converter.count_text(from.scalar.size(), from.loc);
      node.scalar = from.scalar;
    }
    node.items.reserve(from.items.size());
    for (const auto& item : from.items) node.items.push_back(copy(item, at_depth + 1, false));
    node.entries.reserve(from.entries.size());
    for (const auto& entry : from.entries) {
      m_converter.count_text(entry.key.size(), entry.key_loc);
      node.entries.push_back(MapEntry{entry.key, entry.key_loc, copy(entry.value, at_depth + 1, false)});
    }
    return node;
  }
};

}  // namespace

void ValueBudget::count_value(int depth, const SourceLoc& loc) {
  if (depth > k_max_depth) {
    throw UserError(point(loc), "nesting deeper than " + std::to_string(k_max_depth) + " levels");
  }
  if (++m_values > k_max_values) {
    throw UserError(point(loc), "the document expands to more than " + std::to_string(k_max_values) +
                                    " values (aliases repeated inside aliases?)");
  }
}

void ValueBudget::count_text(size_t bytes, const SourceLoc& loc) {
  if ((m_text_bytes += bytes) > k_max_text_bytes) {
    throw UserError(point(loc), "the document expands to more than " + std::to_string(k_max_text_bytes >> 20) +
                                    " MiB of text (aliases repeated inside aliases?)");
  }
}

void ValueBudget::check_text(const std::string& text, const SourceLoc& loc) {
  count_text(text.size(), loc);
  if (std::string problem = text_problem(text); !problem.empty()) {
    throw UserError(loc, "'" + printable(text) + "' " + problem,
                    is_valid_utf8(text) ? "" : "save the file as UTF-8 (iconv -f latin1 -t utf-8)");
  }
}

const YamlNode* YamlNode::find(std::string_view key) const {
  for (const auto& entry : entries) {
    if (entry.key == key) return &entry.value;
  }
  return nullptr;
}

std::string YamlNode::describe() const {
  switch (kind) {
    case Kind::scalar:
      return "'" + scalar + "'";
    case Kind::sequence:
      return "a list";
    case Kind::map:
      return "a map";
    case Kind::null:
      break;
  }
  return "nothing";
}

namespace {

// What follows the first document: only where the next one starts matters, so reading stops there.
struct NextDocument : YAML::EventHandler {
  struct Found {
    YAML::Mark start;
  };
  void OnDocumentStart(const YAML::Mark& mark) override { throw Found{mark}; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// ezpz reads one document per file. Not through YAML::LoadAll: yaml-cpp 0.7 gives a ',' outside
// brackets as an empty document that consumes nothing, so LoadAll never returns (found by fuzz_spec;
// a 1-byte spec hung `ezpz validate`). A second document, or one that starts where the first did, is
// an error.
void check_no_second_document(YAML::Parser& parser, const YAML::Mark& first, std::string_view text,
                              const Converter& converter) {
  NextDocument next;
  try {
    parser.HandleNextDocument(next);
    return;
  } catch (const NextDocument::Found& found) {
    const YAML::Mark& second = found.start;
    if (second.pos == first.pos) {
      std::string token = second.pos >= 0 && static_cast<size_t>(second.pos) < text.size()
                              ? printable(std::string(1, text[static_cast<size_t>(second.pos)]))
                              : std::string();
      throw UserError(converter.at(second, 1), "malformed YAML: unexpected '" + token + "'",
                      "a ',' belongs between the items of a [list] or a {map}");
    }
    throw UserError(converter.at(second, 3), "a second YAML document ('---'): ezpz reads one document per file",
                    "put one job in each file, or remove the '---' line");
  }
}

}  // namespace

YamlNode parse_yaml(const SourceRef& source, int line_offset, int column_offset) {
  return parse_yaml(source, source->text, line_offset, column_offset);
}

YamlNode parse_yaml(const SourceRef& source, std::string_view text, int line_offset, int column_offset) {
  Converter converter{source, line_offset, column_offset};
  try {
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    TreeBuilder builder(converter);
    YamlNode node;
    if (parser.HandleNextDocument(builder)) {
      check_no_second_document(parser, builder.document_start, text, converter);
      node = std::move(builder.root);
    }
    if (node.is_null()) node.loc = SourceLoc{source, 0, 0, 1};
    return node;
  } catch (const YAML::DeepRecursion& error) {
    // yaml-cpp's own guard (its text is "bad file"), before ezpz's limit can say it.
    throw UserError(converter.at(error.mark, 1), "nesting deeper than " + std::to_string(k_max_depth) + " levels");
  } catch (const YAML::Exception& error) {
    SourceLoc loc = converter.at(error.mark, 1);
    throw UserError(loc, "malformed YAML: " + error.msg);
  }
}

YamlNode merge_nodes(const YamlNode& base, const YamlNode& overlay) {
  if (!base.is_map() || !overlay.is_map()) return overlay;
  YamlNode merged = base;
  for (const auto& entry : overlay.entries) {
    auto existing = std::find_if(merged.entries.begin(), merged.entries.end(),
                                 [&](const MapEntry& e) { return e.key == entry.key; });
    if (existing != merged.entries.end() && entry.value.is_null()) {
      existing->value = entry.value;  // null stays as a marker: "removed" for every later layer too
    } else if (existing != merged.entries.end()) {
      existing->value = merge_nodes(existing->value, entry.value);
    } else {
      merged.entries.push_back(entry);
    }
  }
  return merged;
}

YamlNode make_scalar(std::string text, SourceLoc loc) {
  YamlNode node;
  node.kind = YamlNode::Kind::scalar;
  node.scalar = std::move(text);
  node.loc = std::move(loc);
  return node;
}

bool expect_map(const YamlNode& node, std::string_view what, Diagnostics& diagnostics) {
  if (node.is_map()) return true;
  diagnostics.error(node.loc, "'" + std::string(what) + "' expects a map of keys, found " + node.describe());
  return false;
}

void check_keys(const YamlNode& map, const std::vector<std::string>& allowed, Diagnostics& diagnostics,
                std::string_view context) {
  for (const auto& entry : map.entries) {
    if (std::find(allowed.begin(), allowed.end(), entry.key) != allowed.end()) continue;
    std::string where = context.empty() ? std::string() : " in '" + std::string(context) + "'";
    diagnostics.error(entry.key_loc, "unknown key '" + entry.key + "'" + where, suggestion_hint(entry.key, allowed));
  }
}

std::optional<std::string> read_string(const YamlNode& node, std::string_view what, Diagnostics& diagnostics) {
  if (node.is_scalar()) return node.scalar;
  diagnostics.error(node.loc, "'" + std::string(what) + "' expects a string, found " + node.describe());
  return std::nullopt;
}

std::optional<long> read_int(const YamlNode& node, std::string_view what, long min, long max,
                             Diagnostics& diagnostics) {
  std::string expected = min == 1 && max == std::numeric_limits<long>::max() ? "a positive integer"
                         : max == std::numeric_limits<long>::max()
                             ? "an integer of at least " + std::to_string(min)
                             : "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  std::string digits = node.is_scalar() ? trim(node.scalar) : std::string();
  if (!digits.empty() && digits.size() < 18 &&
      std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    long value = std::stol(digits);
    if (value >= min && value <= max) return value;
  }
  diagnostics.error(node.loc, "'" + std::string(what) + "' expects " + expected + ", found " + node.describe());
  return std::nullopt;
}

std::optional<bool> read_bool(const YamlNode& node, std::string_view what, Diagnostics& diagnostics) {
  if (node.is_scalar() && !node.quoted) {
    if (node.scalar == "true" || node.scalar == "yes" || node.scalar == "on") return true;
    if (node.scalar == "false" || node.scalar == "no" || node.scalar == "off") return false;
  }
  diagnostics.error(node.loc, "'" + std::string(what) + "' expects true or false, found " + node.describe());
  return std::nullopt;
}

std::optional<std::vector<std::string>> read_string_list(const YamlNode& node, std::string_view what,
                                                         Diagnostics& diagnostics, bool allow_scalar) {
  if (allow_scalar && node.is_scalar()) return std::vector<std::string>{node.scalar};
  if (!node.is_sequence()) {
    diagnostics.error(node.loc, "'" + std::string(what) + "' expects a list of strings, found " + node.describe());
    return std::nullopt;
  }
  std::vector<std::string> values;
  bool ok = true;
  for (const auto& item : node.items) {
    if (item.is_scalar()) {
      values.push_back(item.scalar);
    } else {
      diagnostics.error(
          item.loc, "'" + std::string(what) + "' expects a list of strings, found " + item.describe() + " as an item");
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return values;
}

namespace {
thread_local SectionObserver t_section_observer;
}  // namespace

SectionObserver observe_sections(SectionObserver observer) {
  std::swap(observer, t_section_observer);
  return observer;
}

bool read_section(const YamlNode& node, std::string_view what, const std::vector<KeyHandler>& handlers,
                  Diagnostics& diagnostics) {
  std::vector<std::string> keys;
  for (const auto& handler : handlers) keys.push_back(handler.key);
  if (t_section_observer) t_section_observer(what, keys);
  if (!expect_map(node, what, diagnostics)) return false;
  check_keys(node, keys, diagnostics, what);
  for (const auto& entry : node.entries) {
    if (entry.value.is_null()) continue;
    for (const auto& handler : handlers) {
      if (handler.key == entry.key) handler.read(entry.value);
    }
  }
  return true;
}

}  // namespace ezpz::core
