// Relocating a copied virtual environment: the old prefix, activate scripts, `#!` lines and symlinks.
#include "ezpz/yeet/venv.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../cannot_run.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core::yeet {
namespace {

namespace fs = std::filesystem;

// A long destination: "#!" + it + "/bin/python3" is over Linux's 127 bytes, so pip would use the trampoline.
const std::string k_long = "/local/scratch/" + std::string(110, 'x') + "/env";

std::string trampoline(const std::string& interpreter) {
  return "#!/bin/sh\n'''exec' " + interpreter + " \"$0\" \"$@\"\n' '''\n";
}

// Standard output of `sh -c COMMAND`, with its exit status.
std::string run(const std::string& command, int* status = nullptr) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  char buffer[4096];
  size_t n;
  while (pipe && (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  int result = pipe ? ::pclose(pipe) : -1;
  if (status) *status = result;
  return out;
}

class VenvRelocate : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = ::testing::TempDir() + "ezpz-venv-XXXXXX";
    ASSERT_NE(::mkdtemp(m_dir.data()), nullptr);
    m_root = m_dir + "/stage";
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(m_dir, ignored);
  }

  // Writes `text` to `relative` under the venv root, creating directories.
  void write(const std::string& relative, const std::string& text, fs::perms mode = fs::perms(0644)) {
    fs::path path = m_root + "/" + relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    fs::permissions(path, mode);
  }
  void link(const std::string& relative, const std::string& target) {
    fs::path path = m_root + "/" + relative;
    fs::create_directories(path.parent_path());
    fs::create_symlink(target, path);
  }
  std::string read(const std::string& relative) const {
    std::ifstream in(m_root + "/" + relative, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::string target(const std::string& relative) const { return fs::read_symlink(m_root + "/" + relative); }
  unsigned mode(const std::string& relative) const {
    return static_cast<unsigned>(fs::status(m_root + "/" + relative).permissions());
  }

  // A venv made at /old by hand, as `python3 -m venv /old` (Python 3.11) and pip would leave it.
  void write_venv(const std::string& activate = "VIRTUAL_ENV=\"/old\"\nexport VIRTUAL_ENV\n") {
    write("pyvenv.cfg",
          "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n"
          "executable = /usr/bin/python3.11\ncommand = /usr/bin/python3 -m venv /old\n");
    write("bin/activate", activate);
  }

  std::string m_dir;
  std::string m_root;
};

TEST_F(VenvRelocate, IsAVenvWithPyvenvCfgAtTheTop) {
  EXPECT_FALSE(is_venv(m_root));
  write("bin/python3", "");
  EXPECT_FALSE(is_venv(m_root));
  write("pyvenv.cfg", "home = /usr/bin\n");
  EXPECT_TRUE(is_venv(m_root));
}

struct PrefixCase {
  const char* name;
  const char* activate;  // nullptr: no bin/activate
  const char* command;   // pyvenv.cfg's command line
  const char* expected;
};

void PrintTo(const PrefixCase& param, std::ostream* out) {
  *out << param.name;
}

class VenvPrefix : public VenvRelocate, public ::testing::WithParamInterface<PrefixCase> {};

TEST_P(VenvPrefix, FindsWhereTheVenvWasCreated) {
  const PrefixCase& c = GetParam();
  write("pyvenv.cfg", std::string("home = /usr/bin\n") + c.command + "\n");
  if (c.activate)
    write("bin/activate", std::string("# This file must be used with \"source bin/activate\"\n\n") +
                              "deactivate () {\n    unset VIRTUAL_ENV\n}\n" + c.activate + "\n");
  EXPECT_EQ(relocate_venv(m_root, "/new").old_prefix, c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Venv, VenvPrefix,
    ::testing::Values(
        // Python <= 3.11.10 upstream: VIRTUAL_ENV="__VENV_DIR__".
        PrefixCase{"double_quotes", "VIRTUAL_ENV=\"/old/env\"\nexport VIRTUAL_ENV", "", "/old/env"},
        // Debian 12's 3.11 and upstream after gh-124651: VIRTUAL_ENV=__VENV_DIR__ with shlex.quote.
        PrefixCase{"bare", "VIRTUAL_ENV=/old/env\nexport VIRTUAL_ENV", "", "/old/env"},
        PrefixCase{"single_quotes", "VIRTUAL_ENV='/old/my env'\nexport VIRTUAL_ENV", "", "/old/my env"},
        // Python 3.12 and 3.13.0: a cygpath branch first, then `export VIRTUAL_ENV="..."`.
        PrefixCase{"cygpath_branch",
                   "case \"$(uname)\" in\n    CYGWIN*|MSYS*)\n        VIRTUAL_ENV=$(cygpath \"/old/env\")\n"
                   "        export VIRTUAL_ENV\n        ;;\n    *)\n        export VIRTUAL_ENV=\"/old/env\"\n"
                   "        ;;\nesac",
                   "", "/old/env"},
        PrefixCase{"export_bare", "    export VIRTUAL_ENV=$(cygpath /old/env)\n    export VIRTUAL_ENV=/old/env", "",
                   "/old/env"},
        PrefixCase{"trailing_slash", "VIRTUAL_ENV=\"/old/env/\"", "", "/old/env"},
        PrefixCase{"activate_wins", "VIRTUAL_ENV=\"/old/env\"", "command = /usr/bin/python3 -m venv /elsewhere",
                   "/old/env"},
        PrefixCase{"config_command", nullptr, "command = /usr/bin/python3 -m venv --without-pip /old/env", "/old/env"},
        PrefixCase{"config_command_with_space", nullptr, "command = /usr/bin/python3 -m venv /old/my env",
                   "/old/my env"},
        PrefixCase{"activate_without_it", "echo hello", "command = /usr/bin/python3 -m venv /old/env", "/old/env"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST_F(VenvRelocate, UnknownPrefixIsAUserError) {
  write("pyvenv.cfg", "home = /usr/bin\nversion = 3.11.2\n");
  try {
    relocate_venv(m_root, "/new");
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_EQ(error.diagnostics()[0].message, "cannot tell where the virtual environment '" + m_root + "' was created");
    EXPECT_NE(error.diagnostics()[0].hint, "");
  }
}

TEST_F(VenvRelocate, RelocatesEveryPieceOfAVenv) {
  write_venv();
  write("bin/activate", "VIRTUAL_ENV=\"/old\"\nexport VIRTUAL_ENV\nPATH=\"$VIRTUAL_ENV/bin:$PATH\"\n");
  write("bin/activate.csh", "setenv VIRTUAL_ENV \"/old\"\nsetenv PATH \"$VIRTUAL_ENV/bin:$PATH\"\n");
  write("bin/activate.fish", "set -gx VIRTUAL_ENV \"/old\"\nset -gx PATH \"$VIRTUAL_ENV/bin\" $PATH\n");
  const std::string script = "# -*- coding: utf-8 -*-\nimport sys\nfrom pip import main\n";
  write("bin/pip", "#!/old/bin/python3\n" + script, fs::perms(0755));
  write("bin/sibling", "#!/old2/bin/python3\n" + script, fs::perms(0750));
  const std::string binary(
      "\x7f"
      "ELF\0\0\0#!/old/bin/python3 /old\0",
      32);
  write("bin/tool", binary, fs::perms(0755));
  write("lib/python3.11/site-packages/data.bin", binary);
  link("bin/python", "/usr/bin/python3");
  link("bin/python3", "python");
  link("lib64", "lib");
  link("top", "/old");
  link("lib/python3.11/site-packages/pkg", "/old/src/pkg");
  link("lib/python3.11/site-packages/other", "/old2/src/pkg");

  VenvRelocation result = relocate_venv(m_root, k_long);

  EXPECT_EQ(result.old_prefix, "/old");
  EXPECT_EQ(result.files_changed, 7);  // pyvenv.cfg, 3 activate scripts, pip, 2 links
  EXPECT_EQ(read("pyvenv.cfg"),
            "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n"
            "executable = /usr/bin/python3.11\ncommand = /usr/bin/python3 -m venv " +
                k_long + "\n");
  EXPECT_EQ(read("bin/activate"),
            "VIRTUAL_ENV=\"" + k_long + "\"\nexport VIRTUAL_ENV\nPATH=\"$VIRTUAL_ENV/bin:$PATH\"\n");
  EXPECT_EQ(read("bin/activate.csh"),
            "setenv VIRTUAL_ENV \"" + k_long + "\"\nsetenv PATH \"$VIRTUAL_ENV/bin:$PATH\"\n");
  EXPECT_EQ(read("bin/activate.fish"),
            "set -gx VIRTUAL_ENV \"" + k_long + "\"\nset -gx PATH \"$VIRTUAL_ENV/bin\" $PATH\n");
  EXPECT_EQ(read("bin/pip"), trampoline(k_long + "/bin/python3") + script);
  EXPECT_EQ(mode("bin/pip"), 0755u);
  EXPECT_EQ(mode("bin/activate"), 0644u);
  EXPECT_EQ(read("bin/sibling"), "#!/old2/bin/python3\n" + script);
  EXPECT_EQ(mode("bin/sibling"), 0750u);
  EXPECT_EQ(read("bin/tool"), binary);
  EXPECT_EQ(read("lib/python3.11/site-packages/data.bin"), binary);
  EXPECT_EQ(target("bin/python"), "/usr/bin/python3");
  EXPECT_EQ(target("bin/python3"), "python");
  EXPECT_EQ(target("lib64"), "lib");
  EXPECT_EQ(target("top"), k_long);
  EXPECT_EQ(target("lib/python3.11/site-packages/pkg"), k_long + "/src/pkg");
  EXPECT_EQ(target("lib/python3.11/site-packages/other"), "/old2/src/pkg");
  for (const auto& entry : fs::recursive_directory_iterator(m_root))
    EXPECT_EQ(entry.path().string().find(".ezpz"), std::string::npos) << entry.path();
}

TEST_F(VenvRelocate, SamePathChangesNothing) {
  write_venv();
  write("bin/pip", "#!/old/bin/python3\n");
  link("top", "/old");
  EXPECT_EQ(relocate_venv(m_root, "/old/").files_changed, 0);
  EXPECT_EQ(read("bin/pip"), "#!/old/bin/python3\n");
}

TEST_F(VenvRelocate, ReplacesOnlyWholePaths) {
  struct Line {
    std::string before, after;
  };
  const std::vector<Line> lines = {
      {"VIRTUAL_ENV=\"/old\"", "VIRTUAL_ENV=\"/new\""},
      {"VIRTUAL_ENV=/old", "VIRTUAL_ENV=/new"},
      {"X='/old' # end", "X='/new' # end"},
      {"PATH=\"/old/bin:$PATH\"", "PATH=\"/new/bin:$PATH\""},
      {"echo /old\t/old", "echo /new\t/new"},
      {"X=/old2/bin", "X=/old2/bin"},
      {"X=\"/old2\"", "X=\"/old2\""},
      {"X=/b/old/bin", "X=/b/old/bin"},
      {"X=/older", "X=/older"},
      {"X=/old.bak", "X=/old.bak"},
      {"X=~/old", "X=~/old"},
  };
  std::string before, after;
  for (const auto& line : lines) {
    before += line.before + "\n";
    after += line.after + "\n";
  }
  write_venv(before);
  relocate_venv(m_root, "/new");
  EXPECT_EQ(read("bin/activate"), after);
}

TEST_F(VenvRelocate, QuotesANewPathWithASpaceWhereTheScriptDidNot) {
  write_venv("VIRTUAL_ENV=/old\nexport VIRTUAL_ENV\nPATH=\"$VIRTUAL_ENV/bin:$PATH\"\n");
  write("bin/activate.csh", "setenv VIRTUAL_ENV '/old'\n");
  write("bin/activate.nu", "let virtual_env = r#'/old'#\n");
  write("bin/pip", "#!/old/bin/python3 -E\nimport pip\n", fs::perms(0755));
  relocate_venv(m_root, "/new dir");
  EXPECT_EQ(read("bin/activate"), "VIRTUAL_ENV='/new dir'\nexport VIRTUAL_ENV\nPATH=\"$VIRTUAL_ENV/bin:$PATH\"\n");
  EXPECT_EQ(read("bin/activate.csh"), "setenv VIRTUAL_ENV '/new dir'\n");
  EXPECT_EQ(read("bin/activate.nu"), "let virtual_env = r#'/new dir'#\n");
  EXPECT_EQ(read("bin/pip"), trampoline("\"/new dir/bin/python3\" -E") + "import pip\n");
  EXPECT_EQ(run(". " + shell_quote(m_root + "/bin/activate") + " && printf %s \"$VIRTUAL_ENV\""), "/new dir");
  EXPECT_EQ(read("pyvenv.cfg").substr(read("pyvenv.cfg").find("command")),
            "command = /usr/bin/python3 -m venv /new dir\n");
}

TEST_F(VenvRelocate, RefusesPathsTheActivateScriptsCannotQuote) {
  write_venv();
  for (std::string bad : {"/new'dir", "/new\"dir", "/new$dir", "/new`dir", "/new\\dir", "/new\ndir"}) {
    EXPECT_THROW(relocate_venv(m_root, bad), UserError) << bad;
  }
  EXPECT_EQ(read("bin/activate"), "VIRTUAL_ENV=\"/old\"\nexport VIRTUAL_ENV\n");
}

struct ShebangCase {
  const char* name;
  std::string before;
  std::string final_path;
  std::string after;
};

void PrintTo(const ShebangCase& param, std::ostream* out) {
  *out << param.name;
}

class VenvShebang : public VenvRelocate, public ::testing::WithParamInterface<ShebangCase> {};

TEST_P(VenvShebang, RewritesLikePip) {
  write_venv();
  write("bin/script", GetParam().before, fs::perms(0755));
  relocate_venv(m_root, GetParam().final_path);
  EXPECT_EQ(read("bin/script"), GetParam().after);
  EXPECT_EQ(mode("bin/script"), 0755u);
}

const std::string k_body = "import sys\nsys.exit(main())\n";
// 127 bytes with "#!" and the newline: the longest plain line Linux runs.
const std::string k_fits = "/" + std::string(124 - std::string("/bin/python3").size() - 1, 'f');

INSTANTIATE_TEST_SUITE_P(
    Venv, VenvShebang,
    ::testing::Values(
        ShebangCase{"plain", "#!/old/bin/python3\n" + k_body, "/new", "#!/new/bin/python3\n" + k_body},
        ShebangCase{"arguments", "#!/old/bin/python3 -E -s\n" + k_body, "/new", "#!/new/bin/python3 -E -s\n" + k_body},
        ShebangCase{"space_after_bang", "#! /old/bin/python3\n" + k_body, "/new", "#!/new/bin/python3\n" + k_body},
        ShebangCase{"no_newline", "#!/old/bin/python3", "/new", "#!/new/bin/python3"},
        ShebangCase{"longest_plain", "#!/old/bin/python3\n" + k_body, k_fits,
                    "#!" + k_fits + "/bin/python3\n" + k_body},
        ShebangCase{"one_byte_over", "#!/old/bin/python3\n" + k_body, k_fits + "f",
                    trampoline(k_fits + "f/bin/python3") + k_body},
        ShebangCase{"long", "#!/old/bin/python3\n" + k_body, k_long, trampoline(k_long + "/bin/python3") + k_body},
        ShebangCase{"trampoline_to_plain", trampoline("/old/bin/python3") + k_body, "/new",
                    "#!/new/bin/python3\n" + k_body},
        ShebangCase{"trampoline_to_trampoline", trampoline("\"/old/bin/python3\" -E") + k_body, k_long,
                    trampoline(k_long + "/bin/python3 -E") + k_body},
        ShebangCase{"the_prefix_itself", "#!/old\n", "/new", "#!/new\n"},
        ShebangCase{"sibling_prefix", "#!/old2/bin/python3\n" + k_body, "/new", "#!/old2/bin/python3\n" + k_body},
        ShebangCase{"env", "#!/usr/bin/env python3\n" + k_body, "/new", "#!/usr/bin/env python3\n" + k_body},
        ShebangCase{"only_the_first_line", "#!/bin/sh\nexec /old/bin/python3 \"$@\"\n", "/new",
                    "#!/bin/sh\nexec /old/bin/python3 \"$@\"\n"},
        ShebangCase{"binary_after_the_line", std::string("#!/old/bin/python3\nPK\0\0/old\0", 27), "/new",
                    std::string("#!/new/bin/python3\nPK\0\0/old\0", 27)}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

// A real venv made by `python3 -m venv`, copied with `cp -a`, relocated to a path too long for a plain
// `#!` line, renamed into place with the original gone: python, activate and a pip-style script work.
TEST_F(VenvRelocate, RealVenvRunsFromItsNewPath) {
  const std::string original = m_dir + "/orig";
  const std::string final_path = m_dir + "/" + std::string(100, 'n') + "/env";
  int status = 0;
  std::string out = run("python3 -m venv --without-pip " + shell_quote(original) + " 2>&1", &status);
  if (status != 0) EZPZ_CANNOT_RUN("python3 -m venv does not work here (Debian: python3-venv): " << out);
  std::ofstream(original + "/bin/hello") << "#!" << original << "/bin/python3\nimport sys\nprint(sys.prefix)\n";
  fs::permissions(original + "/bin/hello", fs::perms(0755));
  ASSERT_EQ(
      run("cp -a " + shell_quote(original) + " " + shell_quote(m_root) + " 2>&1 && rm -rf " + shell_quote(original),
          &status),
      "");
  ASSERT_EQ(status, 0);

  VenvRelocation result = relocate_venv(m_root, final_path);
  EXPECT_EQ(result.old_prefix, original);
  EXPECT_GE(result.files_changed, 5);  // pyvenv.cfg, activate, activate.csh, activate.fish, hello
  fs::create_directories(fs::path(final_path).parent_path());
  fs::rename(m_root, final_path);

  const std::string quoted = shell_quote(final_path);
  EXPECT_EQ(run(quoted + "/bin/python3 -c 'import sys; print(sys.prefix)'"), final_path + "\n");
  EXPECT_EQ(run("bash -c '. \"$1/bin/activate\" && echo \"$VIRTUAL_ENV\"' sh " + quoted), final_path + "\n");
  EXPECT_EQ(run(quoted + "/bin/hello"), final_path + "\n");
}

}  // namespace
}  // namespace ezpz::core::yeet
