// The Mustache subset the templates use: {{name}}, {{.}}, sections {{#name}}…{{/name}} over flags,
// text and lists, inverted sections {{^name}}, comments {{! …}} and partials {{> name}}, with the
// spec's standalone-line rule (a line holding only a section, comment or partial tag disappears).
// Nothing is escaped: values are shell-quoted before they get here (render.cpp).
//
// Why our own: Debian's mstch is a non-PIC static archive that no shared object (libezpz.so, the
// Python module) can link, and kainjow/mustache 4.1 keeps the newline of a skipped section's
// standalone lines. Renders share no state, so they may run concurrently.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace ezpz::core {

// A value a template can show: text, a flag, a list, or a map of named values.
class TemplateValue {
 public:
  TemplateValue() = default;  // false
  TemplateValue(std::string text) : m_kind(Kind::text), m_text(std::move(text)) {}
  TemplateValue(const char* text) : TemplateValue(std::string(text)) {}
  TemplateValue(bool flag) : m_kind(Kind::flag), m_flag(flag) {}
  static TemplateValue list(std::vector<TemplateValue> items);
  static TemplateValue map(std::map<std::string, TemplateValue> entries = {});

  // Sets a map's entry; pre: a map.
  TemplateValue& operator[](const std::string& name) { return m_entries[name]; }

  // A section renders for true, non-empty text, a map and each item of a list (false, "" and [] skip it).
  bool truthy() const;

 private:
  friend class TemplateRenderer;
  enum class Kind { flag, text, list, map };
  Kind m_kind = Kind::flag;
  bool m_flag = false;
  std::string m_text;
  std::vector<TemplateValue> m_items;
  std::map<std::string, TemplateValue> m_entries;
};

// Renders `text` with `context`; `partials` maps names to template texts. Throws UserError naming
// `name` and the line for an unclosed or mismatched section, an unterminated tag or an unknown partial.
std::string render_template(const std::string& name, const std::string& text, const TemplateValue& context,
                            const std::map<std::string, std::string>& partials = {});

}  // namespace ezpz::core
