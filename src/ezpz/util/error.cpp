// User errors and their rendering.
#include "ezpz/util/error.hpp"

#include <cassert>

namespace ezpz::core {

UserError::UserError(std::vector<Diagnostic> diagnostics) : m_diagnostics(std::move(diagnostics)) {
  assert(!m_diagnostics.empty());
}

UserError::UserError(std::string message, std::string hint)
    : m_diagnostics{Diagnostic{{}, std::move(message), std::move(hint)}} {}

UserError::UserError(SourceLoc loc, std::string message, std::string hint)
    : m_diagnostics{Diagnostic{std::move(loc), std::move(message), std::move(hint)}} {}

void Diagnostics::error(SourceLoc loc, std::string message, std::string hint) {
  m_items.push_back(Diagnostic{std::move(loc), std::move(message), std::move(hint)});
}

void Diagnostics::warning(SourceLoc loc, std::string message, std::string hint) {
  m_warnings.push_back(Diagnostic{std::move(loc), std::move(message), std::move(hint), Severity::warning});
}

void Diagnostics::add(const UserError& error) {
  m_items.insert(m_items.end(), error.diagnostics().begin(), error.diagnostics().end());
}

void Diagnostics::throw_if_any() const {
  if (!m_items.empty()) throw UserError(m_items);
}

std::string format_diagnostic(const Diagnostic& diagnostic) {
  std::string out = "ezpz: ";
  const SourceLoc& loc = diagnostic.loc;
  if (loc.known()) out += loc.describe() + ": ";
  out += diagnostic.severity == Severity::warning ? "warning: " : "error: ";
  out += diagnostic.message + "\n";
  if (loc.known() && loc.line > 0) {
    std::string_view line = loc.file->line(loc.line);
    if (!line.empty()) {
      out += "  ";
      out += line;
      out += "\n  ";
      for (int i = 1; i < loc.column && i <= static_cast<int>(line.size()); ++i) {
        out += line[static_cast<size_t>(i - 1)] == '\t' ? '\t' : ' ';
      }
      out += '^';
      for (int i = 1; i < loc.length; ++i) out += '~';
      out += '\n';
    }
  }
  if (!diagnostic.hint.empty()) out += "  hint: " + diagnostic.hint + "\n";
  return out;
}

}  // namespace ezpz::core
