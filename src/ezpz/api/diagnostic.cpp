// Public diagnostics and the public error, from the core's.
#include "ezpz/api/impl.hpp"

namespace ezpz {

Error::Error(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(diagnostics.empty() ? std::string("ezpz: error") : diagnostics.front().text),
      m_diagnostics(std::move(diagnostics)) {}

namespace detail {

Diagnostic to_public(const core::Diagnostic& diagnostic) {
  Diagnostic out;
  const core::SourceLoc& loc = diagnostic.loc;
  out.where = loc.describe();
  if (loc.known() && !loc.file->synthetic) {
    out.file = loc.file->name;
    out.line = loc.line;
    out.column = loc.line > 0 ? loc.column : 0;
  }
  out.message = diagnostic.message;
  out.hint = diagnostic.hint;
  out.warning = diagnostic.severity == core::Severity::warning;
  out.text = core::format_diagnostic(diagnostic);
  return out;
}

std::vector<Diagnostic> to_public(const std::vector<core::Diagnostic>& diagnostics) {
  std::vector<Diagnostic> out;
  out.reserve(diagnostics.size());
  for (const auto& diagnostic : diagnostics) out.push_back(to_public(diagnostic));
  return out;
}

}  // namespace detail
}  // namespace ezpz
