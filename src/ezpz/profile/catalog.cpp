// Finding, merging (extends:) and caching profiles; the compiled-in data is the last resort.
#include "ezpz/profile/catalog.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "ezpz/profile/read_profile.hpp"
#include "ezpz/util/embedded.hpp"
#include "ezpz/util/file.hpp"
#include "ezpz/util/limits.hpp"
#include "ezpz/util/node_codec.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

constexpr int k_max_extends_depth = 8;
const std::string k_systems_dir = "systems/";
const std::string k_yaml = ".yaml";

std::string read_file(const std::filesystem::path& path) {
  return read_regular_file(path.string(), "profile '" + path.string() + "'", k_max_spec_bytes);
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Catalog::Catalog(std::vector<std::string> search_path) {
  namespace fs = std::filesystem;
  for (const auto& dir : search_path) {
    std::error_code error;
    if (dir.empty() || !fs::is_directory(dir, error)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, error)) {
      if (entry.path().extension() == k_yaml) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      std::string name = file.stem().string();
      m_system_files[name].push_back(ProfileFile{make_source(file.string(), read_file(file)), {}});
    }
  }
  for (const auto& file : embedded_files()) {
    std::string path(file.path);
    if (path.rfind(k_systems_dir, 0) != 0 || !ends_with(path, k_yaml)) continue;
    std::string name = path.substr(k_systems_dir.size(), path.size() - k_systems_dir.size() - k_yaml.size());
    m_system_files[name].push_back(ProfileFile{make_source(path, std::string(file.text)), file.tree});
  }
}

std::vector<std::string> Catalog::default_search_path(const char* systems_path_env, const char* home_env,
                                                      const std::string& exe_dir) {
  std::vector<std::string> path;
  if (systems_path_env != nullptr) {
    for (auto& dir : split(systems_path_env, ':')) {
      if (!dir.empty()) path.push_back(dir);
    }
  }
  if (home_env != nullptr && *home_env != '\0') path.push_back(std::string(home_env) + "/.config/ezpz/systems");
  if (!exe_dir.empty()) path.push_back(exe_dir + "/../share/ezpz/systems");
  return path;
}

std::vector<std::string> Catalog::system_names() const {
  std::vector<std::string> names;
  for (const auto& [name, source] : m_system_files) names.push_back(name);
  return names;
}

bool Catalog::has_system(const std::string& name) const {
  return m_system_files.count(name) != 0;
}

Node Catalog::ProfileFile::parse() const { return tree.empty() ? parse_yaml(source) : decode_node(tree, source); }

Node Catalog::load_merged(const std::string& name, size_t level, int depth) const {
  Node node = m_system_files.at(name).at(level).parse();
  const Node* extends = node.find("extends");
  if (extends == nullptr || !extends->is_scalar()) return node;
  bool self = extends->scalar == name;
  if (self && level + 1 >= m_system_files.at(name).size()) {
    throw UserError(extends->loc,
                    "'" + name + "' extends itself, and no other profile of that name is on the search path");
  }
  if (depth >= k_max_extends_depth) {
    throw UserError(extends->loc,
                    "'extends' chain is longer than " + std::to_string(k_max_extends_depth) + " profiles (a cycle?)");
  }
  if (!has_system(extends->scalar)) {
    throw UserError(extends->loc, "'extends' names unknown system '" + extends->scalar + "'",
                    suggestion_hint(extends->scalar, system_names()));
  }
  return merge_nodes(load_merged(extends->scalar, self ? level + 1 : 0, depth + 1), node);
}

const SystemProfile& Catalog::system(const std::string& name, const SourceLoc& where) const {
  auto cached = m_systems.find(name);
  if (cached != m_systems.end()) return *cached->second;
  if (!has_system(name)) {
    throw UserError(where, "unknown system '" + name + "'", suggestion_hint(name, system_names()));
  }
  Diagnostics diagnostics;
  auto profile = std::make_unique<SystemProfile>(read_system_profile(load_merged(name, 0, 0), name, diagnostics));
  profile->source = m_system_files.at(name).front().source;
  profile->path = profile->source->name;
  if (!profile->scheduler.empty()) {
    try {
      scheduler(profile->scheduler);
    } catch (const UserError& error) {
      diagnostics.add(error);
    }
  }
  diagnostics.throw_if_any();
  return *m_systems.emplace(name, std::move(profile)).first->second;
}

std::vector<std::string> Catalog::scheduler_names() const {
  const std::string folder = "schedulers/";
  std::vector<std::string> names;
  for (const auto& embedded : embedded_files()) {
    std::string path(embedded.path);
    if (path.rfind(folder, 0) == 0) names.push_back(path.substr(folder.size(), path.size() - folder.size() - k_yaml.size()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

const Scheduler& Catalog::scheduler(const std::string& name, const SourceLoc& where) const {
  auto cached = m_schedulers.find(name);
  if (cached != m_schedulers.end()) return *cached->second;
  std::string path = "schedulers/" + name + k_yaml;
  const EmbeddedFile* file = find_embedded(path);
  if (file == nullptr) throw UserError(where, "unknown scheduler '" + name + "'", suggestion_hint(name, scheduler_names()));
  Diagnostics diagnostics;
  Node root = ProfileFile{make_source(path, std::string(file->text)), file->tree}.parse();
  auto scheduler = std::make_unique<Scheduler>(read_scheduler(root, name, diagnostics));
  diagnostics.throw_if_any();
  return *m_schedulers.emplace(name, std::move(scheduler)).first->second;
}

std::string Catalog::template_text(const std::string& name) const {
  std::string path = "templates/" + name + ".sh.mustache";
  const EmbeddedFile* file = find_embedded(path);
  if (file == nullptr) throw UserError("no template '" + path + "' is built in");
  return std::string(file->text);
}

}  // namespace ezpz::core
