// A YAML document as a plain tree whose every node knows its source location.
// yaml-cpp stays inside node.cpp: loaders read this tree, and profiles that `extends:` another
// are merged here without losing which file each value came from.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ezpz/util/error.hpp"
#include "ezpz/util/source.hpp"

namespace ezpz::core {

struct MapEntry;

struct YamlNode {
  enum class Kind { null, scalar, sequence, map };

  Kind kind = Kind::null;
  std::string scalar;             // the text of a scalar
  bool quoted = false;            // scalar was written in quotes
  std::vector<YamlNode> items;    // sequence items
  std::vector<MapEntry> entries;  // map entries in document order
  SourceLoc loc;

  bool is_null() const { return kind == Kind::null; }
  bool is_scalar() const { return kind == Kind::scalar; }
  bool is_sequence() const { return kind == Kind::sequence; }
  bool is_map() const { return kind == Kind::map; }

  // The value under `key` in a map, or nullptr.
  const YamlNode* find(std::string_view key) const;
  // "a string 'abc'", "a list", "a map", "nothing": what was found, for error messages.
  std::string describe() const;
};

struct MapEntry {
  std::string key;
  SourceLoc key_loc;
  YamlNode value;
};

// A job spec or profile is a few levels deep and a few hundred values big. Deeper nesting is a
// recursive alias or an attack; more values is an alias bomb.
constexpr int k_max_depth = 64;
constexpr size_t k_max_values = 1'000'000;
constexpr size_t k_max_text_bytes = 16u << 20;  // of all scalars and keys after expansion

// The bounds and the text rule every tree of values is read under, whichever way it came in (a YAML
// file, --set, EZPZ_*, the API's values; docs/limits.md). Each check throws UserError at `loc`.
class ValueBudget {
 public:
  // One more value, `depth` levels down (the document is level 0): at most k_max_depth levels and
  // k_max_values values in all.
  void count_value(int depth, const SourceLoc& loc);
  // `bytes` more of text (a copy of text already checked): at most k_max_text_bytes in all.
  void count_text(size_t bytes, const SourceLoc& loc);
  // One more text (a scalar or a key): counted, and UTF-8 without NUL or CR,
  // as text reaches scripts and JSON records (bash drops a NUL, so the program would get another value,
  // and sbatch refuses CR).
  void check_text(const std::string& text, const SourceLoc& loc);

 private:
  size_t m_values = 0;
  size_t m_text_bytes = 0;
};

// Parses YAML text. A malformed document throws UserError at yaml-cpp's location. An empty document
// is a null node. Offsets shift reported locations (for values embedded in a larger text, like --set).
YamlNode parse_yaml(const SourceRef& source, int line_offset = 0, int column_offset = 0);
// Parses `text`, a part of `source`'s text that starts at line `line_offset` + 1, column `column_offset` + 1.
YamlNode parse_yaml(const SourceRef& source, std::string_view text, int line_offset, int column_offset);

// `overlay` on top of `base`: maps merge key by key, anything else is replaced. A null overlay value
// replaces the base value with null, which readers take as "absent" (or "remove" where that matters). Every node keeps
// the location of the file it came from.
YamlNode merge_nodes(const YamlNode& base, const YamlNode& overlay);

// A scalar node made in code (for built-in defaults), located at `loc`.
YamlNode make_scalar(std::string text, SourceLoc loc);

// --- typed reads that report into Diagnostics; `what` names the key in messages ----------------

// A map, or an error; returns whether `node` is a map.
bool expect_map(const YamlNode& node, std::string_view what, Diagnostics& diagnostics);
// Reports every key of `map` that is not in `allowed`, with a "did you mean" hint.
void check_keys(const YamlNode& map, const std::vector<std::string>& allowed, Diagnostics& diagnostics,
                std::string_view context = {});
std::optional<std::string> read_string(const YamlNode& node, std::string_view what, Diagnostics& diagnostics);
std::optional<long> read_int(const YamlNode& node, std::string_view what, long min, long max, Diagnostics& diagnostics);
std::optional<bool> read_bool(const YamlNode& node, std::string_view what, Diagnostics& diagnostics);
// A list of scalars; a single scalar is accepted as a one-item list when `allow_scalar`.
std::optional<std::vector<std::string>> read_string_list(const YamlNode& node, std::string_view what,
                                                         Diagnostics& diagnostics, bool allow_scalar = false);

}  // namespace ezpz::core

namespace ezpz::core {

// One key of a section and what to do with its (non-null) value.
struct KeyHandler {
  std::string key;
  std::function<void(const YamlNode&)> read;
};

// Reads the map `node` through a table of handlers: unknown keys are reported with a hint, null values
// are skipped (null means "absent"). Returns false when `node` is not a map.
bool read_section(const YamlNode& node, std::string_view what, const std::vector<KeyHandler>& handlers,
                  Diagnostics& diagnostics);

// Told of each section read_section reads (its name and its table's keys, even when the node is not a
// map): how a test lists the keys a reader accepts, to check the docs that list them
// (tests/unit/profile/profile_keys_test.cpp). Sets this thread's observer; returns the one it replaces.
using SectionObserver = std::function<void(std::string_view what, const std::vector<std::string>& keys)>;
SectionObserver observe_sections(SectionObserver observer);

}  // namespace ezpz::core
