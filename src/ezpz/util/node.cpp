// YAML → Node conversion (the only place yaml-cpp is used), merging and typed reads.
#include "ezpz/util/node.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <limits>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "ezpz/util/text.hpp"

namespace ezpz {
namespace {

// A job spec or profile is a few levels deep and a few hundred values big. Deeper nesting is a
// recursive alias (yaml-cpp builds a cyclic node graph) or an attack; more values is an alias bomb.
constexpr int k_max_depth = 64;
constexpr size_t k_max_values = 1'000'000;
constexpr size_t k_max_text_bytes = 16u << 20;  // of all scalars and keys after expansion

struct Converter {
  SourceRef source;
  int line_offset;
  int column_offset;
  mutable size_t values = 0;
  mutable size_t text_bytes = 0;

  SourceLoc at(const YAML::Mark& mark, size_t length) const {
    if (mark.line < 0) return SourceLoc{source, 1, 1, 1};
    int line = mark.line + 1 + line_offset;
    int column = mark.column + 1 + (mark.line == 0 ? column_offset : 0);
    return SourceLoc{source, line, column, static_cast<int>(std::max<size_t>(1, length))};
  }

  // Text that reaches scripts and JSON records must be UTF-8 (a Latin-1 byte is named where it is) and
  // hold no NUL or CR: bash drops a NUL, so the program would get another value, and sbatch refuses CR.
  void check_text(const std::string& text, const YAML::Mark& mark) const {
    if ((text_bytes += text.size()) > k_max_text_bytes) {
      throw UserError(at(mark, 1), "the document expands to more than " + std::to_string(k_max_text_bytes >> 20) +
                                       " MiB of text (aliases repeated inside aliases?)");
    }
    if (std::string problem = text_problem(text); !problem.empty()) {
      throw UserError(at(mark, text.size()), "'" + printable(text) + "' " + problem,
                      is_valid_utf8(text) ? "" : "save the file as UTF-8 (iconv -f latin1 -t utf-8)");
    }
  }

  Node convert(const YAML::Node& yaml, int depth = 0) const {
    if (depth > k_max_depth) {
      throw UserError(at(yaml.Mark(), 1), "nesting deeper than " + std::to_string(k_max_depth) +
                                              " levels (a recursive alias such as 'run: &r [x, *r]'?)");
    }
    if (++values > k_max_values) {
      throw UserError(at(yaml.Mark(), 1), "the document expands to more than " + std::to_string(k_max_values) +
                                              " values (aliases repeated inside aliases?)");
    }
    Node node;
    switch (yaml.Type()) {
      case YAML::NodeType::Scalar:
        node.kind = Node::Kind::scalar;
        node.scalar = yaml.Scalar();
        check_text(node.scalar, yaml.Mark());
        node.quoted = yaml.Tag() == "!";
        node.loc = at(yaml.Mark(), node.scalar.size() + (node.quoted ? 2 : 0));
        break;
      case YAML::NodeType::Sequence:
        node.kind = Node::Kind::sequence;
        node.loc = at(yaml.Mark(), 1);
        for (const auto& item : yaml) node.items.push_back(convert(item, depth + 1));
        break;
      case YAML::NodeType::Map: {
        node.kind = Node::Kind::map;
        node.loc = at(yaml.Mark(), 1);
        std::unordered_map<std::string, int> key_lines;  // a set, not find(): 100,000 keys took 16 s
        for (const auto& entry : yaml) {
          MapEntry converted;
          std::string key = entry.first.IsScalar() ? entry.first.Scalar() : std::string("?");
          check_text(key, entry.first.Mark());
          converted.key_loc = at(entry.first.Mark(), key.size());
          auto [earlier, added] = key_lines.emplace(key, converted.key_loc.line);
          if (!added) {
            throw UserError(converted.key_loc,
                            "duplicate key '" + key + "' (first at line " + std::to_string(earlier->second) + ")");
          }
          converted.key = std::move(key);
          converted.value = convert(entry.second, depth + 1);
          if (converted.value.is_null()) converted.value.loc = converted.key_loc;
          node.entries.push_back(std::move(converted));
        }
        break;
      }
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        node.loc = at(yaml.Mark(), 1);
        break;
    }
    return node;
  }
};

}  // namespace

const Node* Node::find(std::string_view key) const {
  for (const auto& entry : entries) {
    if (entry.key == key) return &entry.value;
  }
  return nullptr;
}

std::string Node::describe() const {
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

// Where each document starts. Only the starts matter: the tree is built by YAML::Load.
struct DocumentStarts : YAML::EventHandler {
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
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
// a 1-byte spec hung `ezpz validate`). The documents are counted here, and reading stops at the second
// one, or at one that starts where the first did.
void check_one_document(std::string_view text, const Converter& converter) {
  std::istringstream in{std::string(text)};
  YAML::Parser parser(in);
  DocumentStarts documents;
  while (documents.starts.size() < 2 && parser.HandleNextDocument(documents)) {
  }
  if (documents.starts.size() < 2) return;
  const YAML::Mark& second = documents.starts[1];
  if (second.pos == documents.starts[0].pos) {
    std::string token = second.pos >= 0 && static_cast<size_t>(second.pos) < text.size()
                            ? printable(std::string(1, text[static_cast<size_t>(second.pos)]))
                            : std::string();
    throw UserError(converter.at(second, 1), "malformed YAML: unexpected '" + token + "'",
                    "a ',' belongs between the items of a [list] or a {map}");
  }
  throw UserError(converter.at(second, 3), "a second YAML document ('---'): ezpz reads one document per file",
                  "put one job in each file, or remove the '---' line");
}

}  // namespace

Node parse_yaml(const SourceRef& source, int line_offset, int column_offset) {
  return parse_yaml(source, source->text, line_offset, column_offset);
}

Node parse_yaml(const SourceRef& source, std::string_view text, int line_offset, int column_offset) {
  Converter converter{source, line_offset, column_offset};
  try {
    check_one_document(text, converter);
    Node node = converter.convert(YAML::Load(std::string(text)));
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

Node merge_nodes(const Node& base, const Node& overlay) {
  if (!base.is_map() || !overlay.is_map()) return overlay;
  Node merged = base;
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

Node make_scalar(std::string text, SourceLoc loc) {
  Node node;
  node.kind = Node::Kind::scalar;
  node.scalar = std::move(text);
  node.loc = std::move(loc);
  return node;
}

bool expect_map(const Node& node, std::string_view what, Diagnostics& diagnostics) {
  if (node.is_map()) return true;
  diagnostics.error(node.loc, "'" + std::string(what) + "' expects a map of keys, found " + node.describe());
  return false;
}

void check_keys(const Node& map, const std::vector<std::string>& allowed, Diagnostics& diagnostics,
                std::string_view context) {
  for (const auto& entry : map.entries) {
    if (std::find(allowed.begin(), allowed.end(), entry.key) != allowed.end()) continue;
    std::string where = context.empty() ? std::string() : " in '" + std::string(context) + "'";
    diagnostics.error(entry.key_loc, "unknown key '" + entry.key + "'" + where, suggestion_hint(entry.key, allowed));
  }
}

std::optional<std::string> read_string(const Node& node, std::string_view what, Diagnostics& diagnostics) {
  if (node.is_scalar()) return node.scalar;
  diagnostics.error(node.loc, "'" + std::string(what) + "' expects a string, found " + node.describe());
  return std::nullopt;
}

std::optional<long> read_int(const Node& node, std::string_view what, long min, long max, Diagnostics& diagnostics) {
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

std::optional<bool> read_bool(const Node& node, std::string_view what, Diagnostics& diagnostics) {
  if (node.is_scalar() && !node.quoted) {
    if (node.scalar == "true" || node.scalar == "yes" || node.scalar == "on") return true;
    if (node.scalar == "false" || node.scalar == "no" || node.scalar == "off") return false;
  }
  diagnostics.error(node.loc, "'" + std::string(what) + "' expects true or false, found " + node.describe());
  return std::nullopt;
}

std::optional<std::vector<std::string>> read_string_list(const Node& node, std::string_view what,
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

}  // namespace ezpz

namespace ezpz {

bool read_section(const Node& node, std::string_view what, const std::vector<KeyHandler>& handlers,
                  Diagnostics& diagnostics) {
  if (!expect_map(node, what, diagnostics)) return false;
  std::vector<std::string> keys;
  for (const auto& handler : handlers) keys.push_back(handler.key);
  check_keys(node, keys, diagnostics, what);
  for (const auto& entry : node.entries) {
    if (entry.value.is_null()) continue;
    for (const auto& handler : handlers) {
      if (handler.key == entry.key) handler.read(entry.value);
    }
  }
  return true;
}

}  // namespace ezpz
