// The checks about this node's hardware: devices and node-local storage.
#include <stdlib.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "ezpz/doctor/checks.hpp"
#include "ezpz/runtime/device.hpp"
#include "ezpz/util/devices.hpp"
#include "ezpz/util/file.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/variable_refs.hpp"

namespace ezpz::core {
namespace {

namespace fs = std::filesystem;

std::string devices_text(const Devices& devices) {
  if (devices.kind == DeviceKind::cpu) return "no accelerator";
  return std::to_string(devices.count) + " x " + device_kind_name(devices.kind);
}

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

// Bytes under `path` (a file or a directory tree), for the stage's size.
uintmax_t size_of(const std::string& path) {
  std::error_code error;
  if (fs::is_regular_file(path, error)) return fs::file_size(path, error);
  uintmax_t total = 0;
  for (fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, error), end;
       !error && it != end; it.increment(error)) {
    if (it->is_regular_file(error)) total += it->file_size(error);
  }
  return total;
}

}  // namespace

std::vector<Finding> check_devices(const DoctorInputs& inputs) {
  const char* name = "devices";
  const SystemProfile* profile = checked_profile(inputs);
  if (profile == nullptr) return {};
  std::string source;
  Devices seen = probe_devices(inputs.root, inputs.env, &source);
  const Devices& expected = profile->node.devices;
  std::string text = "sees " + devices_text(seen) + (source.empty() ? "" : " (" + source + ")") + "; " + profile->name +
                     " nodes have " + devices_text(expected);
  if (expected.kind == DeviceKind::cpu) {
    return {ok_finding(name, text + ": ranks use the CPU")};
  }
  bool inside = job_context(inputs).inside();
  if (seen.kind == DeviceKind::cpu) {
    if (!inside) return {ok_finding(name, text + ": expected on a login node; compute nodes have them")};
    return {error_finding(
        name, text,
        "the job's nodes should show them: check the queue, and that nothing cleared " + expected.visibility)};
  }
  if (seen.kind != expected.kind) {
    return {error_finding(name, text + ": another kind of device", "check --system: this may be another machine")};
  }
  // An Intel GPU Max card is one render node and two tiles; profiles count the tiles (FLAT mode).
  bool tiles = seen.kind == DeviceKind::xpu && starts_with(source, std::to_string(seen.count) + " Intel render node") &&
               expected.count % seen.count == 0;
  if (tiles && seen.count < expected.count) {
    return {ok_finding(name, text + " (" + std::to_string(expected.count / seen.count) + " tiles per card)")};
  }
  if (seen.count < expected.count) {
    return {warn_finding(name, text + ": fewer than the profile's",
                         "ranks_per_node: auto starts one rank per device of the profile; check " +
                             expected.visibility + " and the node's health (nvidia-smi, rocm-smi, xpu-smi)")};
  }
  return {ok_finding(name, text)};
}

std::vector<Finding> check_node_local(const DoctorInputs& inputs) {
  const char* name = "node-local";
  const SystemProfile* profile = checked_profile(inputs);
  if (profile == nullptr) return {};
  // Profiles may name it by the user's variables (Frontier: /mnt/bb/$USER).
  auto lookup = [&](const std::string& variable) { return inputs.env(variable); };
  const std::string dir = expand_variable_refs(profile->node.node_local, lookup);
  if (dir.empty()) return {ok_finding(name, profile->name + "'s profile names no node-local storage")};
  bool inside = job_context(inputs).inside();
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    std::string text = dir + " (node-local storage) does not exist here";
    if (!inside)
      return {warn_finding(name, text + " (a login node)", "it is checked again inside a job, on a compute node")};
    return {error_finding(name, text, "ask the site: stage: to node-local storage will fail on this node")};
  }
  struct statvfs stats {};
  if (::statvfs(dir.c_str(), &stats) != 0) {
    return {error_finding(name, "cannot read the free space of " + dir + ": " + std::strerror(errno), "ask the site")};
  }
  double free = static_cast<double>(stats.f_bavail) * static_cast<double>(stats.f_frsize);
  if (stats.f_bavail == 0) {
    return {error_finding(name, dir + " has no free space: it is full", "free space there, or ask the site")};
  }
  // mkstemp: node-local storage is shared (/tmp), and a link planted at a predictable name would have
  // had the probe truncate the link's target.
  std::string probe = (fs::path(dir) / "ezpz-doctor-XXXXXX").string();
  int fd = ::mkstemp(probe.data());
  constexpr std::string_view k_probe_text = "ezpz doctor\n";
  bool written =
      fd >= 0 && ::write(fd, k_probe_text.data(), k_probe_text.size()) == static_cast<ssize_t>(k_probe_text.size());
  int code = errno;
  if (fd >= 0) {
    ::close(fd);
    ::unlink(probe.c_str());
  }
  if (!written) {
    return {error_finding(name, dir + " is not writable: " + std::strerror(code),
                          "stage: and caches there will fail: ask the site, or stage elsewhere")};
  }
  std::string text = dir + " is writable, " + gib(free) + " free";
  uintmax_t needed = 0;
  if (inputs.job && inputs.job->spec.stage) {
    for (const auto& entry : inputs.job->spec.stage->value) {
      if (path_is_under(expand_variable_refs(entry.dest, lookup), dir))
        needed += size_of(expand_variable_refs(entry.src, lookup));
    }
  }
  if (needed > 0 && static_cast<double>(needed) > free) {
    return {error_finding(name, text + ", but stage: copies " + gib(static_cast<double>(needed)) + " there",
                          "stage less (a tarball with unpack: true), or stage to another filesystem")};
  }
  if (needed > 0) text += ", enough for stage: (" + gib(static_cast<double>(needed)) + ")";
  return {ok_finding(name, text)};
}

}  // namespace ezpz::core
