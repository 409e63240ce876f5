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
#include "ezpz/util/text.hpp"
#include "ezpz/util/yaml_codec.hpp"

namespace ezpz::core {
namespace {

constexpr int k_max_extends_depth = 8;
const std::string k_systems_dir = "systems/";
const std::string k_schedulers_dir = "schedulers/";
const std::string k_yaml = ".yaml";

std::string read_file(const std::filesystem::path& path) {
  return read_regular_file(path.string(), "profile '" + path.string() + "'", k_max_spec_bytes);
}

std::string template_path(const std::string& name) {
  return "templates/" + name + ".sh.mustache";
}

// The `<name>.yaml` files of `dir`, sorted; none when it is not a directory.
std::vector<std::filesystem::path> yaml_files(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code error;
  if (dir.empty() || !fs::is_directory(dir, error)) return files;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    if (entry.path().extension() == k_yaml) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The name of a compiled-in file `<folder><name>.yaml`, or "" for any other.
std::string embedded_name(std::string_view path, const std::string& folder) {
  if (!starts_with(path, folder) || !ends_with(path, k_yaml)) return {};
  return std::string(path.substr(folder.size(), path.size() - folder.size() - k_yaml.size()));
}

}  // namespace

// When a file's text is that of the compiled-in file of its name (an installed copy of the shipped data,
// as `cmake --install`, the tarball and the wheel lay it out), the compiled-in parsed tree serves it, so
// an installed ezpz renders as fast as one that reads no file (bench/render).
Catalog::ProfileFile Catalog::search_path_file(const std::string& path, const std::string& folder) {
  std::string text = read_file(path);
  std::string name = std::filesystem::path(path).stem().string();
  std::string_view tree;
  for (const auto& embedded : embedded_files()) {
    if (embedded.text == text && embedded_name(embedded.path, folder) == name) tree = embedded.tree;
  }
  return ProfileFile{make_source(path, std::move(text)), tree};
}

std::string SkippedProfilePath::message() const {
  return "skipped '" + path + "': " + why.message();
}

Catalog::Catalog(std::vector<std::string> search_path, const TrustedUsers& users) {
  // Every directory and file is judged on its own: a trusted directory may still hold another user's file.
  auto trusted = [&](const std::string& path) {
    auto why = why_untrusted(path, users);
    if (why) m_skipped.push_back({path, *why});
    return !why;
  };
  for (const auto& dir : search_path) {
    if (dir.empty() || !trusted(dir)) continue;
    for (const auto& file : yaml_files(dir)) {
      if (!trusted(file.string())) continue;
      m_system_files[file.stem().string()].push_back(search_path_file(file.string(), k_systems_dir));
    }
    std::string schedulers = (std::filesystem::path(dir) / "schedulers").string();
    if (!trusted(schedulers)) continue;
    for (const auto& file : yaml_files(schedulers)) {
      if (!trusted(file.string())) continue;
      m_scheduler_files.emplace(file.stem().string(), search_path_file(file.string(), k_schedulers_dir));
    }
  }
  for (const auto& file : embedded_files()) {
    auto add = [&](const std::string& name, auto& files, auto&& insert) {
      if (!name.empty())
        insert(files, name, ProfileFile{make_source(std::string(file.path), std::string(file.text)), file.tree});
    };
    add(embedded_name(file.path, k_systems_dir), m_system_files,
        [](auto& files, const std::string& name, ProfileFile f) { files[name].push_back(std::move(f)); });
    add(embedded_name(file.path, k_schedulers_dir), m_scheduler_files,
        [](auto& files, const std::string& name, ProfileFile f) { files.emplace(name, std::move(f)); });
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

YamlNode Catalog::ProfileFile::parse() const {
  return tree.empty() ? parse_yaml(source) : decode_node(tree, source);
}

YamlNode Catalog::load_merged(const std::string& name, size_t level, int depth) const {
  YamlNode node = m_system_files.at(name).at(level).parse();
  const YamlNode* extends = node.find("extends");
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
    std::string hint = skipped_hint(name, false);
    throw UserError(where, "unknown system '" + name + "'",
                    hint.empty() ? suggestion_hint(name, system_names()) : hint);
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

std::string Catalog::skipped_hint(const std::string& name, bool scheduler) const {
  for (const auto& skipped : m_skipped) {
    std::filesystem::path path = skipped.path;
    bool directory = !ends_with(skipped.path, k_yaml);
    bool in_schedulers = path.parent_path().filename() == "schedulers";
    if (directory || (path.stem() == name && in_schedulers == scheduler)) {
      return "ezpz " + skipped.message() +
             "; only you or root may own and write a profile directory, its files and the directories above "
             "it (docs/security.md)";
    }
  }
  return {};
}

std::vector<std::string> Catalog::scheduler_names() const {
  std::vector<std::string> names;
  for (const auto& [name, file] : m_scheduler_files) names.push_back(name);
  return names;
}

JobVariables Catalog::job_variables() const {
  std::vector<const Scheduler*> schedulers;
  for (const auto& name : scheduler_names()) schedulers.push_back(&scheduler(name));
  return core::job_variables(schedulers);
}

const JobVariables& Catalog::builtin_job_variables() {
  static const JobVariables variables = Catalog().job_variables();
  return variables;
}

const Scheduler& Catalog::scheduler(const std::string& name, const SourceLoc& where) const {
  auto cached = m_schedulers.find(name);
  if (cached != m_schedulers.end()) return *cached->second;
  auto file = m_scheduler_files.find(name);
  if (file == m_scheduler_files.end()) {
    std::string hint = skipped_hint(name, true);
    throw UserError(where, "unknown scheduler '" + name + "'",
                    hint.empty() ? suggestion_hint(name, scheduler_names()) : hint);
  }
  Diagnostics diagnostics;
  YamlNode root = file->second.parse();
  auto scheduler = std::make_unique<Scheduler>(read_scheduler(root, name, diagnostics));
  if (find_embedded(template_path(scheduler->template_name)) == nullptr) {
    const YamlNode* key = root.find("template");
    diagnostics.error(key ? key->loc : root.loc,
                      "no template '" + template_path(scheduler->template_name) + "' is built in",
                      "the built-in templates: batch (with directive lines), none");
  }
  diagnostics.throw_if_any();
  return *m_schedulers.emplace(name, std::move(scheduler)).first->second;
}

std::string Catalog::template_text(const std::string& name) const {
  std::string path = template_path(name);
  const EmbeddedFile* file = find_embedded(path);
  if (file == nullptr) throw UserError("no template '" + path + "' is built in");
  return std::string(file->text);
}

}  // namespace ezpz::core
