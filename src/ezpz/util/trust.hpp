// May ezpz trust this path: the one rule, after OpenSSH's StrictModes and git's safe.directory, for the
// profiles it reads and the copies yeet keeps or replaces (docs/security.md).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace ezpz::core {

// The users whose files ezpz takes as the caller's own.
struct TrustedUsers {
  uid_t caller = 0;
  std::vector<uid_t> others;  // besides the caller: root, and for profiles the owner of the ezpz binary

  bool trusts(uid_t uid) const;
  // "you (uid 64101) or root": how messages name them.
  std::string describe() const;

  // The effective uid, root, and the owner of the running program (/proc/self/exe): whoever owns the
  // binary already decides what code runs, so a site's installation owned by a software account works.
  static TrustedUsers of_process();
  // The effective uid and root.
  static TrustedUsers caller_and_root();
};

// Why a path is not trusted: the entry that fails (the path itself, a directory above it or a symbolic
// link on the way) and what is wrong with it.
struct Distrust {
  std::string path;
  std::string reason;  // "is owned by uid 64102, not by you (uid 0) or root"

  std::string message() const;  // "'/tmp/share' is owned by uid 64102, not by you (uid 0) or root"
};

// nullopt when ezpz may trust `path` (made absolute against the working directory): it and every
// directory above it, up to /, are owned by a trusted user, and none of them is writable by its group
// or by others, except that a directory above it (not `path` itself) may be when its sticky bit is set
// (/tmp: then only the owner of an entry can rename or remove it, and the entry is a trusted user's).
// Group-writable counts as writable by another user: who else is in the group is not checked. Symbolic
// links on the way are followed (at most 40); each must be a trusted user's. A part of the path that
// does not exist ends the check: everything above it was checked, and nothing below it exists yet (the
// caller creates it, or finds nothing there). A part that cannot be examined (EACCES) is distrusted.
// With PathRole::above_entry, `path` is the directory an entry of the caller's goes into (yeet's DEST's
// parent), so it is judged as a directory above: the sticky bit excuses its write permission too.
enum class PathRole { itself, above_entry };
std::optional<Distrust> why_untrusted(const std::string& path, const TrustedUsers& users,
                                      PathRole role = PathRole::itself);

// Distrust when `path` exists and `owner` does not own it (the entry itself, a link not followed).
std::optional<Distrust> foreign_owner(const std::string& path, uid_t owner);

// The first entry of the tree at `path` (itself, then everything under it, symbolic links not
// followed) that `owner` does not own, or a directory in it that cannot be listed; nullopt when
// `path` does not exist or all of it is `owner`'s.
std::optional<Distrust> foreign_entry(const std::string& path, uid_t owner);

}  // namespace ezpz::core
