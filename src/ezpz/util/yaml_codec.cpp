// LEB128 varints and length-prefixed strings; one tag byte per node.
#include "ezpz/util/yaml_codec.hpp"

#include <cassert>

namespace ezpz::core {
namespace {

enum Tag : char { k_null = 'n', k_scalar = 's', k_quoted = 'q', k_sequence = 'l', k_map = 'm' };

void put_number(std::string& out, unsigned long value) {
  do {
    unsigned char byte = value & 0x7f;
    value >>= 7;
    out += static_cast<char>(byte | (value != 0 ? 0x80 : 0));
  } while (value != 0);
}

void put_text(std::string& out, const std::string& text) {
  put_number(out, text.size());
  out += text;
}

void put_loc(std::string& out, const SourceLoc& loc) {
  put_number(out, static_cast<unsigned long>(loc.line));
  put_number(out, static_cast<unsigned long>(loc.column));
  put_number(out, static_cast<unsigned long>(loc.length));
}

void put_node(std::string& out, const YamlNode& node) {
  switch (node.kind) {
    case YamlNode::Kind::null:
      out += k_null;
      break;
    case YamlNode::Kind::scalar:
      out += node.quoted ? k_quoted : k_scalar;
      break;
    case YamlNode::Kind::sequence:
      out += k_sequence;
      break;
    case YamlNode::Kind::map:
      out += k_map;
      break;
  }
  put_loc(out, node.loc);
  switch (node.kind) {
    case YamlNode::Kind::null:
      break;
    case YamlNode::Kind::scalar:
      put_text(out, node.scalar);
      break;
    case YamlNode::Kind::sequence:
      put_number(out, node.items.size());
      for (const auto& item : node.items) put_node(out, item);
      break;
    case YamlNode::Kind::map:
      put_number(out, node.entries.size());
      for (const auto& entry : node.entries) {
        put_text(out, entry.key);
        put_loc(out, entry.key_loc);
        put_node(out, entry.value);
      }
      break;
  }
}

struct Reader {
  std::string_view data;
  size_t pos = 0;
  const SourceRef& source;

  unsigned long number() {
    unsigned long value = 0;
    for (int shift = 0;; shift += 7) {
      assert(pos < data.size());
      auto byte = static_cast<unsigned char>(data[pos++]);
      value |= static_cast<unsigned long>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
  }
  std::string text() {
    size_t size = number();
    assert(pos + size <= data.size());
    std::string out(data.substr(pos, size));
    pos += size;
    return out;
  }
  SourceLoc loc() {
    SourceLoc result{source, 0, 0, 1};
    result.line = static_cast<int>(number());
    result.column = static_cast<int>(number());
    result.length = static_cast<int>(number());
    return result;
  }
  YamlNode node() {
    assert(pos < data.size());
    char tag = data[pos++];
    YamlNode out;
    out.loc = loc();
    switch (tag) {
      case k_null:
        break;
      case k_quoted:
      case k_scalar:
        out.kind = YamlNode::Kind::scalar;
        out.quoted = tag == k_quoted;
        out.scalar = text();
        break;
      case k_sequence: {
        out.kind = YamlNode::Kind::sequence;
        size_t count = number();
        out.items.reserve(count);
        for (size_t i = 0; i < count; ++i) out.items.push_back(node());
        break;
      }
      case k_map: {
        out.kind = YamlNode::Kind::map;
        size_t count = number();
        out.entries.reserve(count);
        for (size_t i = 0; i < count; ++i) {
          MapEntry entry;
          entry.key = text();
          entry.key_loc = loc();
          entry.value = node();
          out.entries.push_back(std::move(entry));
        }
        break;
      }
      default:
        assert(false && "corrupt encoded node");
    }
    return out;
  }
};

}  // namespace

std::string encode_node(const YamlNode& node) {
  std::string out;
  put_node(out, node);
  return out;
}

YamlNode decode_node(std::string_view data, const SourceRef& source) {
  Reader reader{data, 0, source};
  YamlNode node = reader.node();
  assert(reader.pos == data.size());
  return node;
}

}  // namespace ezpz::core
