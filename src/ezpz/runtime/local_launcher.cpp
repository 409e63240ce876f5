// Running ranks on this machine: fork/exec, one process group per rank, signals forwarded through a
// signalfd, the other ranks stopped when one fails.
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <map>

#include "ezpz/runtime/launch.hpp"
#include "ezpz/runtime/rank.hpp"
#include "ezpz/util/error.hpp"

namespace ezpz {
namespace {

const int k_forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// A port the kernel says is free now (the usual race with other programs is accepted, as torchrun does).
int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof addr;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    if (fd >= 0) close(fd);
    throw UserError(std::string("cannot find a free local port: ") + std::strerror(errno));
  }
  close(fd);
  return ntohs(addr.sin_port);
}

int exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

}  // namespace

int run_local_ranks(const LaunchPlan& plan, const std::vector<std::string>& program, const std::string& ezpz_bin,
                    const std::string& system, double grace_seconds) {
  sigset_t signals;
  sigset_t previous;
  sigemptyset(&signals);
  sigaddset(&signals, SIGCHLD);
  for (int sig : k_forwarded) sigaddset(&signals, sig);
  sigprocmask(SIG_BLOCK, &signals, &previous);
  int signal_fd = signalfd(-1, &signals, SFD_CLOEXEC);
  if (signal_fd < 0) throw UserError(std::string("signalfd failed: ") + std::strerror(errno));

  std::string port = std::to_string(free_port());
  std::vector<std::string> argv_text = {ezpz_bin, "exec", "--"};
  argv_text.insert(argv_text.end(), program.begin(), program.end());
  std::vector<char*> argv;
  for (auto& word : argv_text) argv.push_back(word.data());
  argv.push_back(nullptr);
  pid_t parent = getpid();
  const std::vector<std::string> stale = launcher_rank_variables();

  std::map<pid_t, long> ranks;  // live children: pid → rank
  for (long rank = 0; rank < plan.total_ranks; ++rank) {
    pid_t pid = fork();
    if (pid < 0) throw UserError(std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) {
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGTERM);  // no orphans if the launcher itself is killed
      if (getppid() != parent) _exit(128 + SIGTERM);
      sigprocmask(SIG_SETMASK, &previous, nullptr);
      const std::pair<const char*, std::string> variables[] = {
          {"RANK", std::to_string(rank)},
          {"LOCAL_RANK", std::to_string(rank % plan.ranks_per_node)},
          {"WORLD_SIZE", std::to_string(plan.total_ranks)},
          {"LOCAL_WORLD_SIZE", std::to_string(plan.ranks_per_node)},
          {"GROUP_RANK", std::to_string(rank / plan.ranks_per_node)},
          {"MASTER_ADDR", "127.0.0.1"},
          {"MASTER_PORT", port},
          {"EZPZ_SYSTEM", system},
      };
      for (const auto& name : stale) unsetenv(name.c_str());  // an outer mpiexec/srun's identity
      for (const auto& [name, value] : variables) setenv(name, value.c_str(), 1);
      execv(ezpz_bin.c_str(), argv.data());
      std::cerr << "ezpz launch: cannot run " << ezpz_bin << ": " << std::strerror(errno) << "\n";
      _exit(127);
    }
    setpgid(pid, pid);
    ranks[pid] = rank;
  }

  int result = 0;
  bool stopping = false;
  auto deadline = std::chrono::steady_clock::time_point::max();
  auto grace = std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(grace_seconds));
  auto stop_all = [&](int sig) {
    for (const auto& [pid, rank] : ranks) kill(-pid, sig);
  };
  while (!ranks.empty()) {
    int timeout = -1;
    if (deadline != std::chrono::steady_clock::time_point::max()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      timeout = static_cast<int>(std::max<long>(0, left.count()));
    }
    pollfd poll_fd{signal_fd, POLLIN, 0};
    int ready = poll(&poll_fd, 1, timeout);
    if (ready == 0) {  // grace period over
      stop_all(SIGKILL);
      deadline = std::chrono::steady_clock::time_point::max();
      continue;
    }
    signalfd_siginfo info{};
    if (ready < 0 || read(signal_fd, &info, sizeof info) != sizeof info) continue;
    if (info.ssi_signo != SIGCHLD) {  // forward what the user sent, then wait for the ranks
      stop_all(static_cast<int>(info.ssi_signo));
      if (!stopping) result = 128 + static_cast<int>(info.ssi_signo);
      stopping = true;
      deadline = std::chrono::steady_clock::now() + grace;
      continue;
    }
    int status = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      auto found = ranks.find(pid);
      if (found == ranks.end()) continue;
      long rank = found->second;
      ranks.erase(found);
      kill(-pid, SIGKILL);  // anything the rank left behind in its group
      if (exit_code(status) != 0 && !stopping) {
        result = exit_code(status);
        stopping = true;
        std::cerr << "ezpz launch: rank " << rank << " failed with exit code " << result
                  << "; stopping the other " << ranks.size() << " rank(s)\n";
        stop_all(SIGTERM);
        deadline = std::chrono::steady_clock::now() + grace;
      }
    }
  }
  close(signal_fd);
  sigprocmask(SIG_SETMASK, &previous, nullptr);
  return result;
}

}  // namespace ezpz
