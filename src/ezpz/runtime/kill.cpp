#include "ezpz/runtime/kill.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string_view>

#include "ezpz/util/text.hpp"

namespace ezpz::core {
namespace {

// /proc files report a size of 0, so read_regular_file (util/file.hpp), which reads the size stat gives,
// would read nothing: these are read to their end. A process that is gone gives "".
std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The parent pid in /proc/PID/stat: the field after the command, which is in parentheses and may hold
// anything, so it is read from the last ')'.
pid_t parent_of(const std::string& proc_root, pid_t pid) {
  std::string stat = read_all(proc_root + "/" + std::to_string(pid) + "/stat");
  auto close = stat.rfind(')');
  if (close == std::string::npos || close + 4 > stat.size()) return 0;
  return static_cast<pid_t>(std::atol(stat.c_str() + close + 4));  // ") S PPID"
}

std::set<pid_t> self_and_ancestors(const std::string& proc_root) {
  std::set<pid_t> chain;
  for (pid_t pid = getpid(); pid > 1 && chain.insert(pid).second;) pid = parent_of(proc_root, pid);
  return chain;
}

// The value of `name` in a NUL-separated environment block, if it is there.
bool find_variable(const std::string& block, const std::string& name, std::string& value) {
  std::string prefix = name + "=";
  for (std::size_t start = 0; start < block.size();) {
    std::size_t end = block.find('\0', start);
    if (end == std::string::npos) end = block.size();
    if (auto rest = strip_prefix(std::string_view(block).substr(start, end - start), prefix)) {
      value = std::string(*rest);
      return true;
    }
    start = end + 1;
  }
  return false;
}

}  // namespace

std::string rank_mark(const std::string& job_id, long rank, const std::string& node) {
  return (job_id.empty() ? std::string("none") : job_id) + ":" + std::to_string(rank) + ":" + node;
}

SignalSent send_signal(pid_t pid, int sig) {
  if (kill(pid, sig) == 0) return SignalSent::sent;
  return errno == ESRCH ? SignalSent::gone : SignalSent::failed;
}

std::vector<MarkedProcess> find_marked_processes(const std::string& job_id, const std::string& node,
                                                 const std::string& proc_root) {
  std::vector<MarkedProcess> found;
  std::set<pid_t> skip = self_and_ancestors(proc_root);
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(proc_root, error)) {
    std::string name = entry.path().filename();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t pid = static_cast<pid_t>(std::stol(name));
    struct stat info {};
    if (skip.count(pid) || stat(entry.path().c_str(), &info) != 0 || info.st_uid != getuid()) continue;
    std::string mark;
    if (!find_variable(read_all(entry.path().string() + "/environ"), k_rank_mark, mark)) continue;
    // job:rank:node; a job id may hold ':' itself, a rank and a node name do not.
    auto node_colon = mark.rfind(':');
    auto rank_colon =
        node_colon == std::string::npos || node_colon == 0 ? std::string::npos : mark.rfind(':', node_colon - 1);
    if (rank_colon == std::string::npos) continue;
    MarkedProcess process{pid,
                          mark.substr(0, rank_colon),
                          mark.substr(rank_colon + 1, node_colon - rank_colon - 1),
                          mark.substr(node_colon + 1),
                          {}};
    if (process.node != node || (!job_id.empty() && process.job_id != job_id)) continue;
    process.command = read_all(entry.path().string() + "/cmdline");
    std::replace(process.command.begin(), process.command.end(), '\0', ' ');
    while (!process.command.empty() && process.command.back() == ' ') process.command.pop_back();
    found.push_back(std::move(process));
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.pid < b.pid; });
  return found;
}

}  // namespace ezpz::core
