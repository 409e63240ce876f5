// Value: lists and maps.
#include "ezpz/value.hpp"

#include <algorithm>
#include <cassert>

namespace ezpz {

Value Value::list(std::vector<Value> items) {
  Value value;
  value.m_type = Type::list;
  value.m_items = std::move(items);
  return value;
}

Value Value::map(std::vector<std::pair<std::string, Value>> entries) {
  Value value;
  value.m_type = Type::map;
  for (auto& [key, item] : entries) value.set(key, std::move(item));
  return value;
}

void Value::push_back(Value item) {
  assert(m_type == Type::list);
  m_items.push_back(std::move(item));
}

void Value::set(const std::string& key, Value item) {
  assert(m_type == Type::map);
  auto found = std::find(m_keys.begin(), m_keys.end(), key);
  if (found != m_keys.end()) {
    m_items[static_cast<size_t>(found - m_keys.begin())] = std::move(item);
    return;
  }
  m_keys.push_back(key);
  m_items.push_back(std::move(item));
}

}  // namespace ezpz
