// Supervising what `ezpz launch` starts (local ranks, or the system's launcher): fork/exec, one process
// group each (for local ranks, one session each), signals forwarded through a signalfd, the others
// stopped when one fails or when all are silent for the idle timeout, each one's stdout and stderr
// passed on as whole lines.
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <string_view>

#include "ezpz/runtime/launch.hpp"
#include "ezpz/runtime/launch_guardian.hpp"
#include "ezpz/runtime/line_forwarder.hpp"
#include "ezpz/runtime/rank.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/exec.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/handoff_variables.hpp"
#include "ezpz/util/rank_variables.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz::core {
namespace {

const int k_forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};  // end the launch
const int k_passed_on[] = {SIGUSR1, SIGUSR2};                  // for the program (checkpoint, dump)
constexpr long k_launcher_source = -1;                         // the launcher's own messages, on stderr
constexpr std::size_t k_read_size = 64 * 1024;  // one read per ready pipe and poll, so every rank gets its turn

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
    throw SystemError(std::string("cannot find a free local port: ") + std::strerror(errno));
  }
  close(fd);
  return ntohs(addr.sin_port);
}

int exit_code(int status) {
  return wait_status_exit_code(status);
}

// Source numbers of the LineForwarder: rank r's stdout is 2r, its stderr 2r + 1.
long source_of(long rank, int stream) {
  return rank * 2 + (stream == STDERR_FILENO ? 1 : 0);
}
int stream_of(long source) {
  return source >= 0 && source % 2 == 0 ? STDOUT_FILENO : STDERR_FILENO;
}

// With `2>&1` (or one terminal) both streams end in one file, so they need one forwarder: a line on
// one stream must not continue an unfinished line of the other.
bool same_file(int a, int b) {
  struct stat first {};
  struct stat second {};
  return fstat(a, &first) == 0 && fstat(b, &second) == 0 && first.st_dev == second.st_dev &&
         first.st_ino == second.st_ino;
}

// Writes all of `bytes`, waiting while a non-blocking output is full. Returns 0 or the errno of the failed write.
int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t written = write(fd, bytes.data(), bytes.size());
    if (written >= 0) {
      bytes.remove_prefix(static_cast<std::size_t>(written));
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      pollfd output{fd, POLLOUT, 0};
      poll(&output, 1, -1);
    } else if (errno != EINTR) {
      return errno;
    }
  }
  return 0;
}

// The launcher's end of one rank's stdout or stderr pipe.
struct RankStream {
  long rank;
  long source;
  LineForwarder* forwarder;
  int fd;  // non-blocking read end; -1 once closed
};

std::size_t read_stream(RankStream& stream, std::vector<char>& buffer, bool drain) {
  return forward_pipe(stream.fd, stream.source, *stream.forwarder, buffer, drain);
}

// Signals the process group of a child that leads one. A child making its own session (setsid) is
// not a group leader until it has, so until then the signal goes to it alone: nothing else is in its
// group before its exec, and a signal it holds blocked still acts when it unblocks them before the exec.
void signal_group(pid_t leader, int sig) {
  if (kill(-leader, sig) != 0 && errno == ESRCH) kill(leader, sig);
}

// Gives the caller's autogroup (sched(7), /proc/self/autogroup) the nice value `nice`: a new session
// is a new autogroup at nice 0, which would undo a `nice -n 19 ezpz launch`. Only async-signal-safe
// calls (between fork and exec); without autogroup support there is no file and nothing to do.
void set_autogroup_nice(const std::string& nice) {
  int fd = open("/proc/self/autogroup", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t written = write(fd, nice.data(), nice.size());
  (void)written;
  close(fd);
}

// Makes `fd` the child's descriptor `target`, open across exec (the pipe ends are close-on-exec).
void move_to(int fd, int target) {
  if (fd == target) {
    fcntl(fd, F_SETFD, 0);
  } else {
    dup2(fd, target);
  }
}

}  // namespace

LaunchOutcome supervise_processes(const std::vector<SupervisedProcess>& children, const Supervision& supervision) {
  double grace_seconds = supervision.grace_seconds;
  sigset_t signals;
  sigset_t previous;
  sigemptyset(&signals);
  sigaddset(&signals, SIGCHLD);
  for (int sig : k_forwarded) sigaddset(&signals, sig);
  for (int sig : k_passed_on) sigaddset(&signals, sig);
  sigprocmask(SIG_BLOCK, &signals, &previous);
  int signal_fd = signalfd(-1, &signals, SFD_CLOEXEC);
  if (signal_fd < 0) throw SystemError(std::string("signalfd failed: ") + std::strerror(errno));
  // A closed output (`| head`) must show up as EPIPE from write, not kill the launcher and orphan the
  // ranks' process groups; the ranks get the old disposition back.
  struct sigaction ignore_pipe {};
  struct sigaction previous_pipe {};
  ignore_pipe.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore_pipe, &previous_pipe);

  // Before the ranks' pipes, which it must not hold; with the signals blocked, which it keeps so.
  std::optional<LaunchGuardian> guarding;
  try {
    guarding.emplace(children.size(), grace_seconds);
  } catch (const UserError&) {
    close(signal_fd);
    sigaction(SIGPIPE, &previous_pipe, nullptr);
    sigprocmask(SIG_SETMASK, &previous, nullptr);
    throw;
  }
  LaunchGuardian& guardian = *guarding;

  // Every pipe before the first fork, so a failure here leaves no rank running.
  const long count = static_cast<long>(children.size());
  std::vector<std::array<int, 4>> pipes;  // per rank: stdout read, write; stderr read, write
  for (long rank = 0; rank < count; ++rank) {
    std::array<int, 4> ends{-1, -1, -1, -1};
    if (pipe2(&ends[0], O_CLOEXEC) != 0 || pipe2(&ends[2], O_CLOEXEC) != 0) {
      std::string error = std::strerror(errno);
      for (int end : ends) {
        if (end >= 0) close(end);
      }
      for (const auto& opened : pipes) {
        for (int end : opened) close(end);
      }
      close(signal_fd);
      sigaction(SIGPIPE, &previous_pipe, nullptr);
      sigprocmask(SIG_SETMASK, &previous, nullptr);
      throw SystemError("cannot make the pipes for the output of " + std::to_string(count) + " processes: " + error,
                        "raise the limit of open files (ulimit -n), or run fewer ranks");
    }
    fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK);
    fcntl(ends[2], F_SETFL, fcntl(ends[2], F_GETFL) | O_NONBLOCK);
    pipes.push_back(ends);
  }

  std::array<bool, 3> output_gone{};  // by descriptor: its reader went away (EPIPE)
  bool broken_pipe = false;
  auto sink = [&](long source, std::string_view bytes) {
    int fd = stream_of(source);
    if (supervision.on_output) supervision.on_output(bytes);
    if (output_gone[fd]) return;
    if (write_all(fd, bytes) == EPIPE) output_gone[fd] = broken_pipe = true;
  };
  LineForwarder out_forwarder(sink);
  LineForwarder err_forwarder(sink);
  LineForwarder& err_lines = same_file(STDOUT_FILENO, STDERR_FILENO) ? out_forwarder : err_forwarder;
  auto say = [&](const std::string& message) { err_lines.feed(k_launcher_source, message); };

  pid_t parent = getpid();
  std::map<pid_t, long> ranks;  // live children: pid → rank
  errno = 0;
  int nice = getpriority(PRIO_PROCESS, 0);  // -1 is a nice value too: errno tells
  std::string autogroup_nice = nice != 0 && errno == 0 ? std::to_string(nice) : "";  // made before fork
  std::vector<RankStream> streams;
  for (long rank = 0; rank < count; ++rank) {
    const SupervisedProcess& child = children[static_cast<std::size_t>(rank)];
    const std::array<int, 4>& ends = pipes[static_cast<std::size_t>(rank)];
    std::vector<std::string> words = child.argv;
    std::vector<char*> argv = exec_argv(words);  // before fork: the child only execs or exits
    pid_t pid = fork();
    if (pid < 0) throw SystemError(std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) {
      if (child.own_session) {
        setsid();  // a group of its own too, whose id is its pid as with setpgid
        if (!autogroup_nice.empty()) set_autogroup_nice(autogroup_nice);
      } else {
        setpgid(0, 0);
      }
      prctl(PR_SET_PDEATHSIG, SIGTERM);  // no orphans if the launcher itself is killed
      if (getppid() != parent) _exit(128 + SIGTERM);
      move_to(ends[1], STDOUT_FILENO);
      move_to(ends[3], STDERR_FILENO);
      sigaction(SIGPIPE, &previous_pipe, nullptr);
      sigprocmask(SIG_SETMASK, &previous, nullptr);
      for (const auto& name : child.unset) unsetenv(name.c_str());
      for (const auto& [name, value] : child.set) setenv(name.c_str(), value.c_str(), 1);
      // A rank writes into a pipe, so Python would hold its output in an 8 KiB buffer until it exits:
      // late output for the user, and silence that the idle-output watchdog would take for a hang.
      setenv("PYTHONUNBUFFERED", "1", 0);
      execvp(argv[0], argv.data());
      int error = errno;  // before the message, which may set it
      _exit(report_start_failure(child.argv[0], error));
    }
    // Also here, so that the group exists before any signal is sent to it; not for a session of its
    // own: setsid refuses a group leader (signal_group covers the time before the child's setsid).
    if (!child.own_session) setpgid(pid, pid);
    guardian.watch(pid);
    ranks[pid] = rank;
    close(ends[1]);  // the rank holds the write ends; the pipe ends when the rank (and what it started) is done
    close(ends[3]);
    streams.push_back({rank, source_of(rank, STDOUT_FILENO), &out_forwarder, ends[0]});
    streams.push_back({rank, source_of(rank, STDERR_FILENO), &err_lines, ends[2]});
  }

  using Clock = std::chrono::steady_clock;
  bool stopping = false;
  LaunchOutcome outcome;
  auto deadline = Clock::time_point::max();
  // The idle-output watchdog: the last time each child wrote a byte, and when silence ends the launch.
  std::vector<Clock::time_point> last_output(children.size(), Clock::now());
  auto last_any = Clock::now();
  auto idle_limit = std::chrono::seconds(supervision.idle_timeout_seconds);
  bool watching = supervision.idle_timeout_seconds > 0;
  auto grace = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(grace_seconds));
  // When the ranks' `ezpz exec` send them the end signal (they do it themselves, on every node).
  auto end_signal_due = Clock::time_point::max();
  if (supervision.end_signal_due > 0) {
    double left = static_cast<double>(supervision.end_signal_due) -
                  std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    if (left > 0) {
      end_signal_due = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(left));
    }
  }
  auto pass_on = [&](int sig) {
    for (const auto& [pid, rank] : ranks) kill(pid, sig);
  };
  auto stop_all = [&](int sig) {
    for (const auto& [pid, rank] : ranks) signal_group(pid, sig);
  };
  // Ends the launch: `sig` to every process group now, KILL when the grace period is over. The first
  // reason gives the outcome's code and why; a user's signal or a closed output at any point marks the
  // launch as stopped by the user (never retried).
  auto stop = [&](int sig, int code, std::string why, bool by_user) {
    if (!stopping) {
      outcome.code = code;
      outcome.why = std::move(why);
    }
    stopping = true;
    outcome.stopped_by_user = outcome.stopped_by_user || by_user;
    stop_all(sig);
    deadline = Clock::now() + grace;
  };
  std::vector<char> buffer(k_read_size);
  std::vector<pollfd> poll_fds;
  std::vector<RankStream*> polled;  // the stream of poll_fds[i + 1]
  while (!ranks.empty()) {
    auto wake = deadline;
    if (watching && !stopping) wake = std::min(wake, last_any + idle_limit);
    if (!stopping) wake = std::min(wake, end_signal_due);
    int timeout = -1;
    if (wake != Clock::time_point::max()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(wake - Clock::now());
      timeout = static_cast<int>(std::max<long>(0, left.count() + 1));
    }
    poll_fds.assign(1, pollfd{signal_fd, POLLIN, 0});
    polled.clear();
    for (auto& stream : streams) {
      if (stream.fd < 0) continue;
      poll_fds.push_back(pollfd{stream.fd, POLLIN, 0});
      polled.push_back(&stream);
    }
    int ready = poll(poll_fds.data(), poll_fds.size(), timeout);
    // Grace period over; checked by the clock, since a rank that keeps writing keeps poll from timing out.
    if (deadline != Clock::time_point::max() && Clock::now() >= deadline) {
      stop_all(SIGKILL);
      deadline = Clock::time_point::max();
    }
    for (std::size_t i = 0; ready > 0 && i < polled.size(); ++i) {
      if (poll_fds[i + 1].revents == 0) continue;
      if (read_stream(*polled[i], buffer, false) > 0) {
        last_any = last_output[static_cast<std::size_t>(polled[i]->rank)] = Clock::now();
      }
    }
    if (watching && !stopping && Clock::now() >= last_any + idle_limit) {
      auto now = Clock::now();
      std::vector<std::string> silent;
      for (const auto& [pid, rank] : ranks) {
        auto quiet =
            std::chrono::duration_cast<std::chrono::seconds>(now - last_output[static_cast<std::size_t>(rank)]);
        silent.push_back(children[static_cast<std::size_t>(rank)].name + " for " + format_walltime(quiet.count()));
      }
      std::string why = "no output for " + format_walltime(supervision.idle_timeout_seconds);
      say("ezpz launch: " + why + " (--timeout); silent: " + join(silent, ", ") +
          "; stopping them (TERM, then KILL after " + std::to_string(std::lround(grace_seconds)) + " s)\n");
      stop(SIGTERM, k_exit_idle_timeout, why, false);
      outcome.idle_timeout = true;
    }
    if (!stopping && Clock::now() >= end_signal_due) {
      end_signal_due = Clock::time_point::max();
      outcome.end_signal_sent = true;
    }
    if (ready <= 0) continue;
    if (broken_pipe && !stopping) {  // what a rank writing to the closed output itself would have died of
      say("ezpz launch: the output was closed; stopping the " + std::to_string(ranks.size()) + " rank(s)\n");
      stop(SIGTERM, 128 + SIGPIPE, "the output was closed", true);
    }
    signalfd_siginfo info{};
    if (!(poll_fds[0].revents & POLLIN) || read(signal_fd, &info, sizeof info) != sizeof info) continue;
    if (info.ssi_signo == SIGUSR1 || info.ssi_signo == SIGUSR2) {
      pass_on(static_cast<int>(info.ssi_signo));
      continue;
    }
    if (info.ssi_signo != SIGCHLD) {  // forward what the user sent, then wait for the ranks
      int sig = static_cast<int>(info.ssi_signo);
      stop(sig, 128 + sig, std::string("signal ") + strsignal(sig), true);
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
      guardian.forget(pid);
      // Its last output before any report about it; its unfinished lines go out even if something it
      // started outside its group still holds the pipe.
      for (auto& stream : streams) {
        if (stream.rank != rank) continue;
        read_stream(stream, buffer, true);
        stream.forwarder->finish(stream.source);
      }
      if (exit_code(status) != 0 && !stopping) {
        std::string why = children[static_cast<std::size_t>(rank)].name + " failed with exit code " +
                          std::to_string(exit_code(status));
        if (!ranks.empty()) {
          say("ezpz launch: " + why + "; stopping the other " + std::to_string(ranks.size()) + " rank(s)\n");
        }
        stop(SIGTERM, exit_code(status), why, false);
      }
    }
  }
  for (auto& stream : streams) {  // what is left in pipes that outlived their ranks
    read_stream(stream, buffer, true);
    if (stream.fd < 0) continue;
    stream.forwarder->finish(stream.source);
    close(stream.fd);
  }
  close(signal_fd);
  sigaction(SIGPIPE, &previous_pipe, nullptr);
  sigprocmask(SIG_SETMASK, &previous, nullptr);
  return outcome;
}

LaunchOutcome run_local_ranks(const LaunchPlan& plan, const std::vector<std::string>& program,
                              const std::string& ezpz_bin, const std::string& system, const Supervision& supervision) {
  std::string port = std::to_string(free_port());
  std::vector<std::string> argv = {ezpz_bin, "exec", "--"};
  argv.insert(argv.end(), program.begin(), program.end());
  std::vector<SupervisedProcess> ranks;
  for (long rank = 0; rank < plan.total_ranks; ++rank) {
    SupervisedProcess child;
    child.name = "rank " + std::to_string(rank);
    child.argv = argv;
    child.unset = launcher_rank_variables();  // an outer mpiexec/srun's identity
    RankInfo identity;
    identity.rank = rank;
    identity.world_size = plan.total_ranks;
    identity.local_rank = rank % plan.ranks_per_node;
    identity.local_world_size = plan.ranks_per_node;
    identity.node_rank = rank / plan.ranks_per_node;
    child.set = rank_variables(identity);
    child.set.insert(child.set.end(), {{"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", port}, {k_env_system, system}});
    child.own_session = true;  // the CPU share of a separately started process (launch.hpp)
    ranks.push_back(std::move(child));
  }
  return supervise_processes(ranks, supervision);
}

}  // namespace ezpz::core
