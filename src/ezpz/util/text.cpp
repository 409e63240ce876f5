// String helpers.
#include "ezpz/util/text.hpp"

#include <algorithm>
#include <cctype>

#include "ezpz/util/limits.hpp"

namespace ezpz::core {

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  for (auto& part : split(text, ' ')) {
    if (!part.empty()) words.push_back(std::move(part));
  }
  return words;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += separator;
    out += parts[i];
  }
  return out;
}

std::string join(const std::vector<int>& numbers, std::string_view separator) {
  std::vector<std::string> parts;
  parts.reserve(numbers.size());
  for (int number : numbers) parts.push_back(std::to_string(number));
  return join(parts, separator);
}

std::string trim(std::string_view text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); !from.empty() && at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

std::string column(std::string_view text, size_t width) {
  std::string out(text);
  out.append(text.size() >= width ? 1 : width - text.size(), ' ');
  return out;
}

std::string to_upper(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string shell_quote(std::string_view word) {
  // Characters that never need quoting in any position of a POSIX shell word.
  auto plain = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("%+,-./:=@_").find(c) != std::string_view::npos;
  };
  if (!word.empty() && std::all_of(word.begin(), word.end(), plain) && word.front() != '=') {
    return std::string(word);
  }
  // Single-quoted runs, a quote as \'. A backslash just before a closing quote goes outside it as \\:
  // 'a\' is correct but reads as an escaped quote (shellcheck SC1003).
  std::string out;
  std::string run;
  auto close_run = [&] {
    size_t kept = run.find_last_not_of('\\') + 1;  // 0 when the run is empty or all backslashes
    if (kept > 0) out += "'" + run.substr(0, kept) + "'";
    for (size_t i = kept; i < run.size(); ++i) out += "\\\\";
    run.clear();
  };
  for (char c : word) {
    if (c == '\'') {
      close_run();
      out += "\\'";
    } else {
      run += c;
    }
  }
  close_run();
  return out.empty() ? "''" : out;
}

std::string printable(std::string_view text) {
  static const char* k_hex = "0123456789abcdef";
  std::string out;
  bool escape_high = !is_valid_utf8(text);  // bytes of broken UTF-8 would garble the terminal
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f || (escape_high && u >= 0x80)) {
      out += "\\x";
      out += k_hex[u >> 4];
      out += k_hex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

std::string quoted_cut(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return "'" + printable(text) + "'";
  std::size_t cut = max_bytes;
  // Not inside a UTF-8 character: a cut one would turn the whole prefix into escapes.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;
  return "'" + printable(text.substr(0, cut)) + "…' (" + std::to_string(text.size()) + " bytes)";
}

size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: insertions, deletions, substitutions and adjacent transpositions.
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  // A typo of a key or a name is short; the distance table of a huge word would take gigabytes.
  if (word.size() > k_longest_typo) return {};
  std::string best;
  size_t best_distance = 0;
  for (const auto& candidate : candidates) {
    size_t distance = edit_distance(word, candidate);
    if (best.empty() || distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  // A typo changes a few characters; anything further is a different word.
  size_t limit = std::max<size_t>(1, std::min(word.size(), best.size()) / 3);
  return !best.empty() && best_distance <= limit ? best : std::string();
}

std::string quoted_list(const std::vector<std::string>& items, std::string_view last_separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? std::string(last_separator) : std::string(", ");
    out += "'" + items[i] + "'";
  }
  return out;
}

std::string suggestion_hint(std::string_view word, const std::vector<std::string>& candidates) {
  std::string close = closest_match(word, candidates);
  if (!close.empty()) return "did you mean '" + close + "'?";
  if (candidates.empty()) return {};
  return "expected " + quoted_list(candidates);
}

}  // namespace ezpz::core

namespace ezpz::core {

std::optional<std::vector<std::string>> split_command_words(std::string_view text, std::string* why) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote == '\'') {
      if (c == '\'')
        quote = 0;
      else
        word += c;
    } else if (quote == '"') {
      if (c == '"') {
        quote = 0;
      } else if (c == '\\' && i + 1 < text.size() &&
                 std::string_view("\"\\$`").find(text[i + 1]) != std::string_view::npos) {
        word += text[++i];
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != 0) {
    *why = std::string("unterminated ") + (quote == '\'' ? "single" : "double") + " quote";
    return std::nullopt;
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

bool is_valid_utf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    auto byte = static_cast<unsigned char>(text[i]);
    size_t length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xE ? 3 : (byte >> 3) == 0x1E ? 4 : 0;
    if (length == 0 || i + length > text.size()) return false;
    unsigned long code = length == 1 ? byte : byte & (0x7F >> length);
    for (size_t k = 1; k < length; ++k) {
      auto next = static_cast<unsigned char>(text[i + k]);
      if ((next >> 6) != 0x2) return false;
      code = (code << 6) | (next & 0x3F);
    }
    const unsigned long smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    i += length;
  }
  return true;
}

std::string text_problem(std::string_view text) {
  if (!is_valid_utf8(text)) return "is not valid UTF-8";
  if (text.find('\0') != std::string_view::npos) return "holds a NUL byte";
  if (text.find('\r') != std::string_view::npos) return "holds a carriage return";
  return {};
}

bool valid_env_name(std::string_view name) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  return !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
         std::all_of(name.begin(), name.end(), word);
}

}  // namespace ezpz::core
