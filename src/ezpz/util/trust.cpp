// The trust rule: owners and write permissions along a path, and the owners inside a tree.
#include "ezpz/util/trust.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <deque>

#include "ezpz/util/file.hpp"
#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

// Linux's own limit on links followed in one lookup (path_resolution(7)).
constexpr int k_max_links = 40;

std::string uid_text(uid_t uid) {
  return uid == 0 ? "root" : "uid " + std::to_string(uid);
}

std::string mode_text(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

std::string joined(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

std::string parent_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

std::deque<std::string> components(const std::string& path) {
  std::deque<std::string> parts;
  for (auto& part : split(path, '/')) {
    if (!part.empty() && part != ".") parts.push_back(std::move(part));
  }
  return parts;
}

std::string absolute(const std::string& path) {
  if (!path.empty() && path.front() == '/') return path;
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof cwd) == nullptr) return "/" + path;  // then judged from / (and likely missing)
  return joined(cwd, path);
}

std::optional<Distrust> owner_problem(const std::string& path, const struct stat& info, const TrustedUsers& users) {
  if (users.trusts(info.st_uid)) return std::nullopt;
  return Distrust{path, "is owned by " + uid_text(info.st_uid) + ", not by " + users.describe()};
}

// `last`: `path` is what was asked about, so no sticky bit excuses a write permission.
std::optional<Distrust> mode_problem(const std::string& path, const struct stat& info, bool last) {
  mode_t mode = info.st_mode;
  if ((mode & (S_IWGRP | S_IWOTH)) == 0) return std::nullopt;
  if (!last && S_ISDIR(mode) && (mode & S_ISVTX) != 0) return std::nullopt;
  std::string who = (mode & S_IWOTH) != 0 ? "others" : "its group";
  std::string sticky = S_ISDIR(mode) && !last ? " and has no sticky bit" : "";
  return Distrust{path, "is writable by " + who + " (mode " + mode_text(mode) + ")" + sticky};
}

}  // namespace

bool TrustedUsers::trusts(uid_t uid) const {
  return uid == caller || std::find(others.begin(), others.end(), uid) != others.end();
}

std::string TrustedUsers::describe() const {
  std::vector<std::string> names = {caller == 0 ? std::string("you (root)")
                                                : "you (uid " + std::to_string(caller) + ")"};
  for (uid_t uid : others) {
    if (uid == caller) continue;
    names.push_back(uid == 0 ? "root" : "uid " + std::to_string(uid) + " (the owner of this ezpz)");
  }
  if (names.size() == 1) return names.front();
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return text;
}

TrustedUsers TrustedUsers::of_process() {
  TrustedUsers users = caller_and_root();
  struct stat info {};
  if (::stat("/proc/self/exe", &info) == 0 && !users.trusts(info.st_uid)) users.others.push_back(info.st_uid);
  return users;
}

TrustedUsers TrustedUsers::caller_and_root() {
  TrustedUsers users;
  users.caller = ::geteuid();
  if (users.caller != 0) users.others.push_back(0);
  return users;
}

std::string Distrust::message() const {
  return "'" + path + "' " + reason;
}

std::optional<Distrust> why_untrusted(const std::string& path, const TrustedUsers& users, PathRole role) {
  bool strict_last = role == PathRole::itself;
  std::deque<std::string> todo = components(absolute(path));
  std::string current = "/";
  struct stat info {};
  if (::lstat("/", &info) != 0) return Distrust{"/", std::string("cannot be examined: ") + std::strerror(errno)};
  if (auto problem = owner_problem("/", info, users)) return problem;
  if (auto problem = mode_problem("/", info, strict_last && todo.empty())) return problem;
  int links = 0;
  while (!todo.empty()) {
    std::string name = std::move(todo.front());
    todo.pop_front();
    if (name == "..") {
      current = parent_of(current);  // `current` is a real directory, and its parents were checked on the way
      continue;
    }
    std::string next = joined(current, name);
    if (::lstat(next.c_str(), &info) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
      return Distrust{next, std::string("cannot be examined: ") + std::strerror(errno)};
    }
    if (auto problem = owner_problem(next, info, users)) return problem;
    if (S_ISLNK(info.st_mode)) {
      if (++links > k_max_links) return Distrust{next, "leads through more than 40 symbolic links"};
      std::string target(PATH_MAX, '\0');
      ssize_t size = ::readlink(next.c_str(), target.data(), target.size());
      if (size < 0) return Distrust{next, std::string("cannot be examined: ") + std::strerror(errno)};
      target.resize(static_cast<size_t>(size));
      auto parts = components(target);
      todo.insert(todo.begin(), parts.begin(), parts.end());
      if (!target.empty() && target.front() == '/') current = "/";
      continue;
    }
    if (auto problem = mode_problem(next, info, strict_last && todo.empty())) return problem;
    current = next;
  }
  return std::nullopt;
}

std::optional<Distrust> foreign_owner(const std::string& path, uid_t owner) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return std::nullopt;
  return owner_problem(path, info, TrustedUsers{owner, {}});
}

std::optional<Distrust> foreign_entry(const std::string& path, uid_t owner) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return std::nullopt;
  if (auto problem = owner_problem(path, info, TrustedUsers{owner, {}})) return problem;
  if (!S_ISDIR(info.st_mode)) return std::nullopt;
  auto names = directory_names(path);
  if (!names) return Distrust{path, std::string("cannot be listed: ") + std::strerror(errno)};
  for (const auto& name : *names) {
    if (auto problem = foreign_entry(joined(path, name), owner)) return problem;
  }
  return std::nullopt;
}

}  // namespace ezpz::core
