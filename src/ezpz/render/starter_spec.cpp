// Writing the starting spec of `ezpz init` from a profile.
#include "ezpz/render/starter_spec.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "ezpz/util/devices.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/walltime.hpp"
#include "ezpz/version.hpp"

namespace ezpz::core {
namespace {

// What each key that a profile may require means, for the comment beside it.
struct KeyNote {
  const char* key;
  const char* meaning;
};
const KeyNote k_key_notes[] = {
    {"account", "the project (allocation) the job is charged to"},
    {"filesystems", "the filesystems the job reads and writes"},
    {"queue", "the queue to submit to"},
    {"walltime", "how long the job may run"},
    {"nodes", "how many nodes"},
};

std::string meaning_of(const std::string& key) {
  for (const auto& note : k_key_notes) {
    if (key == note.key) return note.meaning;
  }
  return "required on this system";
}

// A value as YAML flow text: plain words bare, anything else as JSON (which YAML reads).
std::string flow(const nlohmann::json& value) {
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '/';
    });
    return plain ? text : value.dump();
  }
  if (!value.is_array()) return value.dump();
  std::vector<std::string> items;
  for (const auto& item : value) items.push_back(flow(item));
  return "[" + join(items, ", ") + "]";
}

}  // namespace

std::string starter_spec(const SystemProfile& profile, const std::string& why, const std::string& file_name) {
  const JobSpec& defaults = profile.defaults;
  std::ostringstream out;
  out << "# An ezpz job spec for " << profile.name << ": " << profile.description << "\n"
      << "# Written by `ezpz init` (ezpz " << k_version << "); system chosen " << why << ".\n"
      << "# Fill in each value marked 'fill in', then:\n"
      << "#   ezpz validate " << file_name << "   (checks it against the system's profile)\n"
      << "#   ezpz submit " << file_name << "     (renders the batch script, submits it, prints the job id)\n"
      << "# Queues, node shape and the profile's defaults: ezpz systems show " << profile.name << "\n"
      << "# Every key: docs/spec-reference.md, or ezpz schema\n"
      << "system: " << profile.name << "\n"
      << "name: my-job\n";

  std::vector<std::string> written = {"system", "name"};
  if (!profile.required.empty()) out << "\n# Required on " << profile.name << "\n";
  for (const auto& key : profile.required) {
    auto value = get_value(defaults, key);
    if (value) {
      out << key << ": " << flow(value->value) << "  # " << meaning_of(key) << "\n";
    } else {
      out << key << ":  # fill in: " << meaning_of(key) << "\n";
    }
    written.push_back(key);
  }

  auto unwritten = [&](const std::string& key) {
    return std::find(written.begin(), written.end(), key) == written.end();
  };
  out << "\n# Resources\n";
  if (unwritten("nodes")) out << "nodes: 1\n";
  if (unwritten("walltime")) {
    out << "walltime: \"" << format_walltime(defaults.walltime ? defaults.walltime->value : 3600) << "\"\n";
  }
  if (unwritten("queue") && !profile.queues.empty()) {
    std::string queue = defaults.queue ? defaults.queue->value : profile.queues.front().name;
    out << "queue: " << flow(queue) << "  # " << join(profile.queue_names(), ", ") << "\n";
  }
  const Devices& devices = profile.node.devices;
  if (devices.kind == DeviceKind::cpu) {
    out << "# ranks_per_node: 1 by default here (no accelerators); set it for more ranks per node\n";
  } else {
    out << "# ranks_per_node: auto is one rank per device (" << devices.count << " x " << device_kind_name(devices.kind)
        << " per node here)\n";
  }

  out << "\n# The program every rank runs\n"
      << "run: [python3, train.py]\n";

  out << "\n# Optional; left out, the profile's defaults apply\n";
  if (defaults.modules) out << "# modules: " << flow(nlohmann::json(defaults.modules->value)) << "\n";
  if (defaults.setup) {
    out << "# setup: |\n";
    for (const auto& line : split(trim(defaults.setup->value), '\n')) out << "#   " << line << "\n";
  }
  out << "# env: {HF_HOME: /tmp/hf}\n"
      << "# torch: {backend: auto, device: auto}\n"
      << "# supervise: {timeout: 1800, retries: 1}\n";
  return out.str();
}

}  // namespace ezpz::core
