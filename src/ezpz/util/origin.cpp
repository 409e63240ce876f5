// Origin descriptions.
#include "ezpz/util/origin.hpp"

namespace ezpz::core {

const char* origin_kind_name(OriginKind kind) {
  switch (kind) {
    case OriginKind::default_value:
      return "default";
    case OriginKind::profile:
      return "profile";
    case OriginKind::spec:
      return "spec";
    case OriginKind::env:
      return "env";
    case OriginKind::cli:
      return "cli";
    case OriginKind::derived:
      return "derived";
  }
  return "?";
}

std::string Origin::describe() const {
  switch (kind) {
    case OriginKind::default_value:
      return note.empty() ? "default" : "default (" + note + ")";
    case OriginKind::derived:
      return "derived from " + note;
    case OriginKind::env:
    case OriginKind::cli:
      return loc.known() ? loc.describe() : note;
    case OriginKind::profile:
    case OriginKind::spec:
      break;
  }
  std::string where = loc.describe();
  std::string out = std::string(origin_kind_name(kind)) + (where.empty() ? "" : " " + where);
  if (!note.empty()) out += " (" + note + ")";
  return out;
}

}  // namespace ezpz::core
