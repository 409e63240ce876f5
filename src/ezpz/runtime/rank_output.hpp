// One rank's output when `ezpz exec` passes it on itself (--label, --log-dir; docs/runtime-env.md,
// "Per-rank output"): whole lines, each written to its destination with one write, so that lines of
// different ranks never cut into each other where the launcher merges them (a write of up to PIPE_BUF
// bytes into a pipe is atomic).
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace ezpz::core {

struct RankOutputPlan {
  bool label = false;   // prefix each console line with "[rank N] "
  std::string log_dir;  // "": none; else DIR/rank-N.log gets this rank's stdout and stderr
  bool console = true;  // pass the output on to ezpz exec's own stdout and stderr
  long rank = 0;

  bool active() const { return label || !log_dir.empty(); }
};

class RankOutput {
 public:
  // Opens the log file (created with its directory, appended to). Throws UserError when it cannot, or
  // when it is not a regular file: a link is never followed, a FIFO never waited for.
  explicit RankOutput(const RankOutputPlan& plan);
  ~RankOutput();
  RankOutput(const RankOutput&) = delete;
  RankOutput& operator=(const RankOutput&) = delete;

  // Whole lines (or a piece of an over-long line) of the program's stdout (fd 1) or stderr (fd 2), as a
  // LineForwarder releases them.
  void write(int fd, std::string_view bytes);

  const std::string& log_path() const { return m_log_path; }

 private:
  RankOutputPlan m_plan;
  std::string m_prefix;
  std::string m_log_path;
  int m_log_fd = -1;
  std::array<bool, 3> m_line_start{true, true, true};  // by fd: the next byte starts a line
};

}  // namespace ezpz::core
