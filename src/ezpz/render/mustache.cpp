// A small Mustache renderer (see mustache.hpp for why it is ours).
#include "ezpz/render/mustache.hpp"

#include <algorithm>

#include "ezpz/util/error.hpp"

namespace ezpz::core {

TemplateValue TemplateValue::list(std::vector<TemplateValue> items) {
  TemplateValue value;
  value.m_kind = Kind::list;
  value.m_items = std::move(items);
  return value;
}

TemplateValue TemplateValue::map(std::map<std::string, TemplateValue> entries) {
  TemplateValue value;
  value.m_kind = Kind::map;
  value.m_entries = std::move(entries);
  return value;
}

bool TemplateValue::truthy() const {
  switch (m_kind) {
    case Kind::flag:
      return m_flag;
    case Kind::text:
      return !m_text.empty();
    case Kind::list:
      return !m_items.empty();
    case Kind::map:
      return true;
  }
  return false;
}

namespace {

enum class TokenKind { text, variable, section, inverted, close, partial, comment };

struct Token {
  TokenKind kind;
  std::string text;  // the text, or the tag's name
  int line;          // where it starts (1-based), for messages
};

bool standalone_kind(TokenKind kind) {
  return kind != TokenKind::text && kind != TokenKind::variable;
}
bool blank(char c) {
  return c == ' ' || c == '\t';
}

std::string trimmed(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

std::vector<Token> tokenize(const std::string& name, const std::string& text) {
  std::vector<Token> tokens;
  size_t at = 0;
  int line = 1;
  auto advance_lines = [&](size_t from, size_t to) {
    line += static_cast<int>(
        std::count(text.begin() + static_cast<long>(from), text.begin() + static_cast<long>(to), '\n'));
  };
  while (at < text.size()) {
    size_t open = text.find("{{", at);
    if (open == std::string::npos) open = text.size();
    if (open > at) tokens.push_back({TokenKind::text, text.substr(at, open - at), line});
    advance_lines(at, open);
    if (open == text.size()) break;
    size_t close = text.find("}}", open + 2);
    if (close == std::string::npos) throw UserError(name + ":" + std::to_string(line) + ": unterminated Mustache tag");
    std::string tag = text.substr(open + 2, close - open - 2);
    static const std::pair<char, TokenKind> k_sigils[] = {{'#', TokenKind::section}, {'^', TokenKind::inverted},
                                                          {'/', TokenKind::close},   {'>', TokenKind::partial},
                                                          {'!', TokenKind::comment}, {'&', TokenKind::variable}};
    TokenKind kind = TokenKind::variable;
    for (const auto& [sigil, sigil_kind] : k_sigils) {
      if (!tag.empty() && tag[0] == sigil) {
        kind = sigil_kind;
        tag.erase(0, 1);
        break;
      }
    }
    tokens.push_back({kind, trimmed(tag), line});
    advance_lines(open, close);
    at = close + 2;
  }
  return tokens;
}

// The spec's standalone lines: a section, inverted, close, comment or partial tag alone on its line
// (only blanks around it) takes the whole line with it, newline included. Decided on the original
// texts first, then applied, so that adjacent standalone lines see each other's untouched text.
void remove_standalone_lines(std::vector<Token>& tokens) {
  struct Cut {
    size_t before;  // characters to drop at the end of the previous text token
    size_t after;   // characters to drop at the start of the next text token
  };
  std::vector<std::pair<size_t, Cut>> cuts;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (!standalone_kind(tokens[i].kind)) continue;
    size_t before = 0;
    if (i > 0) {
      if (tokens[i - 1].kind != TokenKind::text) continue;
      const std::string& prev = tokens[i - 1].text;
      size_t newline = prev.find_last_of('\n');
      size_t start = newline == std::string::npos ? 0 : newline + 1;
      if (newline == std::string::npos && i - 1 > 0) continue;  // the line began with another tag
      if (!std::all_of(prev.begin() + static_cast<long>(start), prev.end(), blank)) continue;
      before = prev.size() - start;
    }
    size_t after = 0;
    if (i + 1 < tokens.size()) {
      if (tokens[i + 1].kind != TokenKind::text) continue;
      const std::string& next = tokens[i + 1].text;
      size_t end = 0;
      while (end < next.size() && blank(next[end])) ++end;
      if (end < next.size() && next[end] == '\r' && end + 1 < next.size() && next[end + 1] == '\n') ++end;
      if (end < next.size() && next[end] == '\n') {
        after = end + 1;
      } else if (end == next.size() && i + 2 == tokens.size()) {
        after = end;  // the template's last line
      } else {
        continue;
      }
    }
    cuts.push_back({i, Cut{before, after}});
  }
  for (const auto& [i, cut] : cuts) {
    if (cut.before > 0) tokens[i - 1].text.erase(tokens[i - 1].text.size() - cut.before);
    if (cut.after > 0) tokens[i + 1].text.erase(0, cut.after);
  }
}

}  // namespace

class TemplateRenderer {
 public:
  TemplateRenderer(const std::map<std::string, std::string>& partials) : m_partials(partials) {}

  void render(const std::string& name, const std::string& text, std::vector<const TemplateValue*>& stack,
              std::string& out, int depth) {
    if (depth > 16) throw UserError(name + ": Mustache partials nest more than 16 deep");
    std::vector<Token> tokens = tokenize(name, text);
    remove_standalone_lines(tokens);
    render_range(name, tokens, 0, tokens.size(), stack, out, depth);
  }

 private:
  const TemplateValue* lookup(const std::vector<const TemplateValue*>& stack, const std::string& key) const {
    if (key == ".") return stack.back();
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
      if ((*it)->m_kind != TemplateValue::Kind::map) continue;
      auto found = (*it)->m_entries.find(key);
      if (found != (*it)->m_entries.end()) return &found->second;
    }
    return nullptr;
  }

  // The index of the close tag matching the section opened at `open`.
  size_t matching_close(const std::string& name, const std::vector<Token>& tokens, size_t open, size_t end) const {
    int depth = 0;
    for (size_t i = open + 1; i < end; ++i) {
      const Token& token = tokens[i];
      if (token.kind == TokenKind::section || token.kind == TokenKind::inverted) ++depth;
      if (token.kind != TokenKind::close) continue;
      if (depth > 0) {
        --depth;
        continue;
      }
      if (token.text != tokens[open].text) {
        throw UserError(name + ":" + std::to_string(token.line) + ": Mustache section '" + tokens[open].text +
                        "' is closed by '" + token.text + "'");
      }
      return i;
    }
    throw UserError(name + ":" + std::to_string(tokens[open].line) + ": Mustache section '" + tokens[open].text +
                    "' is not closed");
  }

  void render_range(const std::string& name, const std::vector<Token>& tokens, size_t begin, size_t end,
                    std::vector<const TemplateValue*>& stack, std::string& out, int depth) {
    for (size_t i = begin; i < end; ++i) {
      const Token& token = tokens[i];
      switch (token.kind) {
        case TokenKind::text:
          out += token.text;
          break;
        case TokenKind::variable:
          if (const TemplateValue* value = lookup(stack, token.text);
              value != nullptr && value->m_kind == TemplateValue::Kind::text) {
            out += value->m_text;
          }
          break;
        case TokenKind::section:
        case TokenKind::inverted: {
          size_t close = matching_close(name, tokens, i, end);
          const TemplateValue* value = lookup(stack, token.text);
          bool on = value != nullptr && value->truthy();
          if (token.kind == TokenKind::inverted) {
            if (!on) render_range(name, tokens, i + 1, close, stack, out, depth);
          } else if (on && value->m_kind == TemplateValue::Kind::list) {
            for (const auto& item : value->m_items) {
              stack.push_back(&item);
              render_range(name, tokens, i + 1, close, stack, out, depth);
              stack.pop_back();
            }
          } else if (on) {
            stack.push_back(value);
            render_range(name, tokens, i + 1, close, stack, out, depth);
            stack.pop_back();
          }
          i = close;
          break;
        }
        case TokenKind::close:
          throw UserError(name + ":" + std::to_string(token.line) + ": Mustache section '" + token.text +
                          "' is closed but was never opened");
        case TokenKind::partial: {
          auto found = m_partials.find(token.text);
          if (found == m_partials.end()) {
            throw UserError(name + ":" + std::to_string(token.line) + ": unknown Mustache partial '" + token.text +
                            "'");
          }
          render(token.text, found->second, stack, out, depth + 1);
          break;
        }
        case TokenKind::comment:
          break;
      }
    }
  }

  const std::map<std::string, std::string>& m_partials;
};

std::string render_template(const std::string& name, const std::string& text, const TemplateValue& context,
                            const std::map<std::string, std::string>& partials) {
  std::string out;
  std::vector<const TemplateValue*> stack = {&context};
  TemplateRenderer(partials).render(name, text, stack, out, 0);
  return out;
}

}  // namespace ezpz::core
