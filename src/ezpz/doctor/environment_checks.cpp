// The checks about the job's software environment, each run in the profile's shell as the batch script
// would: the module system and the modules the job loads, then the Python the job's setup activates.
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "ezpz/doctor/checks.hpp"
#include "ezpz/util/devices.hpp"
#include "ezpz/util/regex.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/variable_refs.hpp"

namespace ezpz::core {
namespace {

namespace fs = std::filesystem;

// Whether a module name is in one of `dirs`: a file or directory NAME, or NAME.lua (Lmod and
// Environment Modules keep "conda/2024" as conda/2024 or conda/2024.lua under a MODULEPATH entry).
bool module_exists(const std::string& module, const std::vector<std::string>& dirs) {
  std::error_code error;
  for (const auto& dir : dirs) {
    if (dir.empty()) continue;
    fs::path path = fs::path(dir) / module;
    if (fs::exists(path, error) || fs::exists(path.string() + ".lua", error)) return true;
  }
  return false;
}

// What `module load` prints when it fails, for module systems whose load can fail with exit code 0
// (Environment Modules 3.2 printed "cmdModule.c(166):ERROR:11: …" and returned 0); Lmod's own line is
// "Lmod has detected the following error: The following module(s) are unknown: …" (the Python ezpz,
// saforem2/ezpz#220 and #221, 2026-08-22).
const char* const k_module_error_text = "(?m)Lmod has detected the following error|(^|:)ERROR:";

// Whether a shell command line runs a login shell: the profile's shell, as the batch script's #! line.
bool login_shell(const std::string& shell) {
  for (const auto& word : split_words(shell)) {
    if (word == "-l" || word == "--login" ||
        (starts_with(word, "-") && !starts_with(word, "--") && word.find('l') != std::string::npos))
      return true;
  }
  return false;
}

// A module's load, as the probe reports it: its exit code and what it printed.
struct ModuleLoad {
  std::string module;
  int status = 0;
  std::string output;  // the lines it printed, stdout and stderr
};

// The loads in `out`: each module's output is the lines before its "ezpz-doctor loaded=…" line.
std::vector<ModuleLoad> module_loads(const std::string& out) {
  std::vector<ModuleLoad> loads;
  std::string pending;
  for (const auto& line : split(out, '\n')) {
    auto rest = strip_prefix(line, "ezpz-doctor loaded=");
    if (!rest) {
      if (!starts_with(line, "ezpz-doctor ")) pending += line + "\n";
      continue;
    }
    std::string answer(*rest);
    size_t space = answer.rfind(" status=");
    ModuleLoad load;
    load.module = answer.substr(0, space);
    if (space != std::string::npos) load.status = std::atoi(answer.c_str() + space + 8);
    load.output = pending;
    pending.clear();
    loads.push_back(std::move(load));
  }
  return loads;
}

// The line of a failed load's output that says why: the module system's error line, else the last line.
std::string why_load_failed(const ModuleLoad& load) {
  const Regex& error_text = compile_regex(k_module_error_text, {}, "module error text");
  std::string last;
  for (const auto& line : split(trim(load.output), '\n')) {
    if (trim(line).empty()) continue;
    if (error_text.search(line)) return printable(trim(line));
    last = printable(trim(line));
  }
  return last.empty() ? "exit code " + std::to_string(load.status) : last;
}

bool load_failed(const ModuleLoad& load) {
  return load.status != 0 || compile_regex(k_module_error_text, {}, "module error text").search(load.output);
}

}  // namespace

std::vector<Finding> check_modules(const DoctorInputs& inputs) {
  const char* name = "modules";
  const SystemProfile* profile = checked_profile(inputs);
  if (profile == nullptr) return {};
  std::vector<std::string> modules = job_modules(inputs, *profile);
  // One run: whether `module` exists and MODULEPATH is set, then the job's modules loaded in order as
  // the batch script loads them, each followed by its exit code. Every module is loaded, even one whose
  // file is on MODULEPATH: a module file that exists can still fail to load (the Polaris conda modules
  // needed PE versions the upgrade removed: saforem2/ezpz#220, 2026-08-22), and one that is not there
  // may appear once the modules before it are loaded (an Lmod hierarchy).
  std::string script =
      "if type module >/dev/null 2>&1; then echo 'ezpz-doctor module=yes'; else echo 'ezpz-doctor module=no'; exit 0; "
      "fi\n"
      "echo \"ezpz-doctor path=${MODULEPATH:-}\"\n";
  for (const auto& dir : profile->module_use) script += "module use " + shell_quote(dir) + " 2>&1\n";
  for (const auto& module : modules) {
    script += "module load " + shell_quote(module) + " 2>&1\necho 'ezpz-doctor loaded='" + shell_quote(module) +
              "\" status=$?\"\n";
  }
  ProcessResult result = run_in_shell(inputs, *profile, script);
  auto found = probe_answers(result.out);
  const std::string& shell = profile->shell;
  bool needed = !modules.empty() || !profile->module_use.empty();
  if (found["module"] != "yes") {
    if (!needed) return {ok_finding(name, "no module command in " + shell + ", and the job loads no modules")};
    return {
        error_finding(name,
                      (modules.empty() ? "the profile adds module directories (" + join(profile->module_use, ", ") + ")"
                                       : "the job loads modules (" + join(modules, ", ") + ")") +
                          ", but " + shell + " has no module command",
                      "source the module system's init in the profile's shell (e.g. /etc/profile.d/lmod.sh), or drop "
                      "modules: if the environment is set up otherwise")};
  }
  // `module` defined but MODULEPATH empty: a batch shell that is not a login shell (PBS runs job scripts
  // non-login; sourcing the module system's init defines the function but not the site's MODULEPATH,
  // which the login profile sets), so every module load fails, and the setup goes on with the system
  // Python (saforem2/ezpz#221 and its fix #222, 2026-08-22).
  bool empty_path = found["path"].empty();
  std::string empty_path_remedy =
      login_shell(shell) ? "the login profile of " + shell +
                               " sets no MODULEPATH here: add the directories to the "
                               "profile's module_use, or set MODULEPATH in setup:"
                         : "the profile's shell '" + shell + "' is not a login shell: make it one (shell: " + shell +
                               " -l, the batch script's #! line), or set MODULEPATH in setup:";
  if (empty_path && !needed) {
    return {warn_finding(name, "module exists but MODULEPATH is not set in " + shell,
                         "module load would find nothing; " + empty_path_remedy)};
  }
  if (empty_path && profile->module_use.empty()) {
    return {error_finding(name,
                          "MODULEPATH is not set in " + shell + ": module load " + join(modules, ", ") +
                              " finds nothing, and may not say so",
                          empty_path_remedy)};
  }
  std::vector<std::string> dirs;
  for (const auto& dir : split(found["path"], ':')) {
    if (!dir.empty()) dirs.push_back(dir);
  }
  dirs.insert(dirs.end(), profile->module_use.begin(), profile->module_use.end());
  std::vector<ModuleLoad> loads = module_loads(result.out);
  for (const auto& module : modules) {
    auto load = std::find_if(loads.begin(), loads.end(), [&](const ModuleLoad& l) { return l.module == module; });
    if (load == loads.end()) {
      return {error_finding(name, "module load " + module + " did not finish: " + last_error_line(result),
                            "run module load " + module + " by hand in " + shell)};
    }
    if (!load_failed(*load)) continue;
    std::string where = module_exists(module, dirs) ? "its module file is on MODULEPATH: the module itself fails"
                                                    : "not on MODULEPATH " + join(dirs, ":");
    if (empty_path) where = "MODULEPATH was empty; " + where;
    return {error_finding(name, "module load " + module + " fails: " + why_load_failed(*load) + " (" + where + ")",
                          empty_path ? empty_path_remedy
                                     : "check the name with 'module avail', load what it needs before it, or add "
                                       "its directory to the profile's module_use")};
  }
  if (modules.empty()) return {ok_finding(name, "module works in " + shell + "; the job loads no modules")};
  return {ok_finding(name, "module works in " + shell + "; loaded " + join(modules, ", "))};
}

// `import torch` in the job's environment: its modules, the profile's backend environment (Frontier's
// puts $CRAY_LD_LIBRARY_PATH first on the library path), env: and setup:, as the ranks will have it.
std::vector<Finding> check_python(const DoctorInputs& inputs) {
  const char* name = "python";
  const SystemProfile* profile = checked_profile(inputs);
  if (profile == nullptr) return {};
  std::string setup = job_setup(inputs, *profile);
  const JobProbe& probe = job_probe(inputs);
  const ProcessResult& result = probe.result;
  if (result.timed_out)
    return {error_finding(name, "the job's setup and python3 did not finish in time", "run the setup by hand")};
  if (probe.values("python").empty()) {
    return {error_finding(
        name, "the job's setup failed (exit code " + std::to_string(result.exit_code) + "): " + last_error_line(result),
        "run the setup: lines by hand in " + profile->shell + " and fix the first error")};
  }
  std::string python = probe.value("python");
  if (python.empty()) {
    return {error_finding(name, "no python3 on PATH after the job's setup",
                          "activate an environment with Python in setup:")};
  }
  std::string torch = probe.value("torch");
  if (torch.empty() || starts_with(torch, "error")) {
    return {error_finding(name,
                          python + " (after the job's setup) cannot import torch: " +
                              (torch.empty() ? last_error_line(result) : torch.substr(6)),
                          "activate the environment that has torch in setup:, or install torch into it")};
  }
  std::string text = python + " has torch " + torch;
  // #216 of the Python ezpz: a setup that "succeeded" with nothing activated. Not said when an
  // environment is active after it (it may have been active before, too).
  if (setup.find("activate") != std::string::npos && probe.value("before") == python &&
      probe.value("activated").empty()) {
    return {warn_finding(name, text + ", but setup: activates an environment and python3 is still " + python,
                         "check that the environment setup: activates exists: the activation may have done nothing")};
  }
  const Devices& devices = profile->node.devices;
  if (devices.kind == DeviceKind::cpu) return {ok_finding(name, text + "; ranks use the CPU")};
  std::string kind = device_kind_name(devices.kind);
  std::vector<std::string> seen = split(probe.value("devices"), ',');
  bool sees = std::find(seen.begin(), seen.end(), kind) != seen.end();
  if (sees) return {ok_finding(name, text + ", which sees " + kind)};
  if (!job_context(inputs).inside()) {
    return {ok_finding(name, text + "; it sees no " + kind + " here (a login node); it is checked again inside a job")};
  }
  return {error_finding(name, text + ", which sees no " + kind + " device on this compute node",
                        "install the " + kind + " build of torch in the job's environment")};
}

}  // namespace ezpz::core
