// The guardian of a launch: see launch_guardian.hpp. The guardian runs in a fork of a launch that
// may have threads, so it uses only async-signal-safe calls and the memory made before the fork.
#include "ezpz/runtime/launch_guardian.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <string>

#include "ezpz/util/error.hpp"

namespace ezpz::core {
namespace {

// One message on the pipe: a group started ('+'), reaped ('-'), or the launch is done ('d'). Smaller
// than PIPE_BUF, so each write arrives whole.
struct Message {
  char what;
  pid_t group;
};

// Every descriptor but `keep`: the guardian must not hold the launch's output (a `$(ezpz launch …)`
// would wait for it) nor anything else open.
void close_all_but(int keep) {
#ifdef SYS_close_range
  if ((keep == 0 || syscall(SYS_close_range, 0u, static_cast<unsigned>(keep - 1), 0u) == 0) &&
      syscall(SYS_close_range, static_cast<unsigned>(keep + 1), ~0u, 0u) == 0) {
    return;
  }
#endif
  for (int fd = 0; fd < 4096; ++fd) {
    if (fd != keep) close(fd);
  }
}

void signal_groups(const pid_t* groups, std::size_t count, int sig) {
  for (std::size_t i = 0; i < count; ++i) {
    if (groups[i] > 0) kill(-groups[i], sig);
  }
}

[[noreturn]] void guard(int fd, pid_t* groups, std::size_t capacity, double grace_seconds) {
  close_all_but(fd);
  std::size_t count = 0;
  char buffer[sizeof(Message) * 64];
  std::size_t filled = 0;
  for (;;) {
    ssize_t got = read(fd, buffer + filled, sizeof buffer - filled);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // the launch is gone: every write end is closed
    filled += static_cast<std::size_t>(got);
    std::size_t used = 0;
    for (; filled - used >= sizeof(Message); used += sizeof(Message)) {
      Message message;
      std::memcpy(&message, buffer + used, sizeof message);
      if (message.what == 'd') _exit(0);
      if (message.what == '+' && count < capacity) groups[count++] = message.group;
      for (std::size_t i = 0; message.what == '-' && i < count; ++i) {
        if (groups[i] == message.group) groups[i] = 0;
      }
    }
    std::memmove(buffer, buffer + used, filled - used);
    filled -= used;
  }
  signal_groups(groups, count, SIGTERM);
  timespec grace{static_cast<time_t>(grace_seconds),
                 static_cast<long>((grace_seconds - std::floor(grace_seconds)) * 1e9)};
  while (nanosleep(&grace, &grace) != 0 && errno == EINTR) {
  }
  signal_groups(groups, count, SIGKILL);
  _exit(0);
}

}  // namespace

LaunchGuardian::LaunchGuardian(std::size_t max_groups, double grace_seconds) {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) {
    throw SystemError(std::string("cannot make the pipe of the launch's guardian: ") + std::strerror(errno));
  }
  std::vector<pid_t> groups(max_groups);  // before the fork: the guardian allocates nothing
  pid_t pid = fork();
  if (pid < 0) {
    int error = errno;
    close(ends[0]);
    close(ends[1]);
    throw SystemError(std::string("cannot start the launch's guardian: fork failed: ") + std::strerror(error));
  }
  if (pid == 0) {
    close(ends[1]);
    guard(ends[0], groups.data(), groups.size(), grace_seconds);
  }
  close(ends[0]);
  m_fd = ends[1];
  m_pid = pid;
}

LaunchGuardian::~LaunchGuardian() {
  send('d', 0);
  close(m_fd);
  // The launch's own loop may have reaped it already (only if something killed it): then ECHILD.
  while (waitpid(m_pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

void LaunchGuardian::watch(pid_t group) {
  send('+', group);
}

void LaunchGuardian::forget(pid_t group) {
  send('-', group);
}

void LaunchGuardian::send(char what, pid_t group) {
  Message message{what, group};
  // A guardian that is gone (killed) cannot be helped: the launch goes on without it, as before.
  while (write(m_fd, &message, sizeof message) < 0 && errno == EINTR) {
  }
}

}  // namespace ezpz::core
