// The checks about starting ranks: the launcher's family, and the MPI library a program links against.
#include "ezpz/doctor/checks.hpp"
#include "ezpz/util/regex.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

// How each launcher family answers `--version`, and which MPI libraries it can start.
struct LauncherFamily {
  const char* name;                    // launcher_family_names()
  const char* display;                 // for findings
  const char* version_text;            // RE2, searched in the answer to --version
  std::vector<const char*> libraries;  // the MPI library families it starts (MpiLibrary names)
};
const LauncherFamily k_families[] = {
    // MPICH's mpiexec prints "HYDRA build details:" (mpiexec.hydra --version).
    {"hydra", "MPICH Hydra", "HYDRA", {"mpich"}},
    // Open MPI 4 prints "mpiexec (OpenRTE) 4.1.4", Open MPI 5 "mpiexec (Open MPI) 5.0.0".
    {"openmpi", "Open MPI", "OpenRTE|Open MPI", {"openmpi"}},
    // srun prints "slurm 23.02.7" (Debian's: "slurm-wlm 22.05.8"); it starts MPICH (PMI-2) and Open MPI
    // (PMIx) programs alike.
    {"srun", "Slurm srun", "(?m)^slurm(-wlm)? [0-9]", {"mpich", "openmpi"}},
    // HPE PALS starts Cray MPICH, which has MPICH's ABI. Its --version text is not confirmed here.
    {"pals", "HPE PALS", "PALS|[Cc]ray", {"mpich"}},
    {"local", "ezpz launch", "(?m)^ezpz ", {"mpich", "openmpi"}},
};

// MPI libraries by the soname a program links: the MPICH ABI (MPICH, Cray MPICH, Intel MPI) keeps
// libmpi.so.12; Open MPI's is libmpi.so.40.
struct MpiLibrary {
  const char* name;
  const char* soname_pattern;  // RE2, searched in each line of ldd's answer
};
const MpiLibrary k_libraries[] = {
    {"mpich", R"(libmpich\.so|libmpi\.so\.12|libmpi_cray|libmpi_intel)"},
    {"openmpi", R"(libmpi\.so\.40)"},
};

const LauncherFamily* family_named(const std::string& name) {
  for (const auto& family : k_families) {
    if (name == family.name) return &family;
  }
  return nullptr;
}

const LauncherFamily* family_answering(const std::string& version) {
  for (const auto& family : k_families) {
    if (compile_regex(family.version_text, {}, family.name).search(version)) return &family;
  }
  return nullptr;
}

// The first word of the profile's launch command: the program that starts ranks.
std::string launcher_program(const SystemProfile& profile) {
  if (profile.launcher.args.empty()) return {};
  auto words = split_words(profile.launcher.args.front());
  return words.empty() ? std::string() : words.front();
}

// The MPI library family `ldd` shows for `program`, or "" when it links none; the library's path.
std::string mpi_library_of(const DoctorInputs& inputs, const std::string& program, std::string* line_found,
                           std::string* problem) {
  ProcessResult result = inputs.runner->run({"ldd", program});
  if (result.exit_code != 0) {
    *problem = "ldd " + program + " failed: " + first_line(result);
    return {};
  }
  for (const auto& line : split(result.out, '\n')) {
    std::string family = mpi_library_family(line);
    if (family.empty()) continue;
    *line_found = trim(line);
    if (line.find("not found") != std::string::npos) {
      *problem = program + " needs " + *line_found + ": the loader cannot find its MPI library";
      return {};
    }
    return family;
  }
  return {};
}

// What to do when the yeet helper's MPI is not the one this system launches, by the system's family
// (docs/install.md, "The yeet helper and your MPI").
std::string yeet_helper_remedy(const LauncherFamily* launcher) {
  const std::string docs = " (docs/install.md#the-yeet-helper-and-your-mpi)";
  if (launcher != nullptr && launcher->name == std::string("openmpi")) {
    return "this system's MPI is Open MPI: build the helper on this node from a checkout of ezpz: cmake -S "
           "ezpz/cmake/yeet-helper -B build-yeet -DCMAKE_C_COMPILER=mpicc -DCMAKE_CXX_COMPILER=mpicxx "
           "-DEZPZ_YEET_HELPER_FETCH=ON && cmake --build build-yeet, then export "
           "EZPZ_YEET_MPI=$PWD/build-yeet/ezpz-yeet-mpi" +
           docs;
  }
  return "load the MPI module that provides the MPICH ABI's libmpi.so.12 (Cray: module load cray-mpich-abi, or put "
         "$CRAY_MPICH_DIR/lib-abi-mpich on LD_LIBRARY_PATH; Debian's MPICH: a link libmpi.so.12 -> libmpich.so.12 in "
         "a directory on LD_LIBRARY_PATH)" +
         docs;
}

}  // namespace

std::string mpi_library_family(const std::string& ldd_line) {
  for (const auto& library : k_libraries) {
    if (compile_regex(library.soname_pattern, {}, library.name).search(ldd_line)) return library.name;
  }
  return {};
}

std::vector<Finding> check_launcher(const DoctorInputs& inputs) {
  const char* name = "launcher";
  const SystemProfile* profile = checked_profile(inputs);
  if (profile == nullptr) return {};
  const LauncherFamily* expected = family_named(profile->launcher.family);
  if (profile->launcher.kind == LauncherKind::local) return {ok_finding(name, "ezpz launch starts the ranks itself")};
  std::string program = launcher_program(*profile);
  ProcessResult result = inputs.runner->run({program, "--version"});
  if (result.exit_code == 127) {
    return {error_finding(name, program + " (the profile's launcher) is not on PATH",
                          "load the module that provides it, or run on a node of " + profile->name)};
  }
  const LauncherFamily* found = family_answering(result.out + "\n" + result.err);
  if (expected == nullptr) {
    return {warn_finding(name,
                         program + " answers as " + (found ? found->display : "an unknown launcher") + "; " +
                             profile->name + "'s profile does not name its family",
                         "add launcher.family to the profile (docs/adding-a-system.md)")};
  }
  if (found == nullptr) {
    return {warn_finding(
        name, "cannot tell which launcher " + program + " is from its --version: '" + first_line(result) + "'",
        "check that " + program + " on PATH is " + expected->display)};
  }
  if (found != expected) {
    return {error_finding(
        name,
        program + " on PATH is " + found->display + ", but " + profile->name + " launches with " + expected->display,
        std::string("put ") + expected->display + "'s " + program +
            " first on PATH (its module), or fix launcher.family")};
  }
  return {ok_finding(name, program + " is " + found->display + ": " + first_line(result))};
}

std::vector<Finding> check_mpi_library(const DoctorInputs& inputs) {
  const char* name = "mpi";
  const SystemProfile* profile = checked_profile(inputs);
  if (profile == nullptr) return {};
  const LauncherFamily* launcher = family_named(profile->launcher.family);
  std::vector<std::string> programs = inputs.binaries;
  std::vector<std::string> shown = programs;
  if (programs.empty()) {
    // A Python program's MPI is mpi4py's: the library its extension module links. Found without
    // importing it (importing mpi4py.MPI initialises MPI, which may fail or wait on a login node).
    ProcessResult result = inputs.runner->run({inputs.python, "-c",
                                               "import importlib.util as u\ns = u.find_spec('mpi4py') and "
                                               "u.find_spec('mpi4py.MPI')\nprint(s.origin if s else '')"});
    if (result.exit_code != 0) {
      return {error_finding(name, "cannot ask " + inputs.python + " for mpi4py: " + first_line(result),
                            "check --python: it must be a Python interpreter")};
    }
    if (trim(result.out).empty()) {
      return {ok_finding(name, inputs.python + " has no mpi4py: it starts no MPI library of its own")};
    }
    programs.push_back(trim(result.out));
    shown.push_back(inputs.python + "'s mpi4py");
  }
  std::vector<Finding> found;
  for (size_t i = 0; i < programs.size(); ++i) {
    std::string line;
    std::string problem;
    std::string library = mpi_library_of(inputs, programs[i], &line, &problem);
    if (!problem.empty()) {
      found.push_back(error_finding(name, problem, "check the path of --binary"));
    } else if (library.empty()) {
      found.push_back(ok_finding(name, shown[i] + " links no MPI library"));
    } else if (launcher == nullptr) {
      found.push_back(
          warn_finding(name, shown[i] + " links " + library + " (" + line + "); the profile names no launcher family",
                       "add launcher.family to the profile (docs/adding-a-system.md)"));
    } else if (std::none_of(launcher->libraries.begin(), launcher->libraries.end(),
                            [&](const char* known) { return library == known; })) {
      found.push_back(error_finding(name,
                                    shown[i] + " links " + library + " (" + line + "), which " + launcher->display +
                                        " cannot start: every rank would be rank 0 of 1",
                                    "build or install it against the MPI that " + profile->name +
                                        "'s launcher belongs to, or load that MPI's module"));
    } else {
      found.push_back(
          ok_finding(name, shown[i] + " links " + library + " (" + line + "), which " + launcher->display + " starts"));
    }
  }
  return found;
}

// `ezpz yeet` (and a spec's stage:) runs ezpz-yeet-mpi under the system's launcher: it must load here
// (its MPI library found, glibc new enough) and link an MPI that launcher starts.
std::vector<Finding> check_yeet_helper(const DoctorInputs& inputs) {
  const char* name = "yeet";
  const SystemProfile* profile = checked_profile(inputs);
  if (profile == nullptr) return {};
  if (inputs.yeet_helper.empty()) {
    return {warn_finding(name, "ezpz-yeet-mpi is not installed next to ezpz: ezpz yeet and a spec's stage: cannot run",
                         "install the wheel or the tarball (they carry it), or point EZPZ_YEET_MPI at one "
                         "(docs/install.md#the-yeet-helper-and-your-mpi)")};
  }
  const LauncherFamily* launcher = family_named(profile->launcher.family);
  ProcessResult result = inputs.runner->run({"ldd", inputs.yeet_helper});
  std::string answer = result.out + result.err;
  if (answer.find("GLIBC_") != std::string::npos && answer.find("not found") != std::string::npos) {
    return {error_finding(name, inputs.yeet_helper + " needs a newer glibc than this node's: " + first_line(result),
                          "use the release helper (it needs glibc 2.30), or build it here" +
                              std::string(" (docs/install.md#the-yeet-helper-and-your-mpi)"))};
  }
  std::string line;
  std::string problem;
  std::string library = mpi_library_of(inputs, inputs.yeet_helper, &line, &problem);
  if (!problem.empty()) return {error_finding(name, problem, yeet_helper_remedy(launcher))};
  if (library.empty()) {
    return {error_finding(name, inputs.yeet_helper + " links no MPI library: it is not an ezpz-yeet-mpi",
                          "point EZPZ_YEET_MPI at the helper, or reinstall ezpz")};
  }
  if (launcher != nullptr && profile->launcher.kind != LauncherKind::local &&
      std::none_of(launcher->libraries.begin(), launcher->libraries.end(),
                   [&](const char* known) { return library == known; })) {
    return {error_finding(name,
                          inputs.yeet_helper + " links " + library + " (" + line + "), which " + launcher->display +
                              " cannot start: every copy would think it is alone",
                          yeet_helper_remedy(launcher))};
  }
  return {ok_finding(name, inputs.yeet_helper + " loads here and links " + library + " (" + line + ")")};
}

}  // namespace ezpz::core
