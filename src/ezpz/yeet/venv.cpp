// Relocating a virtual environment: the paths venv and pip write into pyvenv.cfg, bin/ and symlinks.
#include "ezpz/yeet/venv.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <filesystem>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

#include "ezpz/util/error.hpp"
#include "ezpz/util/file.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core::yeet {
namespace {

namespace fs = std::filesystem;
using std::string_view;

// How a file spells a path: as it is, or as a shell word that needs quotes around a space.
enum class Spelling { plain, shell };

struct ActivateScript {
  string_view name;
  Spelling spelling;
};

// The scripts venv (and virtualenv) write into bin/ with the prefix spelled out.
constexpr ActivateScript k_activate_scripts[] = {
    {"activate", Spelling::shell},    {"activate.csh", Spelling::shell}, {"activate.fish", Spelling::shell},
    {"activate.nu", Spelling::plain}, {"activate.bat", Spelling::plain},
};

constexpr size_t k_binary_probe = 8192;
// Linux reads at most 127 bytes of a `#!` line (BINPRM_BUF_SIZE); distlib counts "#!" and the newline.
constexpr size_t k_max_shebang = 127;
// distlib's trampoline: /bin/sh runs the `exec` line; Python reads it as a string and skips it.
constexpr string_view k_trampoline_head = "#!/bin/sh\n'''exec' ";
constexpr string_view k_trampoline_tail = " \"$0\" \"$@\"\n' '''";
// sh, csh and fish expand or end a quoted word at these, so the activate scripts cannot hold them.
constexpr string_view k_unquotable = "'\"$`\\\n";
constexpr string_view k_temp_suffix = ".ezpz-relocate";

struct Move {
  string_view from, to;
};

[[noreturn]] void fail(string_view action, const std::string& path, int error) {
  throw UserError("cannot " + std::string(action) + " '" + path + "': " + std::generic_category().message(error));
}

std::string without_trailing_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// At most `limit` bytes of the file at `path`.
std::string read_file(const std::string& path, size_t limit = std::string::npos) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("read", path, errno);
  std::string text;
  char buffer[1 << 16];
  ssize_t n = 0;
  while (text.size() < limit && (n = ::read(fd, buffer, std::min(sizeof buffer, limit - text.size()))) > 0)
    text.append(buffer, static_cast<size_t>(n));
  int error = n < 0 ? errno : 0;
  ::close(fd);
  if (error != 0) fail("read", path, error);
  return text;
}

// Replaces the file at `path` by `text` with permission bits `mode`, through a temporary file and a rename.
void write_file(const std::string& path, const std::string& text, mode_t mode) {
  std::string temp = path + std::string(k_temp_suffix);
  ::unlink(temp.c_str());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) fail("write", temp, errno);
  size_t done = 0;
  ssize_t n = 0;
  while (done < text.size() && (n = ::write(fd, text.data() + done, text.size() - done)) > 0)
    done += static_cast<size_t>(n);
  int error = done < text.size() || ::fchmod(fd, mode) != 0 ? errno : 0;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temp.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temp.c_str());
    fail("write", path, error);
  }
}

void write_symlink(const std::string& path, const std::string& target) {
  std::string temp = path + std::string(k_temp_suffix);
  ::unlink(temp.c_str());
  if (::symlink(target.c_str(), temp.c_str()) != 0 || ::rename(temp.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(temp.c_str());
    fail("re-point the link", path, error);
  }
}

bool is_binary(string_view text) {
  return text.substr(0, k_binary_probe).find('\0') != string_view::npos;
}

// `path` moved to under `move.to` when it is `move.from` or under it; nullopt otherwise (and for a
// `move.from` of "/", which no environment is created at).
std::optional<std::string> moved(string_view path, const Move& move) {
  if (move.from.size() <= 1 || !path_is_under(path, move.from)) return std::nullopt;
  return std::string(move.to) + std::string(path.substr(move.from.size()));
}

bool continues_path(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || string_view("/._-~+@").find(c) != string_view::npos ||
         static_cast<unsigned char>(c) >= 0x80;
}

bool ends_path(char c) {
  return c == '/' || c == '"' || c == '\'' || std::isspace(static_cast<unsigned char>(c));
}

bool shell_safe(string_view path) {
  for (char c : path)
    if (!std::isalnum(static_cast<unsigned char>(c)) && string_view("@%+=:,./_-").find(c) == string_view::npos)
      return false;
  return true;
}

// `text` with `move.from` replaced wherever it is a whole path: not preceded by a character that would
// make it part of a longer path, and followed by the end, '/', a quote or whitespace. In shell scripts an
// unquoted occurrence (Debian's `VIRTUAL_ENV=/p`) gets quotes when the new path needs them.
std::string replace_paths(string_view text, const Move& move, Spelling spelling) {
  std::string out;
  size_t done = 0;
  for (size_t at = text.find(move.from); at != string_view::npos; at = text.find(move.from, at + 1)) {
    size_t end = at + move.from.size();
    if (at < done || (at > 0 && continues_path(text[at - 1])) || (end < text.size() && !ends_path(text[end]))) continue;
    bool quoted = at > 0 && (text[at - 1] == '"' || text[at - 1] == '\'');
    out.append(text.substr(done, at - done));
    bool quote = spelling == Spelling::shell && !quoted && !shell_safe(move.to);
    out += quote ? "'" + std::string(move.to) + "'" : std::string(move.to);
    done = end;
  }
  return out.append(text.substr(done));
}

// Splits `text` into lines, each with its '\n'.
template <class F>
void for_each_line(string_view text, F&& f) {
  while (!text.empty()) {
    size_t end = std::min(text.find('\n'), text.size() - 1) + 1;
    f(text.substr(0, end));
    text.remove_prefix(end);
  }
}

string_view trim(string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The value of `key = value` in pyvenv.cfg when `line` sets `key`.
std::optional<string_view> config_value(string_view line, string_view key) {
  size_t equals = line.find('=');
  if (equals == string_view::npos || trim(line.substr(0, equals)) != key) return std::nullopt;
  return trim(line.substr(equals + 1));
}

// The first shell word of `text`, unquoted: 'a b', "a b" and a\ b are all `a b`.
std::string shell_word(string_view text) {
  std::string word;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool escape = c == '\\' && i + 1 < text.size() && quote != '\'' &&
                  (!quote || string_view("\"\\$`").find(text[i + 1]) != string_view::npos);
    if (escape)
      word += text[++i];
    else if (quote && c == quote)
      quote = 0;
    else if (quote)
      word += c;
    else if (c == '\'' || c == '"')
      quote = c;
    else if (std::isspace(static_cast<unsigned char>(c)) || c == ';')
      break;
    else
      word += c;
  }
  return word;
}

// VIRTUAL_ENV in bin/activate: `[export ]VIRTUAL_ENV=WORD`, skipping Python 3.12's `$(cygpath ...)` branch.
std::string prefix_from_activate(string_view text) {
  std::string prefix;
  for_each_line(text, [&](string_view line) {
    line = trim(line);
    if (starts_with(line, "export ")) line = trim(line.substr(7));
    if (prefix.empty() && starts_with(line, "VIRTUAL_ENV=")) {
      std::string value = shell_word(line.substr(12));
      if (starts_with(value, "/")) prefix = value;
    }
  });
  return prefix;
}

// The venv path that ends pyvenv.cfg's `command = /usr/bin/python3 -m venv [options] /path` (venv
// writes it unquoted, so a path with spaces runs from the last " /" to the end).
std::string prefix_from_config(string_view text) {
  std::string prefix;
  for_each_line(text, [&](string_view line) {
    auto command = config_value(line, "command");
    size_t start = command ? command->rfind(" /") : string_view::npos;
    if (prefix.empty() && start != string_view::npos) prefix = std::string(command->substr(start + 1));
  });
  return prefix;
}

std::string old_prefix(const std::string& root) {
  std::string activate = root + "/bin/activate";
  std::string prefix = ::access(activate.c_str(), F_OK) == 0 ? prefix_from_activate(read_file(activate)) : "";
  if (prefix.empty()) prefix = prefix_from_config(read_file(root + "/pyvenv.cfg"));
  if (prefix.empty()) {
    throw UserError("cannot tell where the virtual environment '" + root + "' was created",
                    "bin/activate sets no VIRTUAL_ENV and pyvenv.cfg has no 'command' line; recreate it with "
                    "'python3 -m venv' or copy it without venv relocation");
  }
  return without_trailing_slashes(prefix);
}

// pyvenv.cfg with the `command` line rewritten; `home` and `executable` name the base interpreter.
std::string rewrite_config(string_view text, const Move& move) {
  std::string out;
  for_each_line(text, [&](string_view line) {
    out += config_value(line, "command") ? replace_paths(line, move, Spelling::plain) : std::string(line);
  });
  return out;
}

// The `#!` line as distlib (pip) writes it: plain, or the trampoline when the line would be too long
// for the kernel or the interpreter path holds a space. No trailing newline, like the parsed header.
std::string shebang(const std::string& interpreter, string_view args) {
  std::string quoted = interpreter.find(' ') == std::string::npos ? interpreter : '"' + interpreter + '"';
  if (quoted.find(' ') == std::string::npos && quoted.size() + args.size() + 3 <= k_max_shebang)
    return "#!" + quoted + std::string(args);
  return std::string(k_trampoline_head) + quoted + std::string(args) + std::string(k_trampoline_tail);
}

struct Shebang {
  string_view interpreter;  // without quotes
  string_view args;         // the rest of the line, with its leading space
  size_t end;               // where the header ends in the text (before its last newline)
};

// The header of a script: `#!INTERPRETER ARGS`, or distlib's trampoline around the same.
std::optional<Shebang> parse_shebang(string_view text) {
  string_view line;
  size_t end;
  if (starts_with(text, k_trampoline_head) && (end = text.find(k_trampoline_tail)) != string_view::npos) {
    line = text.substr(k_trampoline_head.size(), end - k_trampoline_head.size());
    end += k_trampoline_tail.size();
  } else if (starts_with(text, "#!")) {
    end = std::min(text.find('\n'), text.size());
    line = text.substr(2, end - 2);
    line.remove_prefix(std::min(line.find_first_not_of(" \t"), line.size()));
  } else {
    return std::nullopt;
  }
  if (line.find('\n') != string_view::npos) return std::nullopt;  // the tail belongs to later text
  size_t quoted = starts_with(line, "\"") ? 1 : 0;
  size_t split = std::min(line.find(quoted ? '"' : ' ', quoted), line.size());
  return Shebang{line.substr(quoted, split - quoted), line.substr(std::min(split + quoted, line.size())), end};
}

// A script whose header runs an interpreter under `move.from`, rewritten to run the one under `move.to`;
// other text is returned unchanged.
std::string rewrite_shebang(string_view text, const Move& move) {
  auto header = parse_shebang(text);
  auto interpreter = header ? moved(header->interpreter, move) : std::nullopt;
  if (!interpreter) return std::string(text);
  return shebang(*interpreter, header->args) + std::string(text.substr(header->end));
}

mode_t mode_of(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) fail("read", path, errno);
  return info.st_mode & 07777;
}

// Applies `edit` to the file at `path`; true when that changed it.
template <class Edit>
bool edit_file(const std::string& path, Edit&& edit) {
  std::string text = read_file(path);
  std::string edited = edit(text);
  if (edited == text) return false;
  write_file(path, edited, mode_of(path));
  return true;
}

const ActivateScript* activate_script(string_view name) {
  for (const auto& script : k_activate_scripts)
    if (script.name == name) return &script;
  return nullptr;
}

// The paths under `dir` (all of them, or only its own entries) of the given type, listed before any is
// rewritten so a replaced entry is never seen twice.
template <class Iterator>
std::vector<std::string> list(const std::string& dir, fs::file_type type) {
  std::vector<std::string> paths;
  std::error_code error;
  Iterator it(dir, error);
  if (error == std::errc::no_such_file_or_directory) return paths;
  for (; !error && it != Iterator(); it.increment(error)) {
    std::error_code ignored;  // an entry gone since it was listed is simply skipped
    if (it->symlink_status(ignored).type() == type) paths.push_back(it->path().string());
  }
  if (error) fail("list", dir, error.value());
  return paths;
}

// Rewrites the activate scripts and the `#!` lines of the regular files directly in bin/.
int relocate_bin(const std::string& bin, const Move& move) {
  int changed = 0;
  for (const std::string& path : list<fs::directory_iterator>(bin, fs::file_type::regular)) {
    if (const ActivateScript* script = activate_script(fs::path(path).filename().string())) {
      changed += edit_file(path, [&](const std::string& text) {
        return is_binary(text) ? text : replace_paths(text, move, script->spelling);
      });
    } else if (read_file(path, 2) == "#!") {
      changed += edit_file(path, [&](const std::string& text) { return rewrite_shebang(text, move); });
    }
  }
  return changed;
}

// Re-points the absolute symbolic links under `root` that lead into the old prefix.
int relocate_links(const std::string& root, const Move& move) {
  int changed = 0;
  for (const std::string& link : list<fs::recursive_directory_iterator>(root, fs::file_type::symlink)) {
    std::error_code error;
    std::string target = fs::read_symlink(link, error).string();
    if (error) fail("read the link", link, error.value());
    if (auto new_target = moved(target, move)) {
      write_symlink(link, *new_target);
      ++changed;
    }
  }
  return changed;
}

}  // namespace

bool is_venv(const std::string& root) {
  struct stat info;
  return ::stat((root + "/pyvenv.cfg").c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

VenvRelocation relocate_venv(const std::string& root, const std::string& final_path) {
  VenvRelocation result{old_prefix(root), 0};
  std::string to = without_trailing_slashes(final_path);
  if (result.old_prefix == to) return result;
  if (to.find_first_of(k_unquotable) != std::string::npos) {
    throw UserError("cannot relocate the virtual environment '" + root + "' to '" + to +
                        "': its activate scripts cannot hold a path with quotes, '$', '`', '\\' or a newline",
                    "choose a destination without them");
  }
  Move move{result.old_prefix, to};
  result.files_changed += edit_file(root + "/pyvenv.cfg", [&](const std::string& text) {
    return is_binary(text) ? text : rewrite_config(text, move);
  });
  result.files_changed += relocate_bin(root + "/bin", move);
  result.files_changed += relocate_links(root, move);
  return result;
}

}  // namespace ezpz::core::yeet
