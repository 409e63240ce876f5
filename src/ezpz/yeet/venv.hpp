// Relocating a copied Python virtual environment so it works from the path it is copied to.
#pragma once

#include <string>

namespace ezpz::core::yeet {

// True when `root` holds a Python virtual environment (a pyvenv.cfg file at its top).
bool is_venv(const std::string& root);

struct VenvRelocation {
  std::string old_prefix;  // where the environment was created
  int files_changed = 0;   // files and symbolic links rewritten
};

// `root` is a copy of a venv (a staging directory that will be renamed to `final_path`). Rewrites it so
// it works from `final_path`:
//  - the old prefix is VIRTUAL_ENV in bin/activate (`VIRTUAL_ENV="/p"`, `VIRTUAL_ENV='/p'`,
//    `VIRTUAL_ENV=/p`, `export VIRTUAL_ENV=...`), else the venv path on pyvenv.cfg's `command` line;
//  - pyvenv.cfg's `command` line and the activate scripts in bin/ (activate, activate.csh, activate.fish,
//    activate.nu, activate.bat) get the new prefix; `home` names the base interpreter and stays;
//  - every regular file directly in bin/ whose `#!` line runs an interpreter under the old prefix (pip's
//    console scripts) gets the new one, written as pip writes it: `#!/new/bin/python3`, or distlib's
//    /bin/sh trampoline when that line would exceed Linux's 127 bytes or hold a space;
//  - absolute symbolic links anywhere in the tree that point at or under the old prefix are re-pointed
//    to the same place under `final_path`.
// The prefix is replaced only as a whole path: /a/env is not rewritten inside /a/env2 or /b/a/env.
// Changed files keep their modes and are replaced by a rename within their directory; binary files (a
// NUL byte in the first 8 KiB) are changed only by the `#!` rule. Nothing changes when the old prefix is
// `final_path`. Trailing slashes of either path are ignored.
// Throws UserError when the old prefix cannot be found, when `final_path` holds a character the activate
// scripts cannot quote (' " $ ` \ or a newline), or when a file cannot be read or written (naming it).
VenvRelocation relocate_venv(const std::string& root, const std::string& final_path);

}  // namespace ezpz::core::yeet
