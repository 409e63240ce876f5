// The checks about the job's software environment, each run in the profile's shell as the batch script
// would: the module system and the modules the job loads, then the Python the job's setup activates.
#include <algorithm>
#include <filesystem>
#include <map>

#include "ezpz/doctor/checks.hpp"
#include "ezpz/util/devices.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/variable_refs.hpp"

namespace ezpz::core {
namespace {

namespace fs = std::filesystem;

// The lines of a script's answer that start with "ezpz-doctor ": KEY=VALUE, by key.
std::map<std::string, std::string> answers(const std::string& out) {
  std::map<std::string, std::string> found;
  const std::string marker = "ezpz-doctor ";
  for (const auto& line : split(out, '\n')) {
    if (!starts_with(line, marker)) continue;
    std::string rest = line.substr(marker.size());
    size_t equals = rest.find('=');
    if (equals != std::string::npos) found[rest.substr(0, equals)] = rest.substr(equals + 1);
  }
  return found;
}

// The last line the program wrote to stderr (where a failing setup says why), else its first line.
std::string last_error_line(const ProcessResult& result) {
  auto lines = split(trim(result.err), '\n');
  return lines.empty() || trim(lines.back()).empty() ? first_line(result) : printable(trim(lines.back()));
}

// The job's environment (env:) as the batch script exports it before setup:.
std::string env_lines(const DoctorInputs& inputs) {
  std::string lines;
  if (!inputs.job) return lines;
  for (const auto& [variable, value] : inputs.job->spec.env) {
    lines += "export " + variable + "=" + shell_quote_expanding(value.value) + "\n";
  }
  return lines;
}

ProcessResult run_in_shell(const DoctorInputs& inputs, const SystemProfile& profile, const std::string& script) {
  std::vector<std::string> argv = split_words(profile.shell);
  argv.push_back("-c");
  argv.push_back(script);
  return inputs.runner->run(argv);
}

std::vector<std::string> job_modules(const DoctorInputs& inputs, const SystemProfile& profile) {
  if (inputs.job) return inputs.job->spec.modules ? inputs.job->spec.modules->value : std::vector<std::string>{};
  return profile.defaults.modules ? profile.defaults.modules->value : std::vector<std::string>{};
}

std::string job_setup(const DoctorInputs& inputs, const SystemProfile& profile) {
  if (inputs.job) return inputs.job->spec.setup ? inputs.job->spec.setup->value : std::string();
  return profile.defaults.setup ? profile.defaults.setup->value : std::string();
}

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

// The lines that make the job's modules available, as the batch script has them.
std::string module_lines(const SystemProfile& profile, const std::vector<std::string>& modules) {
  std::string lines;
  for (const auto& dir : profile.module_use) lines += "module use " + shell_quote(dir) + "\n";
  for (const auto& module : modules) lines += "module load " + shell_quote(module) + "\n";
  return lines;
}

const char* const k_python_probe = R"SH(
echo "ezpz-doctor python=$(command -v python3 || true)"
command -v python3 >/dev/null || exit 0
python3 - <<'EZPZ_PY'
import sys
try:
    import torch
except Exception as error:
    print("ezpz-doctor torch=error %s: %s" % (type(error).__name__, str(error).splitlines()[0] if str(error) else ""))
    sys.exit(0)
print("ezpz-doctor torch=" + torch.__version__)
xpu = hasattr(torch, "xpu") and torch.xpu.is_available()
print("ezpz-doctor devices=%s" % ",".join(name for name, ok in (
    ("cuda", torch.cuda.is_available() and not torch.version.hip), ("rocm", torch.cuda.is_available() and bool(torch.version.hip)),
    ("xpu", xpu)) if ok))
EZPZ_PY
)SH";

}  // namespace

std::vector<Finding> check_modules(const DoctorInputs& inputs) {
  const char* name = "modules";
  const SystemProfile* profile = checked_profile(inputs);
  if (profile == nullptr) return {};
  std::vector<std::string> modules = job_modules(inputs, *profile);
  ProcessResult result =
      run_in_shell(inputs, *profile,
                   "if type module >/dev/null 2>&1; then echo 'ezpz-doctor module=yes'; "
                   "else echo 'ezpz-doctor module=no'; fi\necho \"ezpz-doctor path=${MODULEPATH:-}\"\n");
  auto found = answers(result.out);
  std::string shell = profile->shell;
  bool needed = !modules.empty() || !profile->module_use.empty();
  if (found["module"] != "yes") {
    if (!needed) return {ok_finding(name, "no module command in " + shell + ", and the job loads no modules")};
    return {error_finding(
        name, "the job loads modules (" + join(modules, ", ") + "), but " + shell + " has no module command",
        "source the module system's init in the profile's shell (e.g. /etc/profile.d/lmod.sh), or drop "
        "modules: if the environment is set up otherwise")};
  }
  std::vector<std::string> dirs = split(found["path"], ':');
  if (found["path"].empty()) {
    if (!needed)
      return {
          warn_finding(name, "module exists but MODULEPATH is not set in " + shell, "module load would find nothing")};
    if (profile->module_use.empty()) {
      return {error_finding(name,
                            "MODULEPATH is not set in " + shell + ": module load finds nothing, and may not say so",
                            "run the job's shell as a login shell (shell: /bin/bash -l), or set MODULEPATH in setup:")};
    }
  }
  dirs.insert(dirs.end(), profile->module_use.begin(), profile->module_use.end());
  std::vector<std::string> missing;
  for (const auto& module : modules) {
    if (!module_exists(module, dirs)) missing.push_back(module);
  }
  if (!missing.empty()) {
    // Not a file on MODULEPATH: perhaps one a module before it makes visible (an Lmod hierarchy, an
    // alias). Load them in order, as the batch script does, and name the first that fails.
    std::string script = module_lines(*profile, {});
    for (const auto& module : modules) {
      script += "module load " + shell_quote(module) + " || { echo 'ezpz-doctor failed=" + module + "'; exit 0; }\n";
    }
    ProcessResult loaded = run_in_shell(inputs, *profile, script + "echo 'ezpz-doctor failed='\n");
    auto load = answers(loaded.out);
    if (load.find("failed") == load.end() || !load["failed"].empty()) {
      std::string failed = load.count("failed") ? load["failed"] : join(missing, ", ");
      return {error_finding(name,
                            "module load " + failed + " fails: " + last_error_line(loaded) + " (not on MODULEPATH " +
                                join(dirs, ":") + ")",
                            "check the names with 'module avail', or add the directory to the profile's module_use")};
    }
    return {ok_finding(name, "module works in " + shell + "; " + join(modules, ", ") + " load (" + join(missing, ", ") +
                                 " only after the modules before it)")};
  }
  if (modules.empty()) return {ok_finding(name, "module works in " + shell + "; the job loads no modules")};
  return {ok_finding(name, "module works in " + shell + "; found " + join(modules, ", "))};
}

std::vector<Finding> check_python(const DoctorInputs& inputs) {
  const char* name = "python";
  const SystemProfile* profile = checked_profile(inputs);
  if (profile == nullptr) return {};
  std::string setup = job_setup(inputs, *profile);
  std::string script = "set -eo pipefail\necho \"ezpz-doctor before=$(command -v python3 || true)\"\n";
  std::vector<std::string> modules = job_modules(inputs, *profile);
  if (!modules.empty() || !profile->module_use.empty()) {
    script += "if type module >/dev/null 2>&1; then\n" + module_lines(*profile, modules) + "fi\n";
  }
  script += env_lines(inputs) + setup + "\necho \"ezpz-doctor activated=${VIRTUAL_ENV:-}${CONDA_PREFIX:-}\"\n" +
            k_python_probe;
  ProcessResult result = run_in_shell(inputs, *profile, script);
  auto found = answers(result.out);
  if (result.timed_out)
    return {error_finding(name, "the job's setup and python3 did not finish in time", "run the setup by hand")};
  if (found.find("python") == found.end()) {
    return {error_finding(
        name, "the job's setup failed (exit code " + std::to_string(result.exit_code) + "): " + last_error_line(result),
        "run the setup: lines by hand in " + profile->shell + " and fix the first error")};
  }
  const std::string& python = found["python"];
  if (python.empty()) {
    return {error_finding(name, "no python3 on PATH after the job's setup",
                          "activate an environment with Python in setup:")};
  }
  std::string torch = found["torch"];
  if (torch.empty() || starts_with(torch, "error")) {
    return {error_finding(name,
                          python + " (after the job's setup) cannot import torch: " +
                              (torch.empty() ? last_error_line(result) : torch.substr(6)),
                          "activate the environment that has torch in setup:, or install torch into it")};
  }
  std::string text = python + " has torch " + torch;
  // #216 of the Python ezpz: a setup that "succeeded" with nothing activated. Not said when an
  // environment is active after it (it may have been active before, too).
  if (setup.find("activate") != std::string::npos && found["before"] == python && found["activated"].empty()) {
    return {warn_finding(name, text + ", but setup: activates an environment and python3 is still " + python,
                         "check that the environment setup: activates exists: the activation may have done nothing")};
  }
  const Devices& devices = profile->node.devices;
  if (devices.kind == DeviceKind::cpu) return {ok_finding(name, text + "; ranks use the CPU")};
  std::string kind = device_kind_name(devices.kind);
  std::vector<std::string> seen = split(found["devices"], ',');
  bool sees = std::find(seen.begin(), seen.end(), kind) != seen.end();
  if (sees) return {ok_finding(name, text + ", which sees " + kind)};
  if (!job_context(inputs).inside()) {
    return {ok_finding(name, text + "; it sees no " + kind + " here (a login node); it is checked again inside a job")};
  }
  return {error_finding(name, text + ", which sees no " + kind + " device on this compute node",
                        "install the " + kind + " build of torch in the job's environment")};
}

}  // namespace ezpz::core
