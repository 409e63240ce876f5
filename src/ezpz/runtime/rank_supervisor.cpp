// Running a rank's program in place, or as a watched child (signals, exit status, a PMI-1 connection).
#include "ezpz/runtime/rank_supervisor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <iostream>
#include <optional>

#include "ezpz/runtime/line_forwarder.hpp"
#include "ezpz/runtime/rank_output.hpp"
#include "ezpz/util/error.hpp"
#include "ezpz/util/exec.hpp"
#include "ezpz/util/exit_codes.hpp"
#include "ezpz/util/handoff_variables.hpp"
#include "ezpz/util/signals.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz::core {
namespace {

struct RunRule {
  const char* launcher;  // RankInfo::launcher of the ranks it applies to
  const char* needs;     // a variable that must be set for the rule to apply ("" for none)
  bool forward_signals;
  bool pmi_client;
  const char* reason;
};

// Sources: srun(1) RETURN VALUE, Slurm 22.05 ("the highest exit code of all tasks run or the highest
// signal ... of any task that exited with a signal"), and with -K1 srun stops the other tasks with
// SIGTERM (seen on tests/slurm's cluster: srun returned 143 for a task that exited 3). MPICH 4.0
// Hydra, proxy/pmip_cb.c pmi_cb: a rank whose PMI socket closes before PMI finalize makes the proxy
// SIGKILL every other rank ("For non-PMI applications ... we just let the user cleanup the processes
// on a failure"), and mpiexec then returns that rank's code.
const RunRule k_run_rules[] = {
    {"Slurm", "", false, false,
     "srun --kill-on-bad-exit stops the other tasks with SIGTERM and would return 143, not the failing task's code"},
    {"PMI, MPICH", "PMI_FD", true, true,
     "Hydra stops the other ranks only when a PMI client ends without PMI finalize (non-MPI programs never connect)"},
};

// The exit code of a rank stopped by SIGTERM from outside. srun returns the highest task exit code, so 1
// never hides the failing rank's own code (1 or more), and a rank that was stopped (a walltime, a
// scancel, a Ctrl-C) never reports success: 0 would let a batch script go on as if the step had worked.
constexpr int k_exit_stopped = 1;

// Signals a supervisor passes on to its program. Under Slurm the step's process tracking already
// signals every process of the task (the program too), so nothing is passed on there; Hydra signals
// only the process it started.
const int k_forwarded_signals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM};

// The program could not be started because ezpz exec could not set it up (signalfd, pipe, fork):
// a system error, not the program's.
int setup_error(const std::string& what, int error) {
  std::cerr << "ezpz exec: error: " << what << " failed: " << std::strerror(error) << "\n";
  return k_exit_system_error;
}

// One line of MPICH's simple PMI-1 wire protocol: send `command`, read the reply line. nullopt when the
// other side is gone or silent for 10 s (a PMI server answers at once).
std::optional<std::string> pmi_exchange(int fd, const std::string& command) {
  if (send(fd, command.data(), command.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(command.size()))
    return std::nullopt;
  std::string reply;
  char c = 0;
  while (reply.size() < 4096) {
    pollfd ready{fd, POLLIN, 0};
    if (poll(&ready, 1, 10000) <= 0 || read(fd, &c, 1) != 1) return std::nullopt;
    if (c == '\n') return reply;
    reply += c;
  }
  return std::nullopt;
}

// The PMI connection Hydra gave this rank, registered as a client; -1 when there is none to use.
int pmi_connect() {
  const char* text = std::getenv("PMI_FD");
  if (text == nullptr || *text == '\0') return -1;
  char* end = nullptr;
  long fd = std::strtol(text, &end, 10);
  if (*end != '\0' || fd < 0 || fcntl(static_cast<int>(fd), F_GETFD) < 0) return -1;
  auto reply = pmi_exchange(static_cast<int>(fd), "cmd=init pmi_version=1 pmi_subversion=1\n");
  if (!reply || reply->find("cmd=response_to_init") == std::string::npos || reply->find("rc=0") == std::string::npos) {
    std::cerr << "ezpz exec: warning: no PMI-1 answer on PMI_FD=" << text
              << "; if this rank fails, Hydra will not stop the others\n";
    return -1;
  }
  return static_cast<int>(fd);
}

// Ends this process the way `status` ended the program: its exit code, or the same signal.
int mirror(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  int sig = WTERMSIG(status);
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // the program dumped its own core if it was allowed to
  std::signal(sig, SIG_DFL);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, sig);
  sigprocmask(SIG_UNBLOCK, &only, nullptr);
  raise(sig);
  return 128 + sig;  // a signal that does not end a process by default
}

void on_child(int) {}

// The signal mask ezpz exec started with, before defer_stop_signal(); the program gets it back.
sigset_t g_start_mask;
bool g_deferred = false;

const sigset_t& start_mask() {
  if (!g_deferred) sigprocmask(SIG_BLOCK, nullptr, &g_start_mask);
  return g_start_mask;
}

bool stop_signal_pending() {
  sigset_t pending;
  sigpending(&pending);
  return sigismember(&pending, SIGTERM) == 1;
}

// The program's stdout and stderr through pipes, as whole lines, to RankOutput.
struct CapturedOutput {
  RankOutput output;
  LineForwarder lines;
  std::array<int, 2> read_ends{-1, -1};  // stdout, stderr
  std::vector<char> buffer = std::vector<char>(65536);

  explicit CapturedOutput(const RankOutputPlan& plan)
      : output(plan), lines([this](long fd, std::string_view bytes) { output.write(static_cast<int>(fd), bytes); }) {}
  // Passes on what the pipe of `fd` (1 or 2) holds now (forward_pipe).
  void read_from(int fd, bool drain) {
    forward_pipe(read_ends[static_cast<std::size_t>(fd - 1)], fd, lines, buffer, drain);
  }
  void finish() {
    for (int fd : {1, 2}) {
      read_from(fd, true);
      lines.finish(fd);
    }
  }
};

int supervise(const std::vector<std::string>& program, const RankRunPlan& plan) {
  int pmi_fd = plan.pmi_client ? pmi_connect() : -1;

  // Every signal of interest is read from a signalfd below; SIGCHLD needs a handler (not SIG_IGN,
  // which would reap the child before waitpid sees it).
  std::signal(SIGCHLD, on_child);
  sigset_t original = start_mask();
  sigset_t watched;
  sigemptyset(&watched);
  sigaddset(&watched, SIGCHLD);
  for (int sig : k_forwarded_signals) sigaddset(&watched, sig);
  sigprocmask(SIG_BLOCK, &watched, nullptr);
  if (stop_signal_pending()) return k_exit_stopped;  // stopped before the program started
  int signal_fd = signalfd(-1, &watched, SFD_CLOEXEC);
  if (signal_fd < 0) return setup_error("signalfd", errno);

  std::optional<CapturedOutput> captured;
  std::array<int, 4> pipes{-1, -1, -1, -1};  // stdout read, write; stderr read, write
  if (plan.output.active()) {
    try {
      captured.emplace(plan.output);
    } catch (const UserError& problem) {
      std::cerr << "ezpz exec: error: " << problem.what() << "\n";
      return 1;
    }
    if (pipe2(&pipes[0], O_CLOEXEC) != 0 || pipe2(&pipes[2], O_CLOEXEC) != 0) return setup_error("pipe2", errno);
    for (int end : {pipes[0], pipes[2]}) fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK);
    captured->read_ends = {pipes[0], pipes[2]};
  }

  std::vector<std::string> words = program;
  auto argv = exec_argv(words);  // before fork: the child only execs or exits
  int exec_error[2];
  if (pipe2(exec_error, O_CLOEXEC) != 0) return setup_error("pipe2", errno);
  pid_t parent = getpid();
  pid_t child = fork();
  if (child < 0) return setup_error("fork", errno);
  if (child == 0) {
    close(exec_error[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(128 + SIGKILL);  // ezpz exec died before the line above
    std::signal(SIGCHLD, SIG_DFL);
    if (plan.forward_signals) setpgid(0, 0);  // each signal reaches it once: from ezpz exec
    if (plan.output.active()) {
      dup2(pipes[1], STDOUT_FILENO);
      dup2(pipes[3], STDERR_FILENO);
      setenv("PYTHONUNBUFFERED", "1", 0);  // a pipe would hold Python's output back until it exits
    }
    sigprocmask(SIG_SETMASK, &original, nullptr);
    execvp(argv[0], argv.data());
    int error = errno;
    ssize_t written = write(exec_error[1], &error, sizeof error);
    (void)written;
    _exit(127);
  }
  close(exec_error[1]);
  if (plan.output.active()) {
    close(pipes[1]);
    close(pipes[3]);
  }
  int error = 0;
  bool exec_failed = read(exec_error[0], &error, sizeof error) == static_cast<ssize_t>(sizeof error);
  close(exec_error[0]);

  bool stopped = false;  // a SIGTERM from outside reached this rank while its program ran
  int status = 0;
  std::optional<EndSignal> end = plan.end_signal;
  if (end && end->due <= static_cast<long>(std::time(nullptr))) {
    // A program that is only starting may not handle the signal yet, and would die of it.
    if (plan.announce) {
      std::cerr << "ezpz exec: warning: the time for " << signal_name(end->signal)
                << " before the end of the allocation has passed; the program gets no such signal\n";
    }
    end.reset();
  }
  for (;;) {
    if (end && end->due <= static_cast<long>(std::time(nullptr))) {
      if (plan.announce) {
        std::cerr << "ezpz exec: the allocation ends in " << format_walltime(end->before) << "; sending "
                  << signal_name(end->signal) << " to the program of every rank\n";
      }
      kill(child, end->signal);
      end.reset();
    }
    std::vector<pollfd> ready = {{signal_fd, POLLIN, 0}};
    if (captured) {
      for (int fd : captured->read_ends) {
        if (fd >= 0) ready.push_back({fd, POLLIN, 0});
      }
    }
    long left_ms = end ? (end->due - static_cast<long>(std::time(nullptr))) * 1000 : -1;
    if (poll(ready.data(), ready.size(), static_cast<int>(std::min<long>(left_ms, 3600 * 1000L))) <= 0) continue;
    for (std::size_t i = 1; i < ready.size(); ++i) {
      if (ready[i].revents != 0) captured->read_from(ready[i].fd == captured->read_ends[0] ? 1 : 2, false);
    }
    if (!(ready[0].revents & POLLIN)) continue;
    signalfd_siginfo info{};
    if (read(signal_fd, &info, sizeof info) != sizeof info) continue;
    int sig = static_cast<int>(info.ssi_signo);
    if (sig == SIGTERM) stopped = true;
    if (waitpid(child, &status, WNOHANG) == child) break;
    if (sig == SIGCHLD) continue;
    if (plan.forward_signals) kill(child, sig);
  }
  close(signal_fd);
  if (captured) captured->finish();  // the program's last lines, before its end is reported
  if (exec_failed) status = W_EXITCODE(report_start_failure(program[0], error), 0);
  // Slurm's step tracking may signal the program before ezpz exec, and its SIGCHLD may come first.
  if (stopped || stop_signal_pending() || (WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM)) return k_exit_stopped;
  if (pmi_fd >= 0) {
    bool succeeded = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    int code = wait_status_exit_code(status);
    if (succeeded) {
      // A program that is itself an MPI program has finalized already and Hydra closed the socket.
      pmi_exchange(pmi_fd, "cmd=finalize\n");
    } else {
      // PMI_Abort's message (MPICH simple_pmi.c): Hydra kills every rank and returns this code. Without
      // it, the closed socket alone also stops the others, but mpiexec then returns 9 or the code
      // depending on which rank it reaps first (seen with MPICH 4.0.2).
      std::string abort = "cmd=abort exitcode=" + std::to_string(code) + "\n";
      ssize_t sent = send(pmi_fd, abort.data(), abort.size(), MSG_NOSIGNAL);
      (void)sent;
    }
  }
  return mirror(status);
}

}  // namespace

void defer_stop_signal() {
  start_mask();
  g_deferred = true;
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigprocmask(SIG_BLOCK, &stop, nullptr);
}

RankRunPlan rank_run_plan(const RankInfo& rank, const EnvLookup& env) {
  RankRunPlan plan;
  for (const auto& rule : k_run_rules) {
    if (rank.launcher != rule.launcher) continue;
    if (*rule.needs != '\0' && !env(rule.needs)) continue;
    plan.run = RankRun::supervise;
    plan.forward_signals = rule.forward_signals;
    plan.pmi_client = rule.pmi_client;
    plan.reason = rule.reason;
    break;
  }
  plan.end_signal = end_signal(env);
  plan.output.label = env(k_env_label).value_or("") == "1";
  plan.output.log_dir = env(k_env_log_dir).value_or("");
  plan.output.rank = rank.rank;
  plan.output.console = rank.rank == 0 || plan.output.log_dir.empty();
  plan.announce = rank.rank == 0;
  if (plan.run == RankRun::exec && (plan.end_signal || plan.output.active())) {
    // The launcher signals the process it started, which is ezpz exec now: pass its signals on.
    plan.run = RankRun::supervise;
    plan.forward_signals = true;
    plan.reason = plan.end_signal ? "the end signal is sent by ezpz exec" : "the output passes through ezpz exec";
  }
  return plan;
}

int run_rank(const std::vector<std::string>& program, const RankRunPlan& plan) {
  if (plan.run == RankRun::supervise) return supervise(program, plan);
  sigprocmask(SIG_SETMASK, &start_mask(), nullptr);  // a SIGTERM held back until now ends the rank here
  return exec_program(program);
}

}  // namespace ezpz::core
