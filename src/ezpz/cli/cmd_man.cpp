// `ezpz man [COMMAND]`: the man page ezpz(1), or ezpz-COMMAND(1), in roff, generated from the parser's own
// command tree (command_tree.hpp) and the table of exit codes (util/exit_codes.hpp).
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

#include "ezpz/cli/command.hpp"
#include "ezpz/cli/command_tree.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/version.hpp"

namespace ezpz::core {
namespace {

// The exit codes of a command besides those of every command (k_exit_code_meanings): the commands that
// exit with the status of what they run, and the codes they add (README.md, "Exit codes").
struct ExitStatusNote {
  const char* command;
  const char* note;
  const ExitCodeMeaning* begin;
  const ExitCodeMeaning* end;
};

const ExitStatusNote k_exit_status_notes[] = {
    {"submit",
     "With --wait: the job's own exit code (128 + N when signal N killed it), or for a job the scheduler ended "
     "or that ezpz cannot follow:",
     std::begin(k_job_exit_code_meanings), std::end(k_job_exit_code_meanings)},
    {"launch",
     "The exit status of what it runs: the system's launcher, or on the system local the first failing rank; "
     "or, when it ended the launch itself:",
     std::begin(k_launch_exit_code_meanings), std::end(k_launch_exit_code_meanings)},
    {"exec", "The exit status of CMD, which replaces ezpz (same process).", nullptr, nullptr},
    {"test", "The exit status of the smoke test it runs (ezpz-torch-test).", nullptr, nullptr},
};

// Characters of the help texts by the roff names that every output device has, down to plain ASCII
// (groff's tty fallbacks: an ellipsis as "...", an em dash as "--"); others stay \[uXXXX], which a
// terminal without UTF-8 cannot show (man warns "can't find special character").
struct RoffName {
  unsigned code;
  const char* roff;
};
const RoffName k_roff_names[] = {
    {0x2026, "..."},   {0x2014, "\\(em"}, {0x2013, "\\(en"}, {0x2018, "\\(oq"}, {0x2019, "\\(cq"}, {0x201C, "\\(lq"},
    {0x201D, "\\(rq"}, {0x00D7, "\\(mu"}, {0x2192, "\\(->"}, {0x2264, "\\(<="}, {0x2265, "\\(>="},
};

// Appends one code point as UTF-8 decoding goes: roff input is kept ASCII, so that every man and groff
// reads it the same whatever its input encoding.
size_t append_escaped_utf8(std::string_view text, size_t i, std::string& out) {
  unsigned char lead = static_cast<unsigned char>(text[i]);
  size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (length == 1 || i + length > text.size()) {  // not valid UTF-8 (help texts are): show it as '?'
    out += '?';
    return 1;
  }
  unsigned code = lead & (0xFF >> (length + 1));
  for (size_t k = 1; k < length; ++k) code = (code << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
  for (const auto& name : k_roff_names) {
    if (name.code == code) {
      out += name.roff;
      return length;
    }
  }
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "\\[u%04X]", code);
  out += buffer;
  return length;
}

// Text on one roff line: backslashes and hyphens escaped (a '\-' is the minus sign that can be copied
// into a shell), no control character at its start.
std::string roff(std::string_view text) {
  std::string out;
  if (!text.empty() && (text.front() == '.' || text.front() == '\'')) out += "\\&";
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      i += append_escaped_utf8(text, i, out);
      continue;
    }
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
    ++i;
  }
  return out;
}

std::string bold(std::string_view text) {
  return "\\fB" + roff(text) + "\\fR";
}

std::string italic(std::string_view text) {
  return "\\fI" + roff(text) + "\\fR";
}

// A help text, laid out for --help's width, in the page's: a line that ends a sentence or introduces
// what follows ('.', ':') ends a line of the page too, and a line indented by blanks (an example) stays
// a line of its own; other lines are filled. An empty line starts a paragraph (`paragraph`).
std::string roff_block(const std::string& text, const char* paragraph) {
  std::string out;
  std::vector<std::string> lines = split(text, '\n');
  while (!lines.empty() && trim(lines.back()).empty()) lines.pop_back();
  for (const auto& line : lines) {
    std::string trimmed = trim(line);
    if (trimmed.empty()) {
      out += std::string(paragraph) + "\n";
    } else if (line.front() == ' ' || ends_with(trimmed, ".") || ends_with(trimmed, ":")) {
      out += roff(line) + "\n.br\n";
    } else {
      out += roff(line) + "\n";
    }
  }
  return out;
}

std::string page_name(const CommandDoc& command) {
  return command.path.empty() ? "ezpz" : "ezpz-" + command.path.front();
}

// The command's description as the one line of NAME: "ezpz-render \- Print the batch script".
std::string name_line(const CommandDoc& command) {
  std::string summary = command.description.substr(0, command.description.find('\n'));
  if (starts_with(summary, "ezpz: ")) summary = summary.substr(6);
  if (ends_with(summary, ".")) summary.pop_back();
  return roff(page_name(command)) + " \\- " + roff(summary);
}

std::string option_tag(const OptionDoc& option) {
  std::vector<std::string> names;
  for (const auto& name : option.names) names.push_back(bold(name));
  std::string tag = option.positional.empty() ? join(names, ", ") : italic(option.positional);
  if (!option.value.empty() && option.positional.empty()) tag += " " + italic(option.value);
  if (option.repeats) tag += " \\&...";
  return tag;
}

std::string synopsis(const CommandDoc& command) {
  std::string line = bold(command.full_name());
  if (command.commands.empty()) {
    line += " [" + italic("OPTIONS") + "]";
  } else {
    line += " " + italic("COMMAND") + " [" + italic("OPTIONS") + "]";
  }
  for (const auto& positional : command.positionals) {
    std::string word = italic(positional.positional) + (positional.repeats ? " \\&..." : "");
    line += " " + (positional.required ? word : "[" + word + "]");
  }
  if (command.takes_extras) line += " " + italic("ARGUMENTS") + " \\&...";
  return line + "\n";
}

// The options and arguments of one command, as tagged paragraphs.
std::string option_list(const CommandDoc& command) {
  std::string out;
  for (const auto* list : {&command.positionals, &command.options}) {
    for (const auto& option : *list) {
      out += ".TP\n" + option_tag(option) + "\n" + roff_block(option.help, ".IP");
    }
  }
  return out;
}

std::string exit_codes(const ExitCodeMeaning* begin, const ExitCodeMeaning* end) {
  std::string out;
  for (const ExitCodeMeaning* code = begin; code != end; ++code) {
    out += ".TP\n.B " + std::to_string(code->code) + "\n" + roff(code->meaning) + "\n";
  }
  return out;
}

std::string exit_status(const CommandDoc& command) {
  std::string out = ".SH EXIT STATUS\n";
  for (const auto& note : k_exit_status_notes) {
    if (command.path.empty() || command.path.front() != note.command) continue;
    out += roff(note.note) + "\n" + exit_codes(note.begin, note.end) + ".PP\nOtherwise:\n";
  }
  return out + exit_codes(std::begin(k_exit_code_meanings), std::end(k_exit_code_meanings));
}

std::string header(const CommandDoc& command) {
  std::string name = page_name(command);
  return ".\\\" " + name + "(1), generated by `ezpz man` from the command line of ezpz " + k_version +
         ": do not edit.\n.TH " + roff(to_upper(name)) + " 1 \"\" \"ezpz " + k_version + "\" \"ezpz manual\"\n" +
         ".nh\n.ad l\n.SH NAME\n" + name_line(command) + "\n";
}

std::string root_page(const CommandDoc& root) {
  std::ostringstream out;
  out << header(root) << ".SH SYNOPSIS\n"
      << bold("ezpz") << " " << italic("COMMAND") << " [" << italic("OPTIONS") << "] [" << italic("ARGUMENTS")
      << "]\n.br\n"
      << bold("ezpz --version") << "\n.SH DESCRIPTION\n";
  // The first line of the description is NAME's.
  size_t rest = root.description.find('\n');
  if (rest != std::string::npos) out << roff_block(root.description.substr(rest + 1), ".PP");
  out << ".PP\n" << roff_block(root.footer, ".PP") << ".SH OPTIONS\n" << option_list(root) << ".SH COMMANDS\n";
  for (const auto& command : root.commands) {
    out << ".TP\n"
        << bold(command.full_name()) << "\n"
        << roff_block(command.description, ".IP") << "(\\fB" << roff(page_name(command)) << "\\fR(1))\n";
  }
  out << exit_status(root) << ".SH SEE ALSO\n";
  std::vector<std::string> pages;
  for (const auto& command : root.commands) pages.push_back("\\fB" + roff(page_name(command)) + "\\fR(1)");
  out << join(pages, ",\n") << "\n";
  return out.str();
}

std::string command_page(const CommandDoc& command) {
  std::ostringstream out;
  out << header(command) << ".SH SYNOPSIS\n";
  if (command.commands.empty()) {
    out << synopsis(command);
  } else {
    std::vector<std::string> lines;
    for (const auto& sub : command.commands) lines.push_back(synopsis(sub));
    out << join(lines, ".br\n");
  }
  out << ".SH DESCRIPTION\n" << roff_block(command.description, ".PP");
  if (!command.footer.empty()) out << ".PP\n" << roff_block(command.footer, ".PP");
  out << ".SH OPTIONS\n" << option_list(command);
  if (!command.commands.empty()) {
    out << ".SH COMMANDS\n";
    for (const auto& sub : command.commands) {
      out << ".SS \"" << roff(sub.full_name()) << "\"\n" << roff_block(sub.description, ".PP");
      if (!sub.footer.empty()) out << ".PP\n" << roff_block(sub.footer, ".PP");
      out << option_list(sub);
    }
  }
  out << exit_status(command) << ".SH SEE ALSO\n\\fBezpz\\fR(1)\n";
  return out.str();
}

struct ManOptions {
  std::string command;
  bool list = false;
};

int print_man(const ManOptions& options) {
  CommandAction unused;
  std::unique_ptr<CLI::App> full = make_full_app(unused);
  CommandDoc root = describe_command_tree(*full);
  if (options.list) {
    for (const auto& command : root.commands) std::cout << command.name() << "\n";
    return k_exit_ok;
  }
  if (options.command.empty()) {
    std::cout << root_page(root);
    return k_exit_ok;
  }
  std::vector<std::string> names;
  for (const auto& command : root.commands) {
    if (command.name() == options.command) {
      std::cout << command_page(command);
      return k_exit_ok;
    }
    names.push_back(command.name());
  }
  throw UserError("no man page for '" + options.command + "': it is not a command of ezpz",
                  suggestion_hint(options.command, names));
}

}  // namespace

void add_man_command(CLI::App& app, CommandAction& action) {
  auto options = std::make_shared<ManOptions>();
  CLI::App* command = app.add_subcommand("man", "Print the man page of ezpz, or of one command, in roff");
  command->add_option("command", options->command, "the command whose page to print: ezpz-COMMAND(1)");
  command->add_flag("--list", options->list, "print the commands that have a page, one per line");
  command->footer(
      "The pages are made from ezpz's own command line, as 'ezpz completion' makes the completion scripts,\n"
      "and installed by 'cmake --install' (and in the release tarball) in <prefix>/share/man/man1. Read one\n"
      "without installing it:\n"
      "  ezpz man render | man -l -");
  command->callback([&action, options] { action = [options] { return print_man(*options); }; });
}

}  // namespace ezpz::core
