// The job's environment as the batch script makes it, for the checks that look into it: the script
// that makes it, the probe that asks it what the checks need, and the answers, kept once asked.
#include <algorithm>

#include "ezpz/doctor/checks.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/variable_refs.hpp"

namespace ezpz::core {
namespace {

const std::string k_marker = "ezpz-doctor ";

// The lines that make the job's modules available, as the batch script has them.
std::string module_lines(const SystemProfile& profile, const std::vector<std::string>& modules) {
  std::string lines;
  for (const auto& dir : profile.module_use) lines += "module use " + shell_quote(dir) + "\n";
  for (const auto& module : modules) lines += "module load " + shell_quote(module) + "\n";
  return lines;
}

// What the checks ask the job's environment, after its setup: the python check's python3 and torch
// (imported), the nccl check's library path, NCCL variables, the loader's cache of network plugins and
// the NCCL library torch's GPU library links (ldd, without importing torch), and the gpu-mpi check's
// MPICH_GPU_SUPPORT_ENABLED with the MPI libraries of the programs that start MPI (the positional
// parameters; none: the MPI extension of $ezpz_python's mpi4py, found without importing it, as the mpi
// check does). Every line is "ezpz-doctor KEY=VALUE"; "done=1" ends a probe that ran to its end.
const char* const k_probe = R"SH(
echo "ezpz-doctor library_path=${LD_LIBRARY_PATH:-}"
echo "ezpz-doctor nccl_net=${NCCL_NET:-}"
echo "ezpz-doctor nccl_net_plugin=${NCCL_NET_PLUGIN:-}"
echo "ezpz-doctor gpu_support=${MPICH_GPU_SUPPORT_ENABLED:-}"
echo "ezpz-doctor preload=${LD_PRELOAD:-}"
{ ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | sed -n -E '/lib[nr]ccl-net/s/.*=> /ezpz-doctor ldcache=/p'
echo "ezpz-doctor python=$(command -v python3 || true)"
if command -v python3 >/dev/null; then
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
ezpz_torch_dir=$(python3 -c 'import importlib.util as u
s = u.find_spec("torch")
print(list(s.submodule_search_locations)[0] if s and s.submodule_search_locations else "")' 2>/dev/null)
for ezpz_lib in libtorch_cuda.so libtorch_hip.so; do
  if [ -n "$ezpz_torch_dir" ] && [ -e "$ezpz_torch_dir/lib/$ezpz_lib" ]; then
    echo "ezpz-doctor torch_lib=$ezpz_torch_dir/lib/$ezpz_lib"
    ldd "$ezpz_torch_dir/lib/$ezpz_lib" 2>&1 | sed -n -E '/lib[nr]ccl\.so/s/^[[:space:]]*/ezpz-doctor torch_nccl=/p'
  fi
done
fi
if [ "${MPICH_GPU_SUPPORT_ENABLED:-}" = 1 ]; then
  if [ $# -eq 0 ]; then
    ezpz_mpi4py=$("$ezpz_python" -c 'import importlib.util as u
s = u.find_spec("mpi4py") and u.find_spec("mpi4py.MPI")
print(s.origin if s else "")' 2>/dev/null)
    echo "ezpz-doctor mpi4py=$ezpz_mpi4py"
    if [ -n "$ezpz_mpi4py" ]; then set -- "$ezpz_mpi4py"; fi
  fi
  for ezpz_program in "$@"; do
    echo "ezpz-doctor program=$ezpz_program"
    ldd "$ezpz_program" 2>&1 | sed -n -E '/libmpi|libmpich|not found/s/^[[:space:]]*/ezpz-doctor ldd=/p'
  done
fi
echo "ezpz-doctor done=1"
)SH";

}  // namespace

std::string last_error_line(const ProcessResult& result) {
  auto lines = split(trim(result.err), '\n');
  return lines.empty() || trim(lines.back()).empty() ? first_line(result) : printable(trim(lines.back()));
}

std::vector<std::pair<std::string, std::string>> probe_answer_list(const std::string& out) {
  std::vector<std::pair<std::string, std::string>> found;
  for (const auto& line : split(out, '\n')) {
    if (!starts_with(line, k_marker)) continue;
    std::string rest = line.substr(k_marker.size());
    size_t equals = rest.find('=');
    if (equals != std::string::npos) found.emplace_back(rest.substr(0, equals), rest.substr(equals + 1));
  }
  return found;
}

std::map<std::string, std::string> probe_answers(const std::string& out) {
  std::map<std::string, std::string> found;
  for (auto& [key, value] : probe_answer_list(out)) found[key] = value;
  return found;
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

long job_nodes(const DoctorInputs& inputs) {
  return inputs.job ? inputs.job->spec.nodes->value : 1;
}

long job_ranks_per_node(const DoctorInputs& inputs, const SystemProfile& profile) {
  if (inputs.job) return inputs.job->spec.ranks_per_node->value;
  return std::max(1, profile.node.devices.count);
}

std::string job_environment_script(const DoctorInputs& inputs, const SystemProfile& profile) {
  std::string script;
  std::vector<std::string> modules = job_modules(inputs, profile);
  if (!modules.empty() || !profile.module_use.empty()) {
    script += "if type module >/dev/null 2>&1; then\n" + module_lines(profile, modules) + "fi\n";
  }
  // The entries `ezpz exec` exports too; set before setup:, which may change them (the batch script's order).
  for (const auto& entry : profile.backend_env.for_job(job_nodes(inputs), job_ranks_per_node(inputs, profile))) {
    script += "export " + entry.name + "=" + shell_quote_expanding(entry.value) + "\n";
  }
  if (inputs.job) {
    for (const auto& [variable, value] : inputs.job->spec.env) {
      script += "export " + variable + "=" + shell_quote_expanding(value.value) + "\n";
    }
  }
  return script + job_setup(inputs, profile) + "\n";
}

std::string JobProbe::value(const std::string& key) const {
  for (auto it = answers.rbegin(); it != answers.rend(); ++it) {
    if (it->first == key) return it->second;
  }
  return {};
}

std::vector<std::string> JobProbe::values(const std::string& key) const {
  std::vector<std::string> found;
  for (const auto& [name, value] : answers) {
    if (name == key) found.push_back(value);
  }
  return found;
}

const JobProbe& job_probe(const DoctorInputs& inputs) {
  if (inputs.job_probe) return *inputs.job_probe;
  auto probe = std::make_shared<JobProbe>();
  const SystemProfile* profile = checked_profile(inputs);
  if (profile != nullptr) {
    // set -e: a failing setup ends the probe there (no "done"), as it would end the batch script.
    std::string script = "set -eo pipefail\necho \"ezpz-doctor before=$(command -v python3 || true)\"\n" +
                         job_environment_script(inputs, *profile) +
                         "echo \"ezpz-doctor activated=${VIRTUAL_ENV:-}${CONDA_PREFIX:-}\"\nset +e +o pipefail\n" +
                         "ezpz_python=" + shell_quote(inputs.python) + "\nset --";
    for (const auto& binary : inputs.binaries) script += " " + shell_quote(binary);
    probe->result = run_in_shell(inputs, *profile, script + "\n" + k_probe);
    probe->answers = probe_answer_list(probe->result.out);
    probe->finished = probe->value("done") == "1" && !probe->result.timed_out;
  }
  inputs.job_probe = probe;
  return *probe;
}

}  // namespace ezpz::core
