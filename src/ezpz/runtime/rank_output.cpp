#include "ezpz/runtime/rank_output.hpp"

#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "ezpz/util/error.hpp"
#include "ezpz/util/file.hpp"

namespace ezpz::core {
namespace {

void write_whole(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;  // a closed console or a full disk must not stop the rank
    bytes.remove_prefix(static_cast<std::size_t>(written));
  }
}

}  // namespace

RankOutput::RankOutput(const RankOutputPlan& plan) : m_plan(plan) {
  m_prefix = "[rank " + std::to_string(plan.rank) + "] ";
  if (plan.log_dir.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(plan.log_dir, error);
  m_log_path = plan.log_dir + "/rank-" + std::to_string(plan.rank) + ".log";
  m_log_fd =
      open_for_append(m_log_path, "the log file '" + m_log_path + "'",
                      error ? "cannot create the directory: " + error.message() : "check --log-dir / supervise.log_dir")
          .release();
}

RankOutput::~RankOutput() {
  if (m_log_fd >= 0) close(m_log_fd);
}

void RankOutput::write(int fd, std::string_view bytes) {
  if (m_log_fd >= 0) write_whole(m_log_fd, bytes);
  if (!m_plan.console) return;
  if (!m_plan.label) {
    write_whole(fd, bytes);
    return;
  }
  bool& line_start = m_line_start[static_cast<std::size_t>(fd == STDERR_FILENO ? 2 : 1)];
  while (!bytes.empty()) {  // one write per line, with its label
    std::size_t end = bytes.find('\n');
    std::size_t length = end == std::string_view::npos ? bytes.size() : end + 1;
    std::string line = line_start ? m_prefix : std::string();
    line.append(bytes.substr(0, length));
    write_whole(fd, line);
    line_start = end != std::string_view::npos;
    bytes.remove_prefix(length);
  }
}

}  // namespace ezpz::core
