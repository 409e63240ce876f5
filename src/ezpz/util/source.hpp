// Source texts and locations inside them, so every error can print `file:line:col`, the line and a caret.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace ezpz::core {

// A named text that values were read from: a job spec, a profile, a `--set` argument, an env variable.
struct SourceFile {
  std::string name;  // as shown in messages: "job.yaml", "systems/aurora.yaml", "--set", "EZPZ_NODES"
  std::string text;
  // A one-line text from the command line or the environment ("--set" + "nodes=4"): messages
  // show "--set nodes=4" instead of a line and column.
  bool synthetic = false;

  // Line `n` (1-based) without its newline; empty when out of range.
  std::string_view line(int n) const;
};

using SourceRef = std::shared_ptr<const SourceFile>;

SourceRef make_source(std::string name, std::string text, bool synthetic = false);

// A place in a source. line == 0 means "the file as a whole"; file == nullptr means "nowhere".
struct SourceLoc {
  SourceRef file;
  int line = 0;
  int column = 0;  // 1-based
  int length = 1;  // characters to underline

  bool known() const { return file != nullptr; }
  // "job.yaml:7:3", "job.yaml", "--set nodes=4" (synthetic), or "" when unknown.
  std::string describe() const;
};

}  // namespace ezpz::core
