// Boost.Process behind the ProcessRunner interface; both output pipes are drained concurrently.
#include "ezpz/submit/process.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/process.hpp>

#include <future>

#include "ezpz/util/text.hpp"

namespace ezpz {

ProcessResult SystemProcessRunner::run(const std::vector<std::string>& argv, const std::string& cwd) {
  namespace bp = boost::process;
  ProcessResult result;
  boost::filesystem::path program = argv.empty() ? boost::filesystem::path() : bp::search_path(argv[0]);
  if (program.empty()) {
    result.exit_code = 127;
    result.err = (argv.empty() ? std::string("(nothing)") : argv[0]) + ": command not found";
    return result;
  }
  std::vector<std::string> args(argv.begin() + 1, argv.end());
  boost::asio::io_context io;
  std::future<std::string> out;
  std::future<std::string> err;
  try {
    // /dev/null, not a closed stdin: OpenPBS's qstat and qdel then get their server socket as fd 0,
    // take it for a failed connection, print "cannot connect" and exit 0.
    bp::child child(program, bp::args(args), bp::std_in < bp::null, bp::std_out > out, bp::std_err > err,
                    bp::start_dir(cwd.empty() ? boost::filesystem::current_path() : boost::filesystem::path(cwd)), io);
    io.run();
    child.wait();
    result.exit_code = child.native_exit_code();
    result.exit_code = WIFEXITED(result.exit_code) ? WEXITSTATUS(result.exit_code) : 128 + WTERMSIG(result.exit_code);
    result.out = out.get();
    result.err = err.get();
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

}  // namespace ezpz
