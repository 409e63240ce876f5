// ezpz/value.hpp: a spec given as data instead of YAML text (a dict from Python, a config object).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace ezpz {

// A tree of null, booleans, integers, numbers, strings, lists and maps (keys in insertion order).
// A value type; copies are deep.
class Value {
 public:
  enum class Type { null, boolean, integer, number, string, list, map };

  Value() = default;  // null
  Value(bool value) : m_type(Type::boolean), m_bool(value) {}
  Value(int value) : m_type(Type::integer), m_int(value) {}
  Value(long value) : m_type(Type::integer), m_int(value) {}
  Value(long long value) : m_type(Type::integer), m_int(value) {}
  Value(unsigned value) : m_type(Type::integer), m_int(value) {}
  Value(unsigned long value) : m_type(Type::integer), m_int(static_cast<long long>(value)) {}       // pre: <= LLONG_MAX
  Value(unsigned long long value) : m_type(Type::integer), m_int(static_cast<long long>(value)) {}  // as above
  Value(double value) : m_type(Type::number), m_number(value) {}
  Value(const char* value) : m_type(Type::string), m_string(value) {}
  Value(std::string value) : m_type(Type::string), m_string(std::move(value)) {}

  static Value list(std::vector<Value> items = {});
  // A map from key/value pairs; a key given twice keeps its last value.
  static Value map(std::vector<std::pair<std::string, Value>> entries = {});

  Type type() const noexcept { return m_type; }
  bool as_bool() const noexcept { return m_bool; }                          // pre: type() == boolean
  long long as_int() const noexcept { return m_int; }                       // pre: type() == integer
  double as_number() const noexcept { return m_number; }                    // pre: type() == number
  const std::string& as_string() const noexcept { return m_string; }        // pre: type() == string
  const std::vector<Value>& items() const noexcept { return m_items; }      // list items, or map values
  const std::vector<std::string>& keys() const noexcept { return m_keys; }  // map keys (keys()[i] → items()[i])

  // Appends to a list; pre: type() == list.
  void push_back(Value item);
  // Sets `key` in a map (replacing its value if present); pre: type() == map.
  void set(const std::string& key, Value item);

 private:
  Type m_type = Type::null;
  bool m_bool = false;
  long long m_int = 0;
  double m_number = 0;
  std::string m_string;
  std::vector<Value> m_items;
  std::vector<std::string> m_keys;
};

}  // namespace ezpz
