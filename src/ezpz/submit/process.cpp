// Boost.Process behind the ProcessRunner interface: both output pipes drained concurrently and
// bounded, a time limit, and the whole process group killed when it runs out.
#include "ezpz/submit/process.hpp"

#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/process.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <thread>

#include "ezpz/util/error.hpp"
#include "ezpz/util/exec.hpp"
#include "ezpz/util/limits.hpp"
#include "ezpz/util/text.hpp"
#include "ezpz/util/walltime.hpp"

namespace ezpz::core {
namespace {

namespace bp = boost::process;
using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds k_default_timeout{120'000};

// Reads one pipe until it closes, keeping the first k_max_command_output bytes.
class Capture {
 public:
  explicit Capture(boost::asio::io_context& io) : m_pipe(io) {}
  bp::async_pipe& pipe() { return m_pipe; }
  bool closed() const { return m_closed; }
  std::string take() {
    if (m_dropped > 0) m_text += "\n[ezpz: " + std::to_string(m_dropped) + " more bytes not kept]\n";
    return std::move(m_text);
  }
  void start() {
    m_pipe.async_read_some(boost::asio::buffer(m_buffer), [this](const boost::system::error_code& error, size_t n) {
      size_t room = k_max_command_output - std::min(k_max_command_output, m_text.size());
      m_text.append(m_buffer.data(), std::min(n, room));
      m_dropped += n - std::min(n, room);
      if (error) {
        m_closed = true;
        return;
      }
      start();
    });
  }

 private:
  bp::async_pipe m_pipe;
  std::array<char, 64 * 1024> m_buffer{};
  std::string m_text;
  size_t m_dropped = 0;
  bool m_closed = false;
};

std::string seconds_text(std::chrono::milliseconds duration) {
  double seconds = duration.count() / 1000.0;
  std::string text = std::to_string(seconds);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text + " s";
}

}  // namespace

SystemProcessRunner::SystemProcessRunner()
    : m_timeout(static_cast<long>(1000 * seconds_from_environment("EZPZ_SCHEDULER_TIMEOUT",
                                                                  k_default_timeout.count() / 1000.0, 0.001, 86400))) {}

ProcessResult SystemProcessRunner::run(const std::vector<std::string>& argv, const std::string& cwd) {
  ProcessResult result;
  // A name with a '/' is a path, as execvp takes it; anything else is looked up on PATH.
  boost::filesystem::path program;
  if (!argv.empty())
    program = argv[0].find('/') != std::string::npos ? boost::filesystem::path(argv[0]) : bp::search_path(argv[0]);
  if (program.empty() || (argv[0].find('/') != std::string::npos && ::access(argv[0].c_str(), X_OK) != 0)) {
    result.exit_code = 127;
    result.err = (argv.empty() ? std::string("(nothing)") : argv[0]) + ": command not found";
    return result;
  }
  std::vector<std::string> args(argv.begin() + 1, argv.end());
  boost::asio::io_context io;
  Capture out(io);
  Capture err(io);
  Clock::time_point deadline = Clock::now() + m_timeout;
  try {
    bp::group group;  // what the program starts goes down with it on a timeout
    // /dev/null, not a closed stdin: OpenPBS's qstat and qdel then get their server socket as fd 0,
    // take it for a failed connection, print "cannot connect" and exit 0.
    bp::child child(program, bp::args(args), bp::std_in<bp::null, bp::std_out> out.pipe(), bp::std_err > err.pipe(),
                    group,
                    bp::start_dir(cwd.empty() ? boost::filesystem::current_path() : boost::filesystem::path(cwd)));
    out.start();
    err.start();
    while (!(out.closed() && err.closed()) && Clock::now() < deadline) io.run_one_until(deadline);
    // Both pipes closed, yet the program may linger (a daemonising sbatch wrapper): the same deadline.
    // Polled: Boost 1.74's child::wait_for waited out the whole limit for a child that had already ended.
    std::error_code state;
    auto nap = std::chrono::microseconds(50);
    while (out.closed() && err.closed() && child.running(state) && Clock::now() < deadline) {
      std::this_thread::sleep_for(nap);
      nap = std::min(nap * 2, std::chrono::microseconds(20'000));
    }
    if (!(out.closed() && err.closed()) || child.running(state)) {
      result.timed_out = true;
      std::error_code ignored;
      group.terminate(ignored);
      child.wait(ignored);
      out.pipe().close();
      err.pipe().close();
      io.restart();
      io.poll();
      result.exit_code = 124;
    } else {
      child.wait(state);
      int status = child.native_exit_code();
      result.exit_code = wait_status_exit_code(status);
    }
    result.out = out.take();
    result.err = err.take();
    if (result.timed_out) result.err += "\n[ezpz: stopped after " + seconds_text(m_timeout) + " without an end]";
  } catch (const std::exception& error) {
    result.exit_code = 126;
    result.err = std::string("cannot run ") + program.string() + ": " + error.what();
  }
  return result;
}

std::string command_text(const std::vector<std::string>& argv) {
  std::vector<std::string> quoted;
  for (const auto& word : argv) quoted.push_back(shell_quote(word));
  return join(quoted, " ");
}

std::string command_and_stderr(const std::vector<std::string>& argv, const ProcessResult& result) {
  std::string err = trim(result.err);
  if (err.size() > k_max_message_stderr) {
    err = err.substr(0, k_max_message_stderr) + "\n[… " + std::to_string(err.size() - k_max_message_stderr) +
          " more bytes]";
  }
  return command_text(argv) + (err.empty() ? std::string() : "\n" + err);
}

std::string failure_message(const std::vector<std::string>& argv, const ProcessResult& result) {
  std::string name = argv.empty() ? std::string("(nothing)") : argv[0];
  return (result.timed_out ? name + " did not finish in time: "
                           : name + " failed (exit code " + std::to_string(result.exit_code) + "): ") +
         command_and_stderr(argv, result);
}

}  // namespace ezpz::core
