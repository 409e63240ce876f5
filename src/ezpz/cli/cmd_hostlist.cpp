// `ezpz hostlist expand|compress|nodefile|first`: Slurm node lists (several bracket groups per name,
// which scontrol refuses) and PBS nodefiles, for scripts.
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

#include "ezpz/cli/command.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/file.hpp"
#include "ezpz/util/hostlist.hpp"
#include "ezpz/util/limits.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

constexpr const char* k_stdin_name = "<stdin>";

// Stdin, bounded like a host file: `yes | ezpz hostlist expand -` must end.
std::string read_stdin() {
  std::string text;
  char buffer[1 << 16];
  while (std::cin.read(buffer, sizeof buffer) || std::cin.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(std::cin.gcount()));
    if (text.size() > k_max_hostfile_bytes) {
      throw UserError("stdin is longer than the " + std::to_string(k_max_hostfile_bytes) +
                      " bytes ezpz reads (docs/limits.md)");
    }
  }
  if (std::cin.bad()) throw UserError("cannot read stdin");
  return text;
}

std::string read_text_file(const std::string& path) {
  if (path == "-") return read_stdin();
  return read_regular_file(path, "nodefile '" + path + "'", k_max_hostfile_bytes,
                           "inside a PBS job the nodefile is $PBS_NODEFILE; use '-' to read stdin");
}

// One name or list per argument; '-' stands for the whitespace-separated words of stdin.
struct Word {
  std::string text;
  const char* what;
};

std::vector<Word> arguments_and_stdin(const std::vector<std::string>& arguments) {
  std::vector<Word> words;
  bool stdin_read = false;
  for (const auto& argument : arguments) {
    if (argument != "-") {
      if (trim(argument).empty()) {
        throw UserError("empty host list argument", "is the variable set? SLURM_JOB_NODELIST exists only inside a job");
      }
      words.push_back(Word{argument, "host list"});
      continue;
    }
    if (stdin_read) continue;  // stdin is read once
    stdin_read = true;
    size_t before = words.size();
    std::string word;
    for (char c : read_stdin() + "\n") {
      if (!std::isspace(static_cast<unsigned char>(c))) {
        word += c;
      } else if (!word.empty()) {
        words.push_back(Word{word, k_stdin_name});
        word.clear();
      }
    }
    if (words.size() == before) throw UserError("no host list on stdin");
  }
  return words;
}

// The lists one after the other, within one bound for all of them.
std::vector<std::string> expand_all(const std::vector<Word>& words) {
  std::vector<std::string> hosts;
  HostLimits taken{0, 0};
  for (const auto& word : words) {
    std::vector<std::string> expanded = expand_hostlist(word.text, word.what, HostLimits{}, taken);
    taken.names += expanded.size();
    for (const auto& name : expanded) taken.bytes += name.size();
    if (hosts.empty()) {
      hosts = std::move(expanded);
    } else {
      hosts.insert(hosts.end(), std::make_move_iterator(expanded.begin()), std::make_move_iterator(expanded.end()));
    }
  }
  return hosts;
}

// Names one per line, or joined by `separator` (and a final newline); nothing at all for no names.
void print_names(const std::vector<std::string>& names, const std::string* separator) {
  if (names.empty()) return;
  std::string_view between = separator ? std::string_view(*separator) : std::string_view("\n");
  size_t size = 0;
  for (const auto& name : names) size += name.size() + between.size();
  // One buffer, filled with memcpy, written once: this is most of the work for long lists.
  std::string out(size - between.size() + 1, '\n');
  char* at = out.data();
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) {
      std::memcpy(at, between.data(), between.size());
      at += between.size();
    }
    std::memcpy(at, names[i].data(), names[i].size());
    at += names[i].size();
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

void print_line(const std::string& text) {
  std::string out = text + "\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

struct Options {
  std::vector<std::string> lists;
  std::string separator;
  bool has_separator = false;
  std::string file;
  bool compress = false;
  std::string list;
};

int expand_command(const Options& options) {
  print_names(expand_all(arguments_and_stdin(options.lists)), options.has_separator ? &options.separator : nullptr);
  return k_exit_ok;
}

int compress_command(const Options& options) {
  print_line(compress_hostlist(expand_all(arguments_and_stdin(options.lists))));
  return k_exit_ok;
}

int nodefile_command(const Options& options) {
  std::string shown = options.file == "-" ? k_stdin_name : "'" + options.file + "'";
  std::vector<std::string> hosts = read_nodefile(read_text_file(options.file), "nodefile " + shown);
  if (hosts.empty()) throw UserError("nodefile " + shown + " names no hosts", "a PBS nodefile has one host per line");
  if (options.compress) {
    print_line(compress_hostlist(hosts));
  } else {
    print_names(hosts, nullptr);
  }
  return k_exit_ok;
}

int first_command(const Options& options) {
  std::vector<Word> words = arguments_and_stdin({options.list});
  // The first word decides; the others are still checked.
  std::string first = first_host(words.front().text, words.front().what);
  for (size_t i = 1; i < words.size(); ++i) first_host(words[i].text, words[i].what);
  print_line(first);
  return k_exit_ok;
}

// Host lists are taken as CLI11's extra arguments, untouched: a positional option would read a
// bracketed argument ('[1-3]') as CLI11's own list syntax and hand on '1-3'.
void take_lists(CLI::App& command) {
  command.allow_extras();
}

std::vector<std::string> lists_of(const CLI::App& command) {
  std::vector<std::string> lists = command.remaining();
  for (const auto& word : lists) {
    if (word.size() > 1 && word[0] == '-') throw CLI::ExtrasError(command.get_name(), {word});
  }
  if (lists.empty()) throw CLI::RequiredError(command.get_name() == "expand" ? "LIST" : "NAME");
  return lists;
}

}  // namespace

void add_hostlist_command(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand("hostlist", "Expand and compress Slurm node lists; read PBS nodefiles");
  command->require_subcommand(1);
  command->footer(
      "Syntax (Slurm's): names separated by ','; a bracket group holds numbers and ranges separated by ','\n"
      "(nid[001-003,010]). A name may have several groups and text after them (x1000c[0-1]s[0-7]b0n0, which\n"
      "scontrol refuses); the leftmost group varies slowest. A range is as wide as its lower bound is written:\n"
      "nid[08-10] gives nid08 nid09 nid10, nid[8-10] gives nid8 nid9 nid10.\n"
      "Examples:\n"
      "  ezpz hostlist expand \"$SLURM_JOB_NODELIST\"\n"
      "  ezpz hostlist expand -s, 'x1000c[0-1]s[0-1]b0n0'\n"
      "  ezpz hostlist compress - < hosts.txt\n"
      "  ezpz hostlist nodefile \"$PBS_NODEFILE\" --compress\n"
      "Exit codes: 0 ok, 1 a malformed list or unreadable file (the message shows where), 2 bad usage.");

  CLI::App* expand = command->add_subcommand("expand", "Print every name of host lists, one per line, in order");
  take_lists(*expand);
  expand->add_option("-s,--separator", options->separator, "join the names with SEP instead of newlines (e.g. -s,)")
      ->type_name("SEP");
  expand->footer(
      "Arguments: LIST... host list(s); '-' reads lists from stdin (whitespace-separated).\n"
      "Order and duplicates are kept: several lists, or the words of stdin, are concatenated. At most\n"
      "1,000,000 names of 64 MiB together (docs/limits.md); a malformed list exits 1 with the list and a caret\n"
      "under the problem.");
  expand->callback([&action, options, expand] {
    options->lists = lists_of(*expand);
    options->has_separator = expand->count("--separator") > 0;
    action = [options] { return expand_command(*options); };
  });

  CLI::App* compress = command->add_subcommand("compress", "Print the compact host list of names");
  take_lists(*compress);
  compress->footer(
      "Arguments: NAME... host name(s) or lists; '-' reads names from stdin (one per line or whitespace-separated).\n"
      "Duplicates are dropped and names sorted (numbers by value); each numeric field that varies becomes a\n"
      "bracket group, several per name for grids: x1000c0s0b0n0 … x1000c1s7b0n0 gives x1000c[0-1]s[0-7]b0n0.\n"
      "Widths are kept (nid08 nid09 nid10 gives nid[08-10]). 'ezpz hostlist expand' of the result prints the\n"
      "names sorted and unique.");
  compress->callback([&action, options, compress] {
    options->lists = lists_of(*compress);
    action = [options] { return compress_command(*options); };
  });

  CLI::App* nodefile = command->add_subcommand("nodefile", "Print the hosts of a PBS nodefile, once each, in order");
  nodefile->add_option("FILE", options->file, "nodefile ($PBS_NODEFILE), or '-' for stdin")->required();
  nodefile->add_flag("--compress", options->compress, "print one compact host list instead (sorted)");
  nodefile->footer(
      "A nodefile repeats a host once per slot; each host is printed at its first occurrence. Blank lines,\n"
      "surrounding spaces and CRLF line ends are ignored.");
  nodefile->callback([&action, options] { action = [options] { return nodefile_command(*options); }; });

  CLI::App* first = command->add_subcommand("first", "Print the first name of a host list (MASTER_ADDR's host)");
  first->add_option("LIST", options->list, "host list, or '-' to read it from stdin")->required();
  first->footer("The list is checked but not expanded, so this is instant for any size.");
  first->callback([&action, options] { action = [options] { return first_command(*options); }; });
}

}  // namespace ezpz::core
