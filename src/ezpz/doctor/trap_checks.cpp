// The checks for traps that make a job slow or kill its ranks with no word about the cause, read from
// the job's environment (job_probe): NCCL without its network plugin, and Cray MPICH asked for GPU
// support without the GTL library.
#include <algorithm>
#include <filesystem>

#include "ezpz/doctor/checks.hpp"
#include "ezpz/util/regex.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

namespace fs = std::filesystem;

// The library names NCCL opens for its network plugin. Without NCCL_NET_PLUGIN it opens libnccl-net.so;
// with NCCL_NET_PLUGIN=NAME, libnccl-net-NAME.so, else NAME as a library name or path (NCCL's and
// RCCL's "NCCL Net plugin" pages; the aws-ofi plugin installs both names). RCCL opens librccl-net.so,
// and some RCCL releases libnccl-net.so instead (HPE shs-ccl-docs README, "RCCL Validation", 2026-04-30).
std::vector<std::string> plugin_names(DeviceKind kind, const std::string& net_plugin) {
  std::string prefix = kind == DeviceKind::rocm ? "librccl-net" : "libnccl-net";
  if (net_plugin.empty()) {
    if (kind == DeviceKind::rocm) return {"librccl-net.so", "libnccl-net.so"};
    return {"libnccl-net.so"};
  }
  return {prefix + "-" + net_plugin + ".so", "libnccl-net-" + net_plugin + ".so", net_plugin};
}

// The collective library's own soname (torch links it, a module puts it on the library path).
std::vector<std::string> collective_library_names(DeviceKind kind) {
  if (kind == DeviceKind::rocm) return {"librccl.so.1", "librccl.so"};
  return {"libnccl.so.2", "libnccl.so"};
}

// A directory of LD_LIBRARY_PATH as a path on this node (under the doctor's root, for tests).
fs::path on_node(const DoctorInputs& inputs, const std::string& path) {
  return fs::path(inputs.root) / fs::path(path).relative_path();
}

std::string normal(const std::string& dir) {
  std::string text = fs::path(dir).lexically_normal().string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

// The first of `names` found in a directory of `dirs`: its path as the job sees it, or "".
std::string find_in(const DoctorInputs& inputs, const std::vector<std::string>& dirs,
                    const std::vector<std::string>& names) {
  std::error_code error;
  for (const auto& dir : dirs) {
    if (dir.empty()) continue;
    for (const auto& library : names) {
      if (library.find('/') != std::string::npos) continue;
      if (fs::exists(on_node(inputs, dir) / library, error)) return (fs::path(dir) / library).string();
    }
  }
  return {};
}

// Whether the profile's backend environment names NCCL's network transport in any of its sections: the
// site's fabric needs the plugin (HPE shs-ccl-docs, nccl/nccl_tuning_guide.md, 2026-04-30: NCCL_NET
// "Ensures that NCCL will terminate if it fails to load the Libfabric plugin, preventing an undesirable
// fallback to sockets").
std::string profile_nccl_net(const SystemProfile& profile) {
  const BackendEnv& env = profile.backend_env;
  std::vector<const std::vector<std::pair<std::string, std::string>>*> sections = {&env.always, &env.multi_node,
                                                                                   &env.single_node};
  for (const auto& [ranks, entries] : env.by_ranks_per_node) sections.push_back(&entries);
  for (const auto* section : sections) {
    for (const auto& [name, value] : *section) {
      if (name == "NCCL_NET") return value;
    }
  }
  return {};
}

// The library an ldd line resolves to ("libnccl.so.2 => /x/libnccl.so.2 (0x7f…)" gives /x/libnccl.so.2).
std::string resolved_path(const std::string& ldd_line) {
  size_t arrow = ldd_line.find("=> ");
  if (arrow == std::string::npos) return {};
  std::string path = ldd_line.substr(arrow + 3);
  return trim(path.substr(0, path.find(" (")));
}

Finding plugin_finding(const DoctorInputs& inputs, const SystemProfile& profile, const JobProbe& probe,
                       const std::string& wanted_net) {
  const char* name = "nccl";
  DeviceKind kind = profile.node.devices.kind;
  std::string net = probe.value("nccl_net");
  std::string net_plugin = probe.value("nccl_net_plugin");
  std::vector<std::string> dirs = split(probe.value("library_path"), ':');
  std::vector<std::string> names = plugin_names(kind, net_plugin);
  std::string path_text = "LD_LIBRARY_PATH '" + probe.value("library_path") + "'";
  if (net_plugin == "none") {
    return error_finding(name, "NCCL_NET_PLUGIN=none in the job's environment: NCCL loads no network plugin",
                         "unset NCCL_NET_PLUGIN: " + profile.name + "'s network needs the plugin");
  }
  std::string found = find_in(inputs, dirs, names);
  std::error_code error;
  if (found.empty() && net_plugin.find('/') != std::string::npos && fs::exists(on_node(inputs, net_plugin), error))
    found = net_plugin;
  for (const auto& cached : probe.values("ldcache")) {
    if (!found.empty()) break;
    std::string base = fs::path(cached).filename().string();
    if (std::find(names.begin(), names.end(), base) != names.end()) found = cached;
  }
  if (!found.empty()) {
    return ok_finding(name, "NCCL's network plugin " + found + " is on the library path" +
                                (net.empty() ? "" : " (NCCL_NET='" + net + "')"));
  }
  std::string missing =
      "no NCCL network plugin (" + join(names, " or ") + ") in the job's " + path_text + " or the loader's cache";
  std::string remedy =
      "load the module that provides the plugin (aws-ofi-nccl), or put its lib directory first on "
      "LD_LIBRARY_PATH in setup:";
  auto entries = profile.backend_env.for_job(job_nodes(inputs), job_ranks_per_node(inputs, profile));
  bool set_for_job =
      std::any_of(entries.begin(), entries.end(), [](const EnvEntry& e) { return e.name == "NCCL_NET"; });
  if (!net.empty() || !set_for_job) {
    // A one-node default without a spec: the profile sets NCCL_NET for jobs on more than one node.
    std::string value = net.empty() ? wanted_net : net;
    return error_finding(name,
                         missing + ", and NCCL_NET='" + value + "'" + (net.empty() ? " in multi-node jobs" : "") +
                             ": NCCL stops at its first collective between nodes",
                         remedy);
  }
  // The job's setup: or env: unset NCCL_NET: without the plugin NCCL then uses its socket transport
  // between nodes, with no error ("No plugin found (libnccl-net.so)" at NCCL_DEBUG=INFO is the only
  // sign: HPE shs-ccl-docs, nccl/nccl_tuning_guide.md, "Low Performance", 2026-04-30).
  return error_finding(name,
                       missing +
                           ", and NCCL_NET is unset: NCCL runs over TCP sockets between nodes, slowly and "
                           "without an error (" +
                           profile.name + " sets NCCL_NET='" + wanted_net + "')",
                       remedy);
}

// Which NCCL torch runs with. A pip wheel of torch links the NCCL of its nvidia-nccl package and finds it
// through its own RPATH, which the loader searches before LD_LIBRARY_PATH; some builds carry NCCL inside
// libtorch_cuda.so. Either way the site module's NCCL is not the one that runs, and a framework's NCCL may
// be older than the network plugin supports (HPE shs-ccl-docs, nccl/nccl_tuning_guide.md, 2026-04-30:
// "Many deep learning frameworks include NCCL, so you may be using an older, unsupported version").
std::vector<Finding> torch_nccl_findings(const DoctorInputs& inputs, const SystemProfile& profile,
                                         const JobProbe& probe) {
  const char* name = "nccl";
  std::string torch_lib = probe.value("torch_lib");
  if (torch_lib.empty()) return {};  // no torch with GPU support: the python check says so
  std::vector<std::string> dirs = split(probe.value("library_path"), ':');
  std::vector<std::string> sonames = collective_library_names(profile.node.devices.kind);
  std::string module_nccl = find_in(inputs, dirs, sonames);
  std::string line = probe.value("torch_nccl");
  std::string lib = fs::path(torch_lib).filename().string();
  std::string remedy =
      "use a torch built against the site's NCCL (the site's PyTorch module or environment), or "
      "check that NCCL_DEBUG=INFO prints 'Loaded net plugin' on every rank";
  if (line.empty()) {
    if (module_nccl.empty()) return {ok_finding(name, "torch carries its own NCCL (inside " + lib + ")")};
    return {warn_finding(name,
                         "torch carries its own NCCL (inside " + lib + "), so " + module_nccl +
                             " on the library path is not the one that runs",
                         remedy)};
  }
  if (line.find("not found") != std::string::npos) {
    return {error_finding(name,
                          lib + " needs " + trim(line.substr(0, line.find("=>"))) + ", which the loader does not find",
                          "load the module that provides NCCL, or reinstall torch with its NCCL")};
  }
  std::string used = resolved_path(line);
  std::string used_dir = normal(fs::path(used).parent_path().string());
  bool from_path =
      std::any_of(dirs.begin(), dirs.end(), [&](const std::string& dir) { return normal(dir) == used_dir; });
  if (from_path || module_nccl.empty()) return {ok_finding(name, "torch runs with the NCCL at " + used)};
  return {warn_finding(name, "torch runs with the NCCL at " + used + ", not " + module_nccl + " on the library path",
                       remedy)};
}

// Cray MPICH's libraries: libmpi_cray.so.12 in /opt/cray/pe/lib64 (OLCF Frontier user guide, ldd of a
// GPU-aware program, 2026-07-22), the compiler builds (libmpi_gnu_123…) and the MPICH ABI library under
// /opt/cray/pe/mpich. Other MPICH builds (Aurora's) have no GTL library to link.
const char* const k_cray_mpich = R"(libmpi_cray|/cray/pe/)";

}  // namespace

std::vector<Finding> check_nccl(const DoctorInputs& inputs) {
  const char* name = "nccl";
  const SystemProfile* profile = checked_profile(inputs);
  if (profile == nullptr) return {};
  DeviceKind kind = profile->node.devices.kind;
  if (kind != DeviceKind::cuda && kind != DeviceKind::rocm) return {};
  std::string wanted_net = profile_nccl_net(*profile);
  if (wanted_net.empty()) return {};
  if (inputs.job && job_nodes(inputs) == 1)
    return {ok_finding(name, "one node: NCCL does not use the network between nodes")};
  const JobProbe& probe = job_probe(inputs);
  if (!probe.finished) {
    return {warn_finding(name, "cannot look into the job's environment: its setup did not finish",
                         "fix what the python check reports, then run ezpz doctor again")};
  }
  std::vector<Finding> found = {plugin_finding(inputs, *profile, probe, wanted_net)};
  for (auto& finding : torch_nccl_findings(inputs, *profile, probe)) found.push_back(std::move(finding));
  return found;
}

// MPICH_GPU_SUPPORT_ENABLED=1 asks Cray MPICH for GPU-aware MPI, which needs the GTL library
// (libmpi_gtl_cuda, libmpi_gtl_hsa) linked into the program: without it MPI_Init aborts with
// "GPU_SUPPORT_ENABLED is requested, but GTL library is not linked" (ALCF docs/running-jobs/
// example-job-scripts.md and docs/polaris/running-jobs/using-gpus.md, 2026-08-19; OLCF Frontier user
// guide, MPICH_GPU_SUPPORT_ENABLED, 2026-07-22), or the ranks die with signal 11, exit code 139 (the
// Python ezpz on Perlmutter). A Python job starts MPI through mpi4py, whose extension a conda or pip
// build links without GTL.
std::vector<Finding> check_gpu_mpi(const DoctorInputs& inputs) {
  const char* name = "gpu-mpi";
  const SystemProfile* profile = checked_profile(inputs);
  if (profile == nullptr) return {};
  const JobProbe& probe = job_probe(inputs);
  if (!probe.finished) {
    return {warn_finding(name, "cannot look into the job's environment: its setup did not finish",
                         "fix what the python check reports, then run ezpz doctor again")};
  }
  std::string support = probe.value("gpu_support");
  if (support != "1") {
    return {ok_finding(name, "MPICH_GPU_SUPPORT_ENABLED is " +
                                 (support.empty() ? std::string("not set") : "'" + support + "'") +
                                 " in the job's environment")};
  }
  std::string remedy =
      "unless the program passes GPU buffers to MPI, export MPICH_GPU_SUPPORT_ENABLED=0 in setup:; else link it "
      "with the GTL library (the craype-accel-* module when building and running it)";
  if (probe.values("program").empty()) {
    return {ok_finding(name, "MPICH_GPU_SUPPORT_ENABLED=1, and " + inputs.python + " has no mpi4py to start MPI")};
  }
  const Regex& cray = compile_regex(k_cray_mpich, {}, "Cray MPICH");
  bool preloaded = probe.value("preload").find("libmpi_gtl_") != std::string::npos;
  std::string mpi4py = probe.value("mpi4py");
  std::vector<Finding> found;
  // The answers in order: "program=P", then the ldd lines of P.
  std::string program;
  std::vector<std::string> lines;
  auto judge = [&]() {
    if (program.empty()) return;
    std::string shown = program == mpi4py ? inputs.python + "'s mpi4py (" + program + ")" : program;
    auto mpi =
        std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return !mpi_library_family(l).empty(); });
    bool gtl = preloaded || std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
                 return l.find("libmpi_gtl_") != std::string::npos && l.find("not found") == std::string::npos;
               });
    if (mpi == lines.end()) {
      found.push_back(ok_finding(name, "MPICH_GPU_SUPPORT_ENABLED=1; " + shown + " links no MPI library"));
    } else if (!cray.search(*mpi)) {
      found.push_back(
          ok_finding(name, "MPICH_GPU_SUPPORT_ENABLED=1; " + shown + " links " + trim(*mpi) + ", not Cray MPICH"));
    } else if (gtl) {
      found.push_back(ok_finding(name, "MPICH_GPU_SUPPORT_ENABLED=1, and " + shown + " has the GTL library"));
    } else {
      found.push_back(error_finding(name,
                                    "MPICH_GPU_SUPPORT_ENABLED=1 in the job's environment, but " + shown + " links " +
                                        trim(*mpi) +
                                        " without the GTL library (libmpi_gtl_*): MPI_Init aborts, "
                                        "or every rank dies with signal 11 (exit code 139)",
                                    remedy));
    }
  };
  for (const auto& [key, value] : probe.answers) {
    if (key == "program") {
      judge();
      program = value;
      lines.clear();
    } else if (key == "ldd") {
      lines.push_back(value);
    }
  }
  judge();
  return found;
}

}  // namespace ezpz::core
